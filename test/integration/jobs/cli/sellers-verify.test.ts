/**
 * `sellers:verify` as a real process against a local fixture server playing the sellers' sites:
 * the command's `--base-url` sends `<scheme>://<host>/<file>` to `<base>/<scheme>/<host>/<file>`,
 * and the server answers per logical URL (redirect locations are logical URLs too).
 *
 * The time limit per request is generous (ANSWER_LIMIT_MS) wherever the fixture answers: with
 * 400 ms, a loaded machine answered https late, and the command rightly fell back to http. Only
 * the silent server, which never answers however idle the machine, is run with a short limit,
 * in a run of its own.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
/** The time limit for fixtures that answer: long enough for any load, never reached when they do. */
const ANSWER_LIMIT_MS = '60000';
/** The time limit for the silent server: it never answers, so any limit is reached. */
const SILENT_LIMIT_MS = '400';
const US = 'meridian-exchange.example';

type Answer =
  | { status?: number; type?: string; body?: string | Buffer; location?: string }
  | 'hang'
  | 'reset';

/** Logical URL -> answer; anything else is a 404. */
const SITES: Record<string, Answer> = {
  'https://ok.example/ads.txt': { body: `# ours\n${US}, pub-1, DIRECT, f08c47fec0942fa0\nother.example, 1, RESELLER\n` },
  'https://wrongrel.example/ads.txt': { body: `${US}, int-1, DIRECT\n` },
  'https://app.example/app-ads.txt': { body: `OWNERDOMAIN=app.example\n${US}, both-1, reseller\n` },
  'https://otherid.example/ads.txt': { body: `${US}, pub-999, DIRECT\n` },
  'https://html.example/ads.txt': { type: 'text/html; charset=utf-8', body: `<p>${US}, pub-3, DIRECT</p>` },
  'https://samesite.example/ads.txt': { status: 301, location: 'https://www.samesite.example/files/ads.txt' },
  'https://www.samesite.example/files/ads.txt': { status: 307, location: '/ads-final.txt' },
  'https://www.samesite.example/ads-final.txt': { body: `${US}, pub-4, DIRECT\n` },
  'https://delegated.example/ads.txt': { status: 302, location: 'https://cdn.adhost.example/delegated/ads.txt' },
  'https://cdn.adhost.example/delegated/ads.txt': { body: `${US}, pub-5, DIRECT\n` },
  'https://twohops.example/ads.txt': { status: 302, location: 'https://cdn.adhost.example/twohops/ads.txt' },
  'https://cdn.adhost.example/twohops/ads.txt': { status: 302, location: 'https://elsewhere.example/ads.txt' },
  'https://elsewhere.example/ads.txt': { body: `${US}, pub-6, DIRECT\n` },
  'https://down.example/ads.txt': { status: 503 },
  'https://down.example/app-ads.txt': { status: 503 },
  'https://plainonly.example/ads.txt': 'reset',
  'http://plainonly.example/ads.txt': { body: `${US}, pub-8, DIRECT\n` },
  'https://big.example/ads.txt': { body: Buffer.alloc(1024 * 1024 + 1, 'x') },
  'https://slow.example/ads.txt': 'hang',
  'http://slow.example/ads.txt': 'hang',
  'https://slow.example/app-ads.txt': 'hang',
  'http://slow.example/app-ads.txt': 'hang',
};

const seller = (seller_id: string, domain: string, seller_type = 'PUBLISHER') => ({ seller_id, seller_type, name: `Seller ${seller_id}`, domain });

const ALL = [
  seller('pub-1', 'ok.example'),
  seller('int-1', 'wrongrel.example', 'INTERMEDIARY'),
  seller('both-1', 'app.example', 'BOTH'),
  seller('pub-2', 'otherid.example'),
  seller('pub-3', 'html.example'),
  seller('pub-4', 'samesite.example'),
  seller('pub-5', 'delegated.example'),
  seller('pub-6', 'twohops.example'),
  seller('pub-7', 'down.example'),
  seller('pub-8', 'plainonly.example'),
  seller('pub-9', 'big.example'),
  seller('pub-10', 'slow.example'),
  seller('pub-11', 'nofile.example'),
  { seller_id: 'pub-12', seller_type: 'PUBLISHER', is_confidential: 1 },
];

