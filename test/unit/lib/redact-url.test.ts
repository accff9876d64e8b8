import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from '../../../src/lib/redact-url.ts';
import { createLogger } from '../../../src/server/log.ts';

const SECRET = 's3cr3t-pw';

describe('redactUrl', () => {
  it('hides the password and keeps what helps find the server', () => {
    expect(redactUrl(`postgres://site:${SECRET}@db.example:5432/site`)).toBe('postgres://site:***@db.example:5432/site');
    expect(redactUrl(`redis://:${SECRET}@127.0.0.1:6379/0`)).toBe('redis://:***@127.0.0.1:6379/0');
  });

  it('hides a lone username, which is often a token', () => {
    expect(redactUrl(`https://${SECRET}@api.example/v1`)).toBe('https://***@api.example/v1');
  });

  it('hides secret-named query parameters', () => {
    expect(redactUrl(`postgres://db.example/site?sslmode=require&password=${SECRET}`)).toBe('postgres://db.example/site?sslmode=require&password=***');
  });

  it('leaves paths and innocent URLs exactly as written', () => {
    for (const text of ['./data/site.db', '/srv/a b/site.db', 'sqlite:/srv/a b/site.db', 'postgres://db.example/site', ':memory:']) expect(redactUrl(text)).toBe(text);
  });

  it('hides everything up to the last @ when the parser would not read it as userinfo', () => {
    // An unencoded '/' makes "1234" a port and the rest of the password a path.
    expect(redactUrl(`postgres://site:1234/${SECRET}@db.example/site`)).toBe('postgres://***@db.example/site');
    expect(redactUrl(`postgres://site:${SECRET}/x@db.example/site`)).toBe('postgres://***@db.example/site');
    expect(redactUrl(`mysql:site:${SECRET}@db.example`)).toBe('mysql:***');
  });

  it('finds URLs inside free text', () => {
    expect(redactUrlsIn(`connect to "redis://u:${SECRET}@r.example:6379" failed; retry postgres://p@h/db`)).toBe(
      'connect to "redis://u:***@r.example:6379" failed; retry postgres://***@h/db',
    );
  });
});

describe('the logger', () => {
  it('never writes a password or an API key, in fields or inside errors', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    const log = createLogger({ level: 'info', stream });
    const url = `postgres://site:${SECRET}@db.example/site`;
    const error = new Error(`could not connect to ${url}`, { cause: new Error(`redis://:${SECRET}@r.example refused`) });
    log.error({ err: error, database: url, config: { REDIS_URL: `redis://:${SECRET}@r.example`, LLM_API_KEY: SECRET }, apiKey: SECRET, password: SECRET }, 'failed');
    const text = lines.join('');
    expect(text).not.toContain(SECRET);
    const entry = JSON.parse(text) as Record<string, any>;
    expect(entry['database']).toBe('postgres://site:***@db.example/site');
    expect(entry['config']).toEqual({ REDIS_URL: 'redis://:***@r.example', LLM_API_KEY: '[redacted]' });
    expect(entry['err'].message).toBe('could not connect to postgres://site:***@db.example/site: redis://:***@r.example refused');
  });
});
