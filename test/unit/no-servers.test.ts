/**
 * `npm run test:unit` needs no servers and no build (README "Scripts"): the `unit` project of
 * vitest.config.ts has no global setup, so a run of unit files starts no PostgreSQL, no Redis and
 * no `astro build`, and no unit test reaches for the helpers that would need them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

describe('the unit tests', () => {
  it('run without the servers of test/global-setup.ts, which provides their URLs to the other tests only', () => {
    expect(inject('pgAdminUrl')).toBeUndefined();
    expect(inject('redisUrl')).toBeUndefined();
  });

  it('import none of the helpers that need a database server or the built site', () => {
    const files = readdirSync(import.meta.dirname, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const needing = files.filter((file) => /from '[./]*helpers\/(postgres|redis|server|stats-server|browser)\.ts'/.test(readFileSync(join(import.meta.dirname, file), 'utf8')));
    expect(needing).toEqual([]);
  });
});
