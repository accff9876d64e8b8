/**
 * Every wrong setting stops `node src/app/main.ts` with EX_CONFIG (78) and exactly one line on
 * stderr naming the variable and what it expects, and no secret planted in the value appears in
 * anything the process prints.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesOf, runToExit, SECRET } from './startup-run.ts';

const missingDir = join(mkdtempSync(join(tmpdir(), 'startup-')), 'missing');

const cases: Array<[string, Record<string, string>, RegExp]> = [
  ['a CIDR prefix beyond 32', { TRUST_PROXY: '127.0.0.1/33' }, /^Invalid configuration: TRUST_PROXY: "127\.0\.0\.1\/33" has a prefix length outside 0-32/],
  ['an IPv4 octet beyond 255', { TRUST_PROXY: '127.0.0.256' }, /^Invalid configuration: TRUST_PROXY: "127\.0\.0\.256" is not an IP address/],
  ['a proxy range of every IPv4 address', { TRUST_PROXY: '0.0.0.0/0' }, /^Invalid configuration: TRUST_PROXY: "0\.0\.0\.0\/0" trusts every address/],
  ['a proxy range of every IPv6 address', { TRUST_PROXY: '::/0' }, /^Invalid configuration: TRUST_PROXY: "::\/0" trusts every address/],
  ['TRUST_PROXY=true', { TRUST_PROXY: 'true' }, /^Invalid configuration: TRUST_PROXY: use a hop count/],
  ['an allowed origin with a path', { ALLOWED_ORIGINS: 'https://a.example/app' }, /^Invalid configuration: ALLOWED_ORIGINS: "https:\/\/a\.example\/app" has a path/],
  ['an allowed origin with credentials', { ALLOWED_ORIGINS: `https://a.example,https://u:${SECRET}@b.example` }, /^Invalid configuration: ALLOWED_ORIGINS: "https:\/\/u:\*\*\*@b\.example\/" carries credentials/],
  ['a mysql DATABASE_URL', { DATABASE_URL: `mysql://site:${SECRET}@db.example/site` }, /^Invalid configuration: DATABASE_URL: must be a SQLite file path, a file: URL or a postgres:\/\/ URL; the scheme "mysql:"/],
  ['an http DATABASE_URL', { DATABASE_URL: `http://site:${SECRET}@db.example/site` }, /^Invalid configuration: DATABASE_URL: .+ the scheme "http:" is not supported/],
  ['a SQLite file in a missing directory', { DATABASE_URL: join(missingDir, 'site.db') }, /^Invalid configuration: DATABASE_URL: the directory .+missing does not exist/],
  ['a SQLite file under /proc', { DATABASE_URL: '/proc/site.db' }, /^Invalid configuration: DATABASE_URL: cannot create or write \/proc\/site\.db/],
  ['a non-Redis REDIS_URL', { REDIS_URL: `http://:${SECRET}@redis.example:6379` }, /^Invalid configuration: REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL \(got "http:\/\/:\*\*\*@redis\.example:6379\/"\)/],
  ['credentials in LLM_BASE_URL', { LLM_BASE_URL: `https://bot:${SECRET}@llm.example/v1`, LLM_MODEL: 'm' }, /^Invalid configuration: LLM_BASE_URL: must not carry credentials .+ LLM_API_KEY/],
  ['a plain-http remote LLM_BASE_URL', { LLM_BASE_URL: 'http://llm.example/v1', LLM_MODEL: 'm', LLM_API_KEY: SECRET }, /^Invalid configuration: LLM_BASE_URL: must be https unless the host is loopback/],
  ['an API key without LLM_BASE_URL', { LLM_MODEL: 'm', LLM_API_KEY: SECRET }, /^Invalid configuration: LLM_BASE_URL and LLM_MODEL: set both/],
  ['a webhook secret without its whsec_ prefix', { CONTACT_WEBHOOK_SECRET: SECRET }, /^Invalid configuration: CONTACT_WEBHOOK_SECRET: must be whsec_ followed by standard base64/],
  ['a webhook secret under 24 bytes', { CONTACT_WEBHOOK_SECRET: `whsec_${Buffer.from(SECRET).toString('base64')}` }, /^Invalid configuration: CONTACT_WEBHOOK_SECRET: must decode to 24-64 bytes/],
  ['a retention of 0 days', { CONTACT_RETENTION_DAYS: '0' }, /^Invalid configuration: CONTACT_RETENTION_DAYS: must be greater than 0/],
  ['credentials in CONTACT_WEBHOOK_URL', { CONTACT_WEBHOOK_URL: `https://hook:${SECRET}@hooks.example/in` }, /^Invalid configuration: CONTACT_WEBHOOK_URL: must not carry credentials/],
  // Refused at every delivery before; now at start, quoting the host but never the secret path.
  ['a loopback CONTACT_WEBHOOK_URL without CONTACT_WEBHOOK_ALLOW_PRIVATE', { CONTACT_WEBHOOK_URL: `http://127.0.0.1:9/hook/${SECRET}` }, /^Invalid configuration: CONTACT_WEBHOOK_URL: 127\.0\.0\.1 is a loopback address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose\./],
  ['a private CONTACT_WEBHOOK_URL without CONTACT_WEBHOOK_ALLOW_PRIVATE', { CONTACT_WEBHOOK_URL: `https://10.1.2.3/in?token=${SECRET}` }, /^Invalid configuration: CONTACT_WEBHOOK_URL: 10\.1\.2\.3 is a private address/],
];

describe.concurrent('a wrong setting', () => {
  it.each(cases)('exits 78 with one line on stderr for %s, printing no secret', async (_name, env, line) => {
    const run = await runToExit(env);
    expect(run.code).toBe(78);
    expect(linesOf(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(line);
    expect(run.stderr).toMatch(/See docs\/operators\.md, section "Configuration"\.\n$/);
    expect(run.stdout).toBe('');
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it('under /proc/x fails at once instead of spinning in a recursive mkdir', async () => {
    // Before the check, Node's mkdirSync(recursive) looped on this path at full CPU and never
    // exited. The limit is a safety net for a loaded machine; the check itself takes milliseconds.
    const run = await runToExit({ DATABASE_URL: '/proc/x/site.db' }, { limitMs: 90_000 });
    expect(run.code).toBe(78);
    expect(linesOf(run.stderr)).toEqual([expect.stringMatching(/^Invalid configuration: DATABASE_URL: the directory \/proc\/x does not exist/)]);
  });
});
