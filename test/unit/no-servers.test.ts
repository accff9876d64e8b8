/**
 * `npm run test:unit` needs no servers and no build (README "Scripts"): the `unit` project of
 * vitest.config.ts has no global setup, so a run of unit files starts no PostgreSQL, no Redis and
 * no `astro build`, and no unit test reaches for the helpers that would need them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const TEST = resolve(import.meta.dirname, '..');
const NEEDS_SERVERS = /from '[./]*helpers\/(postgres|redis|server|stats-server|browser)\.ts'/;

/**
 * The unit tests and every helper of test/helpers they reach through relative imports, as paths
 * under test/: the harnesses they share with the other kinds live there, not beside them.
 */
function unitFilesAndHelpers(): string[] {
  const seen = new Set(readdirSync(import.meta.dirname, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).map((file) => join('unit', file)));
  for (const file of seen) {
    for (const [, specifier] of readFileSync(join(TEST, file), 'utf8').matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)) {
      const target = relative(TEST, resolve(TEST, dirname(file), specifier!));
      if (target.startsWith('helpers/')) seen.add(target);
    }
  }
  return [...seen];
}

describe('the unit tests', () => {
  it('run without the servers of test/global-setup.ts, which provides their URLs to the other tests only', () => {
    expect(inject('pgAdminUrl')).toBeUndefined();
    expect(inject('redisUrl')).toBeUndefined();
  });

  it('import none of the helpers that need a database server or the built site, themselves or through a shared helper', () => {
    const files = unitFilesAndHelpers();
    expect(files).toContain('helpers/chat-harness.ts');
    expect(files.filter((file) => NEEDS_SERVERS.test(readFileSync(join(TEST, file), 'utf8')))).toEqual([]);
  });
});