let server: Server;
let base: string;
const dir = mkdtempSync(join(tmpdir(), 'sellers-verify-'));
const requested: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const match = /^\/(https?)\/([^/]+)(\/.*)$/.exec(req.url ?? '');
    const logical = match ? `${match[1]}://${match[2]}${match[3]}` : '';
    requested.push(logical);
    const answer = SITES[logical] ?? { status: 404, type: 'text/html', body: 'not found' };
    if (answer === 'hang') return;
    if (answer === 'reset') {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/plain; charset=utf-8', ...(answer.location ? { location: answer.location } : {}) });
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function verify(document: unknown, args: string[] = []): Promise<Run & { lines: Record<string, string> }> {
  const file = join(dir, `sellers-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
  let run: Run;
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['jobs/cli/sellers-verify.ts', '--file', file, '--base-url', base, '--timeout-ms', ANSWER_LIMIT_MS, ...args]);
    run = { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Run;
    run = { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
  const lines = Object.fromEntries(run.stdout.trim().split('\n').filter(Boolean).map((line) => [line.split(/\s+/)[1]!, line]));
  return { ...run, lines };
}

const doc = (sellers: unknown[], extra: Record<string, unknown> = { contact_email: `sellers@${US}` }) => ({ ...extra, version: '1.0', sellers });

/** Every seller but the silent one (see the file comment). */
const ANSWERING = ALL.filter((s) => !('domain' in s) || s.domain !== 'slow.example');

describe('sellers:verify against fixture sites', () => {
  let all: Awaited<ReturnType<typeof verify>>;
  let silent: Awaited<ReturnType<typeof verify>>;
  beforeAll(async () => {
    [all, silent] = await Promise.all([verify(doc(ANSWERING)), verify(doc(ALL.filter((s) => 'domain' in s && s.domain === 'slow.example')), ['--timeout-ms', SILENT_LIMIT_MS])]);
  }, 120_000);

  it('exits 65 when any seller mismatches, with one line per seller in file order', () => {
    expect(all.code).toBe(65);
    expect(Object.keys(all.lines)).toEqual(ANSWERING.map((s) => s.seller_id));
    expect(all.stderr).toContain(`checking ads.txt / app-ads.txt of the sellers in ${join(dir, '')}`);
    expect(all.stderr).toMatch(/^5 ok, 6 mismatch, 1 unreachable, 1 skipped \(no domain\)$/m);
  });

  it('reports ok with the file, the line and the record', () => {
    expect(all.lines['pub-1']).toBe(`ok           pub-1  ok.example  ads.txt line 2: ${US}, pub-1, DIRECT, f08c47fec0942fa0`);
  });

  it('refuses the wrong relationship for the seller type', () => {
    expect(all.lines['int-1']).toMatch(/^mismatch {5}int-1 {2}wrongrel\.example {2}ads\.txt: line 1 lists int-1 as DIRECT; seller_type INTERMEDIARY must be listed RESELLER; app-ads\.txt: no file at https:\/\/wrongrel\.example\/app-ads\.txt \(HTTP 404\)$/);
  });

  it('falls back to app-ads.txt, and accepts either relationship for BOTH', () => {
    expect(all.lines['both-1']).toBe(`ok           both-1  app.example  app-ads.txt line 2: ${US}, both-1, RESELLER`);
  });

  it('names the IDs found when ours is missing', () => {
    expect(all.lines['pub-2']).toContain(`ads.txt: ${US} is listed without seller ID "pub-2" (found "pub-999")`);
  });

  it('does not read an HTML page as ads.txt', () => {
    expect(all.lines['pub-3']).toContain('ads.txt: https://html.example/ads.txt is text/html, not text/plain');
    expect(all.lines['pub-3']).toMatch(/^mismatch/);
  });

  it('follows redirects within the root domain, relative locations included', () => {
    expect(all.lines['pub-4']).toBe(`ok           pub-4  samesite.example  ads.txt line 1: ${US}, pub-4, DIRECT`);
  });

  it('follows one redirect outside the root domain (ads.txt one-hop delegation), and refuses a second', () => {
    expect(all.lines['pub-5']).toMatch(/^ok {11}pub-5/);
    expect(all.lines['pub-6']).toContain(
      'ads.txt: redirect refused: https://cdn.adhost.example/twohops/ads.txt (already outside twohops.example) redirects again, to https://elsewhere.example/ads.txt',
    );
    expect(all.lines['pub-6']).toMatch(/^mismatch/);
    expect(requested).not.toContain('https://elsewhere.example/ads.txt');
  });

  it('reports a server error as unreachable, without trying http after an HTTPS answer', () => {
    expect(all.lines['pub-7']).toBe('unreachable  pub-7  down.example  ads.txt: https://down.example/ads.txt: HTTP 503; app-ads.txt: https://down.example/app-ads.txt: HTTP 503');
    expect(requested).not.toContain('http://down.example/ads.txt');
  });

  it('falls back to http only when https cannot be reached', () => {
    expect(all.lines['pub-8']).toMatch(/^ok {11}pub-8/);
    expect(requested).toContain('https://plainonly.example/ads.txt');
    expect(requested).not.toContain('http://ok.example/ads.txt');
    expect(requested).not.toContain('http://nofile.example/ads.txt');
  });

  it('refuses a file over 1 MiB', () => {
    expect(all.lines['pub-9']).toContain('ads.txt: https://big.example/ads.txt is larger than 1048576 bytes');
  });

  it('gives up on a silent server after the time limit, as unreachable', () => {
    expect(silent.code).toBe(69);
    expect(silent.lines['pub-10']).toBe(
      // No HTTP answer on either scheme: app-ads.txt, on the same host, is not asked for too.
      'unreachable  pub-10  slow.example  ads.txt: https and http://slow.example/ads.txt: no answer within 400 ms',
    );
  });

  it('reports missing files as a mismatch and skips sellers without a domain', () => {
    expect(all.lines['pub-11']).toBe(
      'mismatch     pub-11  nofile.example  ads.txt: no file at https://nofile.example/ads.txt (HTTP 404); app-ads.txt: no file at https://nofile.example/app-ads.txt (HTTP 404)',
    );
    expect(all.lines['pub-12']).toBe('skipped      pub-12  no domain (confidential)');
  });
});

describe('sellers:verify exit codes', () => {
  it('exits 0 when every seller is authorised', async () => {
    const run = await verify(doc([ALL[0], ALL[2], ALL[13]]));
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^2 ok, 0 mismatch, 0 unreachable, 1 skipped/m);
  });

  it('exits 69 when nothing mismatches but a site is unreachable', async () => {
    const run = await verify(doc([ALL[0], ALL[8]]));
    expect(run.code).toBe(69);
  });

  it('takes our domain from --ad-system-domain over contact_email', async () => {
    const run = await verify(doc([ALL[0]]), ['--ad-system-domain', 'other.example']);
    expect(run.code).toBe(65);
    expect(run.lines['pub-1']).toContain('ads.txt: other.example is listed without seller ID "pub-1" (found "1")');
  });

  it('exits 64 without contact_email or --ad-system-domain, and for a subdomain as our domain', async () => {
    const none = await verify(doc([ALL[0]], {}));
    expect(none.code).toBe(64);
    expect(none.stderr).toContain('has no contact_email to take our domain from: pass --ad-system-domain');
    const sub = await verify(doc([ALL[0]]), ['--ad-system-domain', 'ads.other.example']);
    expect(sub.code).toBe(64);
    expect(sub.stderr).toContain('--ad-system-domain: domain "ads.other.example" is a subdomain');
  });

  it('exits 65 with the problems for a sellers file that breaks the rules, before fetching anything', async () => {
    const before = requested.length;
    const run = await verify(doc([seller('pub-1', 'ads.ok.example')]));
    expect(run.code).toBe(65);
    expect(run.stderr).toContain('sellers[0].domain: seller "pub-1": domain "ads.ok.example" is a subdomain');
    expect(requested.length).toBe(before);
  });

  it('exits 66 for a file that cannot be read, 65 for one that is not JSON', async () => {
    const missing = await verify(doc([]), ['--file', join(dir, 'nope.json')]);
    expect(missing.code).toBe(66);
    expect((await verify('{ "version": ')).code).toBe(65);
  });

  it('exits 64 for a bad --timeout-ms or --base-url', async () => {
    expect((await verify(doc([ALL[0]]), ['--timeout-ms', '0'])).code).toBe(64);
    expect((await verify(doc([ALL[0]]), ['--base-url', 'ftp://x'])).code).toBe(64);
  });
});
