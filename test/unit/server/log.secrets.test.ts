/**
 * The production logger never writes a configured secret, whatever carries it (message, stack,
 * nested field, cause, the access log), in any of the forms it is written in, nor the request
 * and response bodies error objects hold; and it censors secret fields by name
 * (src/server/log-fields.ts) at the top level, one level down, in `req.headers`, in a child's
 * bindings and in a logged error, leaving the caller's objects as they were.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig, secretValues } from '../../../src/app/config.ts';
import { createLogger, createRequestLog, flushLogger } from '../../../src/server/log.ts';

const KEY = 'sk-test-Zq8/Xw+7"Lm9Pn2&Ys';
const HMAC = 'f'.repeat(20) + 'altcha-hmac-key-0123456789';
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PG_PASSWORD = 'pg-p@ss/word!42';

function collect() {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => written.join('') };
}

const parseLines = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

const config = loadConfig({
  NODE_ENV: 'test',
  LLM_BASE_URL: 'https://llm.example/v1',
  LLM_MODEL: 'm',
  LLM_API_KEY: KEY,
  CONTACT_ALTCHA_HMAC_KEY: HMAC,
  CONTACT_WEBHOOK_SECRET: WHSEC,
  CONTACT_WEBHOOK_URL: 'https://hooks.example/in/t0k3n-s3cr3t-path?token=q-secret-12345',
  DATABASE_URL: `postgres://site:${encodeURIComponent(PG_PASSWORD)}@db.example:5432/site`,
});

describe('the logger and configured secrets', () => {
  it('lists every configured secret, and no ordinary value', () => {
    const secrets = secretValues(config);
    for (const value of [KEY, HMAC, WHSEC, WHSEC.slice('whsec_'.length), PG_PASSWORD, 'q-secret-12345']) expect(secrets).toContain(value);
    expect(secrets).not.toContain('site');
    expect(secrets).not.toContain('postgres');
  });

  it('blanks them in messages, stacks, nested fields and causes, raw, JSON-escaped or percent-encoded', () => {
    const { stream, text } = collect();
    const log = createLogger({ level: 'info', stream, secrets: secretValues(config) });
    const cause = Object.assign(new Error(`upstream said: Incorrect API key provided: ${KEY}`), { code: 'E_AUTH' });
    const error = Object.assign(new Error(`connect failed for postgres://site:${PG_PASSWORD}@db.example/site`, { cause }), {
      details: { nested: { deeper: { deepest: { key: HMAC, list: [`Bearer ${KEY}`] } } } },
      url: `https://llm.example/v1?k=${encodeURIComponent(KEY)}`,
    });
    log.warn({ err: error, note: `secret ${WHSEC} and ${WHSEC.slice(6)}`, deep: { a: { b: { c: { d: { e: { f: KEY } } } } } } }, `message with ${KEY}`);
    log.info(`hook https://hooks.example/in/t0k3n-s3cr3t-path?token=q-secret-12345 failed`);
    flushLogger(log);
    const out = text();
    for (const value of [KEY, JSON.stringify(KEY).slice(1, -1), encodeURIComponent(KEY), HMAC, WHSEC, WHSEC.slice(6), PG_PASSWORD, encodeURIComponent(PG_PASSWORD), 't0k3n-s3cr3t-path', 'q-secret-12345']) {
      expect(out).not.toContain(value);
    }
    expect(out).toContain('[redacted]');
    // The rest of each line is still there to read.
    expect(out).toContain('upstream said: Incorrect API key provided: [redacted]');
  });

  it('drops request and response bodies from logged errors', () => {
    const { stream, text } = collect();
    const log = createLogger({ level: 'info', stream });
    const error = Object.assign(new Error('Bad Request'), {
      statusCode: 400,
      requestBodyValues: { messages: [{ role: 'user', content: 'my address is 1 Visitor Lane' }] },
      responseBody: '{"error":"prompt 1 Visitor Lane is too long"}',
    });
    log.warn({ err: error }, 'provider failed');
    flushLogger(log);
    expect(text()).not.toContain('Visitor Lane');
    expect(JSON.parse(text())).toMatchObject({ err: { message: 'Bad Request', statusCode: 400, requestBodyValues: '[omitted]', responseBody: '[omitted]' } });
  });

  it('blanks them in the access log too', async () => {
    const { stream, text } = collect();
    const log = createLogger({ level: 'info', stream, secrets: [KEY] });
    const record = createRequestLog(log);
    record({ reqId: 'r1', method: 'GET', path: `/api/${KEY}`, status: 404, ms: 1, aborted: false });
    flushLogger(log);
    expect(text()).toContain('"path":"/api/[redacted]"');
    expect(text()).not.toContain(KEY);
  });
});

describe('secret fields in log lines', () => {
  it('censors them at the top level and one level down, and keeps a URL but its password', () => {
    const { stream, text } = collect();
    const lines = () => parseLines(text());
    const log = createLogger({ level: 'info', stream });
    const fields = {
      password: 'hunter2-top',
      apiKey: 'key-top',
      db: { connectionString: 'postgres://site:pw-nested@db.example/site', host: 'db.example' },
      llm: { baseUrl: 'https://user:pw-base@llm.example/v1', authorization: 'Bearer tok-nested', model: 'm' },
      database: 'postgres://site:pw-top@db.example/site',
      req: { method: 'GET', headers: { authorization: 'Bearer tok-header', cookie: 'sid=cookie-value', accept: 'text/html' } },
      count: 3,
    };
    const before = structuredClone(fields);
    log.info(fields, 'with secrets');
    flushLogger(log);
    const [line] = lines();
    const written = JSON.stringify(line);
    for (const secret of ['hunter2-top', 'key-top', 'pw-nested', 'pw-base', 'tok-nested', 'pw-top', 'tok-header', 'cookie-value']) expect(written).not.toContain(secret);
    const mark = '[redacted]';
    expect(line).toMatchObject({
      ...fields,
      password: mark,
      apiKey: mark,
      database: 'postgres://site:***@db.example/site',
      db: { ...fields.db, connectionString: 'postgres://site:***@db.example/site' },
      llm: { ...fields.llm, baseUrl: 'https://user:***@llm.example/v1', authorization: mark },
      req: { ...fields.req, headers: { ...fields.req.headers, authorization: mark, cookie: mark } },
      msg: 'with secrets',
    });
    // The caller's object is not changed.
    expect(fields).toEqual(before);
  });

  it('writes a line without such fields as it is', () => {
    const { stream, text } = collect();
    const lines = () => parseLines(text());
    const log = createLogger({ level: 'info', stream });
    log.info({ submission: 'c_1', replayed: false, nested: { a: 1, list: [{ password: 'in-an-array' }] } }, 'contact submission stored');
    flushLogger(log);
    expect(lines()[0]).toMatchObject({ submission: 'c_1', replayed: false, nested: { a: 1, list: [{ password: 'in-an-array' }] }, msg: 'contact submission stored' });
  });

  it('censors them in a child logger’s bindings and in a logged error', () => {
    const { stream, text } = collect();
    const lines = () => parseLines(text());
    const smtp = { host: 'mail.example', password: 'nested-binding-password' };
    const log = createLogger({ level: 'info', stream }).child({ job: 'backup', webhookUrl: 'https://hooks.example/in?token=t0k3n-binding', cookie: 'sid=binding', smtp });
    const error = Object.assign(new Error('refused'), { password: 'err-password', options: { apiKey: 'err-nested-key' } });
    log.warn({ err: error }, 'failed');
    flushLogger(log);
    const [line] = lines();
    const written = JSON.stringify(line);
    for (const secret of ['t0k3n-binding', 'sid=binding', 'nested-binding-password', 'err-password', 'err-nested-key']) expect(written).not.toContain(secret);
    expect(line).toMatchObject({ job: 'backup', webhookUrl: 'https://hooks.example/in?token=***', cookie: '[redacted]', smtp: { host: 'mail.example', password: '[redacted]' }, err: { message: 'refused', password: '[redacted]', options: { apiKey: '[redacted]' } } });
    expect(String((line!['err'] as { stack: string }).stack)).toContain('Error: refused');
    expect(error.password).toBe('err-password');
    expect(smtp.password).toBe('nested-binding-password');
    // A child's child too.
    log.child({ store: { password: 'grandchild-password' } }).info('second');
    flushLogger(log);
    expect(lines()[1]).toMatchObject({ job: 'backup', smtp: { password: '[redacted]' }, store: { password: '[redacted]' }, msg: 'second' });
    expect(text()).not.toContain('grandchild-password');
  });
});
