import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, createRequestLog, flushLogger, LOGGED_PATH_CHARS, statusSent, type RequestRecord } from '../../../src/server/log.ts';

function collecting(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

const RECORDS: RequestRecord[] = [
  { reqId: '5f0c2a9be41d-1c', method: 'GET', path: '/api/v1/public/data', status: 200, ms: 0.12, aborted: false },
  { reqId: 'caller:id.1', method: 'POST', path: '/a"b\\c/é/\u0001', status: 499, ms: 12, aborted: true },
  { reqId: 'x', method: undefined, path: '/', status: 400, ms: 1.5, aborted: false },
  { reqId: 'long', method: 'GET', path: `/_astro/${'a'.repeat(16_000)}`, status: 404, ms: 0.3, aborted: false },
];

describe('the access log line', () => {
  it('is the line pino writes for log.info({...}, "request"), field for field and in the same order', async () => {
    const ours = collecting();
    const theirs = collecting();
    const write = createRequestLog(createLogger({ level: 'info', stream: ours.stream }));
    const log = createLogger({ level: 'info', stream: theirs.stream });
    for (const r of RECORDS) {
      write(r);
      const path = r.path.length > LOGGED_PATH_CHARS ? { path: r.path.slice(0, LOGGED_PATH_CHARS), pathLength: r.path.length } : { path: r.path };
      log.info({ reqId: r.reqId, method: r.method, ...path, status: r.status, ms: r.ms, aborted: r.aborted || undefined }, 'request');
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(ours.lines).toHaveLength(RECORDS.length);
    for (let i = 0; i < RECORDS.length; i++) {
      const [mine, pinos] = [JSON.parse(ours.lines[i]!) as Record<string, unknown>, JSON.parse(theirs.lines[i]!) as Record<string, unknown>];
      expect(mine['time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Object.keys(mine)).toEqual(Object.keys(pinos));
      expect({ ...mine, time: undefined }).toEqual({ ...pinos, time: undefined });
    }
    expect(JSON.parse(ours.lines[1]!)).toMatchObject({ level: 'info', pid: process.pid, path: '/a"b\\c/é/\u0001', aborted: true, msg: 'request' });
  });

  it('writes nothing when the level is above info', async () => {
    const ours = collecting();
    createRequestLog(createLogger({ level: 'warn', stream: ours.stream }))(RECORDS[0]!);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ours.lines).toEqual([]);
  });
});

describe('the access log on shutdown', () => {
  it('hands lines still waiting for their batch to the destination when the logger is flushed', async () => {
    const ours = collecting();
    const log = createLogger({ level: 'info', stream: ours.stream });
    const write = createRequestLog(log);
    write(RECORDS[0]!);
    write(RECORDS[2]!);
    flushLogger(log); // before the batch's own turn comes
    await Promise.resolve();
    expect(ours.lines.map((l) => (JSON.parse(l) as { reqId: string }).reqId)).toEqual([RECORDS[0]!.reqId, RECORDS[2]!.reqId]);
  });
});

describe('the access log under long paths (issue 31)', () => {
  it('carries a prefix of a long path and its length, never the whole request text', async () => {
    const ours = collecting();
    const write = createRequestLog(createLogger({ level: 'info', stream: ours.stream }));
    const path = `/${'x'.repeat(8_000)}\n{"level":"fatal","msg":"FORGED"}`;
    write({ reqId: 'r', method: 'GET', path, status: 429, ms: 1, aborted: false });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ours.lines).toHaveLength(1);
    expect(ours.lines[0]!.length).toBeLessThan(LOGGED_PATH_CHARS + 300);
    expect(JSON.parse(ours.lines[0]!)).toMatchObject({ path: path.slice(0, LOGGED_PATH_CHARS), pathLength: path.length, status: 429 });
  });
});

describe('the status a request is logged with', () => {
  it('is 499 when the connection ended before any head went out, and the status sent otherwise', () => {
    expect(statusSent({ headersSent: false, writableFinished: false, statusCode: 200 })).toBe(499);
    expect(statusSent({ headersSent: true, writableFinished: false, statusCode: 200 })).toBe(200);
    expect(statusSent({ headersSent: true, writableFinished: true, statusCode: 404 })).toBe(404);
  });
});
