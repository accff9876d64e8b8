/**
 * docs/interface.md section 5 against the one error catalog: every code the tables name is in the
 * catalog with the status the table gives it, and every code of the catalog is in a table.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DATA_ERRORS, ERROR_CATALOG, SITE_PROBLEMS } from '../../../src/lib/error-catalog.ts';
import { HttpError } from '../../../src/lib/http-error.ts';

const doc = readFileSync(new URL('../../../docs/interface.md', import.meta.url), 'utf8');

/** The `| Status | code | When |` rows of the tables in section 5, as code -> status. */
function documentedCodes(): Map<string, number> {
  const section = doc.slice(doc.indexOf('## 5. Errors'), doc.indexOf('## 6.'));
  const codes = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = /^\| ([\d, ]+) \| ([^|]+) \|/.exec(line);
    if (!cells) continue;
    const statuses = cells[1]!.split(',').map((s) => Number(s.trim()));
    const names = [...cells[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    // One status for every code of the row, or one status per code, in order.
    expect(statuses.length === 1 || statuses.length === names.length, line).toBe(true);
    names.forEach((name, i) => codes.set(name, statuses.length === 1 ? statuses[0]! : statuses[i]!));
  }
  return codes;
}

describe('the error catalog', () => {
  it('is the table of docs/interface.md section 5, code for code and status for status', () => {
    const documented = documentedCodes();
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, entry]) => [code, entry.status])));
  });

  it('gives each error raised by name its status, title and default resolution', () => {
    for (const [code, entry] of Object.entries({ ...SITE_PROBLEMS, ...DATA_ERRORS })) {
      const error = new HttpError(code as keyof typeof ERROR_CATALOG);
      expect({ status: error.status, title: error.title, resolution: error.resolution }).toEqual(entry);
    }
    expect(new HttpError('not_found', { resolution: 'Look elsewhere.' }).resolution).toBe('Look elsewhere.');
  });
});
