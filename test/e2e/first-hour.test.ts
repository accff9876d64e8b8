/**
 * The documented commands, as a newcomer copies them: every command of the ```sh blocks of
 * README.md and of the guides in docs/ runs as written on a fresh clone of HEAD, each documented
 * result is checked, and every relative link between those documents resolves, all by
 * scripts/first-hour.ts (`npm run first-hour` runs it alone). It tests what is committed.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pgAdminUrl } from '../helpers/postgres.ts';

/** The run's PostgreSQL as libpq's variables, which the guide's psql and DATABASE_URL commands read. */
function libpqEnv(): NodeJS.ProcessEnv {
  const url = new URL(pgAdminUrl());
  return { PGHOST: url.hostname, PGPORT: url.port || '5432', PGUSER: decodeURIComponent(url.username), PGDATABASE: url.pathname.slice(1) || 'postgres', ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) };
}

describe("the README's and the guides' commands", () => {
  // A fresh clone's npm ci, build and 400-day seed take about 4 minutes on an idle 2-core machine
  // and over 8 with the machine loaded (load average 20): the limit only guards against a hang.
  it('all behave as the documents say on a fresh clone, and their links resolve', { timeout: 1_500_000 }, () => {
    const run = spawnSync(process.execPath, ['scripts/first-hour.ts'], { encoding: 'utf8', timeout: 1_490_000, env: { ...process.env, ...libpqEnv() } });
    const lines = run.stdout.split('\n').filter((line) => /^(ok|FAIL|\?\?)\s/.test(line));
    // Every command was judged, and none failed or lacks an expectation.
    expect(lines.length).toBeGreaterThanOrEqual(23);
    expect(lines.filter((line) => !line.startsWith('ok')), run.stdout + run.stderr).toEqual([]);
    for (const file of ['README.md', 'docs/operators.md', 'docs/integrators.md', 'docs/editors.md']) expect(lines.some((line) => line.startsWith(`ok   ${file}:`)), file).toBe(true);
    expect(lines.some((line) => /^ok {3}\d+ relative links between README\.md, docs\//.test(line)), run.stdout).toBe(true);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });
});
