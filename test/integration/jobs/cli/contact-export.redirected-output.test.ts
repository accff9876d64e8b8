/**
 * Command lines of the guides that write a file, run exactly as written through a shell: with
 * `npm run -s` the file holds the data alone. Plain `npm run` prints its banner (`> adtech-site@…
 * contact:export` and the command) on stdout, so the redirected file would start with it and the
 * BOM would land after it, where no spreadsheet looks for one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayOfInstant, formatDay } from '../../../../src/lib/calendar.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';
import { useStatsServers } from '../../../helpers/stats-server.ts';

const { boot } = useStatsServers({ days: 20, seed: 11 });

/** `sh -c LINE` in the checkout, in a fresh folder as $OUT; the bytes of $OUT/FILE afterwards. */
function shell(line: string, file: string, env: Record<string, string> = {}): { status: number | null; stderr: string; bytes: Buffer } {
  const out = mkdtempSync(join(tmpdir(), 'redirected-'));
  const result = spawnSync('sh', ['-c', line.replace(`> ${file}`, `> "$OUT/${file}"`)], { encoding: 'utf8', env: { ...process.env, ...env, OUT: out } });
  return { status: result.status, stderr: result.stderr, bytes: readFileSync(join(out, file)) };
}

describe('output redirected to a file', () => {
  it('`npm run -s contact:export -- --bom > contacts.csv` starts with the BOM and the CSV header, no npm banner', () => {
    const run = shell('npm run -s contact:export -- --bom > contacts.csv', 'contacts.csv', { DATABASE_URL: tempSqliteUrl() });
    expect(run.status).toBe(0);
    expect(run.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(run.bytes.subarray(3).toString('utf8')).toMatch(/^id,submitted_at,name,[^\n]*\r?\n$/);
  });

  it('`npm run contact:export` without -s puts the banner first: why the documents say -s', () => {
    const run = shell('npm run contact:export -- --bom > contacts.csv', 'contacts.csv', { DATABASE_URL: tempSqliteUrl() });
    expect(run.bytes.toString('utf8')).toMatch(/^\n> adtech-site@[^\n]* contact:export\n/);
  });

  it('`npm run -s data:fetch -- --from D --to D > 2025.csv` writes the CSV alone', async () => {
    const server = await boot();
    const day = formatDay(dayOfInstant(Date.now()) - 5);
    const run = shell(`npm run -s data:fetch -- --from ${day} --to ${day} --base-url ${server.url} > 2025.csv`, '2025.csv');
    expect(run.status).toBe(0);
    expect(run.bytes.toString('utf8')).toMatch(new RegExp(`^date,txn_count,impr_count,service_revenue\\n${day},\\d+,\\d+,\\d+\\.\\d\\d\\n$`));
  });
});
