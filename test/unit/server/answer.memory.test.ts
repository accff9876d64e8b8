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
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=4', '--input-type=module', '-e', CHILD], { cwd: ROOT });
    const out = JSON.parse(stdout.trim()) as { edge: number; control: number };
    // 400 responses of 64 KiB are 25 MiB: the literal's shape takes most of them into the old
    // generation (the measure works); the edge's request takes none of them.
    expect(out.control, JSON.stringify(out)).toBeGreaterThan(12);
    expect(out.edge, JSON.stringify(out)).toBeLessThan(4);
  });
});
