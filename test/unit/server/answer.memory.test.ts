/**
 * The endpoint's request (src/server/answer.ts) keeps nothing of a finished request alive across
 * young-generation collections. Its lazy `signal` used to be an object literal's `get signal()`
 * closing over the response: V8 allocates such a literal's accessor pair in the old generation, so
 * the getter, and through its closure the whole request and response, survived every scavenge
 * until the next full collection; a contact flood promoted 6 to 12 % of all it allocated and the
 * old generation grew to its next limit (bench/NOTES.md, "Memory round 3"). Measured in a child
 * process (its own heap, `--expose-gc`, npm start's young generation): each response carries
 * 64 KiB of heap; after 400 finished requests and a few scavenges, the old generation must not
 * have taken them in.
 *
 * And a request waiting on its endpoint holds no memory outside the heap: its body is kept as a
 * string, not as the Buffer it arrived in (promoted outside memory waits for a full collection,
 * which outside memory starts only 64 MB past the last one).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

const CHILD = `
import { getHeapSpaceStatistics } from 'node:v8';
import { callEndpoint } from './src/server/answer.ts';
const oldUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size / 1048576;
const parts = { deps: { https: false, siteHost: () => 'site.test', endpointDeps: () => ({}) } };
const route = { bodyLimit: 1024, deadlineMs: 4_000 };
const endpoint = async (request) => ({ status: 200, headers: { 'x-method': request.method }, body: request.url.pathname });
/** A finished request whose response holds 64 KiB of heap (a double array in the young generation). */
const exchange = () => ({ req: { headers: { host: 'site.test' } }, res: { ballast: new Array(8_000).fill(1.5) }, method: 'GET', url: { pathname: '/api/x', search: '' }, route });
/** The shape the edge used to build: an object literal whose getter closes over the response. */
async function literal(x) {
  let signal;
  const request = { method: x.method, url: new URL('http://site.test/api/x'), headers: x.req.headers, body: undefined, deadline: Date.now() + 4_000, get signal() { return (signal ??= x.res); } };
  return { kind: 'plain', response: await endpoint(request), edge: false };
}
async function promotedBy(call) {
  gc();
  const before = oldUsed();
  for (let i = 0; i < 400; i++) await call(exchange());
  for (let i = 0; i < 3; i++) gc({ type: 'minor' });
  return oldUsed() - before;
}
const edge = await promotedBy((x) => callEndpoint(parts, x, endpoint));
const control = await promotedBy(literal);
process.stdout.write(JSON.stringify({ edge, control }) + '\\n');
`;

describe("the endpoint's request", () => {
  it('lets a finished request die young: its response is not promoted to the old generation', { timeout: 60_000 }, async () => {
    // The old generation starts at 128 MB so that V8 starts no major collection of its own while
    // the 400 requests run: one would free what the literal's shape promoted, and how far it got
    // depends on the machine's load (under the full suite the control once read 0.44 MiB).
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=4', '--initial-old-space-size=128', '--input-type=module', '-e', CHILD], { cwd: ROOT });
    const out = JSON.parse(stdout.trim()) as { edge: number; control: number };
    // 400 responses of 64 KiB are 25 MiB: the literal's shape takes most of them into the old
    // generation (the measure works); the edge's request takes none of them.
    expect(out.control, JSON.stringify(out)).toBeGreaterThan(12);
    expect(out.edge, JSON.stringify(out)).toBeLessThan(4);
  });

  it('keeps no Buffer of a body while the endpoint works: in-flight requests hold their bodies on the heap', { timeout: 60_000 }, async () => {
    // V8 frees the memory of dead ArrayBuffers on a background thread after a collection, so a
    // reading right after gc() could still count Buffers already found dead (4 runs in 20 read 7 to
    // 10.7 MiB for the edge); sweeping them on the main thread makes gc() return only once it is done.
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=4', '--no-concurrent-array-buffer-sweeping', '--input-type=module', '-e', IN_FLIGHT], { cwd: ROOT });
    const out = JSON.parse(stdout.trim()) as { edge: number; control: number; read: boolean };
    // 200 bodies of 64 KiB are 12.5 MiB: a request that keeps the Buffer holds them all outside
    // the heap (the measure works); the edge's request holds none, and the endpoint read each whole.
    expect(out.read, JSON.stringify(out)).toBe(true);
    expect(out.control, JSON.stringify(out)).toBeGreaterThan(10);
    expect(out.edge, JSON.stringify(out)).toBeLessThan(2);
  });
});

const IN_FLIGHT = `
import { EventEmitter } from 'node:events';
import { callEndpoint } from './src/server/answer.ts';
import { readBody } from './src/server/body.ts';
const outside = () => process.memoryUsage().arrayBuffers / 1048576;
const parts = { deps: { https: false, siteHost: () => 'site.test', endpointDeps: () => ({}) } };
const route = { bodyLimit: 1 << 20, deadlineMs: 4_000 };
const SIZE = 65_536;
let read = true;
const whole = (bytes) => bytes.length === SIZE && bytes[0] === 0xe9 && bytes[SIZE - 1] === 0xe9;
/**
 * A POST whose body arrives as node's parser hands it over: one Buffer with memory of its own,
 * emitted and not kept (Readable.from would keep its source array, and the Buffer in it, alive).
 */
const exchange = () => {
  const req = Object.assign(new EventEmitter(), { headers: { host: 'site.test', 'content-length': String(SIZE) }, complete: true, pause() {} });
  setImmediate(() => {
    req.emit('data', Buffer.alloc(SIZE, 0xe9));
    req.emit('end');
  });
  return { req, res: {}, method: 'POST', url: { pathname: '/api/x', search: '' }, route };
};
/** The old shape: the request keeps the Buffer it was given. */
async function holding(x) {
  const body = await readBody(x.req, route.bodyLimit);
  return { kind: 'plain', response: await x.endpoint({ method: 'POST', url: new URL('http://site.test/api/x'), headers: { get: () => null }, body, deadline: Date.now() + 4_000 }), edge: false };
}
async function heldBy(call) {
  gc();
  const before = outside();
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  let waiting = 0;
  // As the endpoints do: the bytes parsed in a turn of their own, nothing of them kept across the wait.
  const endpoint = async (request) => {
    read &&= whole(request.body);
    waiting++;
    await gate;
    return { status: 200, headers: {}, body: 'ok' };
  };
  const calls = Array.from({ length: 200 }, () => { const x = exchange(); x.endpoint = endpoint; return call(x, endpoint); });
  while (waiting < 200) await new Promise((resolve) => setImmediate(resolve));
  gc();
  const held = outside() - before;
  release();
  await Promise.all(calls);
  return held;
}
const edge = await heldBy((x, endpoint) => callEndpoint(parts, x, endpoint));
const control = await heldBy((x) => holding(x));
process.stdout.write(JSON.stringify({ edge, control, read }) + '\\n');
`;
