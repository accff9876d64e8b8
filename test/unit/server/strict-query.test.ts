import { describe, expect, it } from 'vitest';
import { DATE_RANGE_PARAMETERS } from '../../../src/features/stats/date-range.ts';
import { unknownParametersError } from '../../../src/lib/query-params.ts';
import { PATHS } from '../../../src/lib/paths.ts';
import { parseRequestTarget } from '../../../src/server/request-target.ts';
import { routeOf } from '../../../src/server/routes.ts';
import { readStrictQuery } from '../../../src/server/strict-query.ts';

const data = routeOf(PATHS.data);
/** The refusal a data query gets from the route, as "status code: message". */
function refusal(query: string): string | undefined {
  const url = parseRequestTarget(`${PATHS.data}?${query}`)!;
  const { unknown } = readStrictQuery(data, url);
  if (unknown === undefined) return undefined;
  const error = unknownParametersError(url.pathname, unknown, data.query);
  return `${error.status} ${error.code}: ${error.detail}`;
}

describe("a strict route's query", () => {
  it('takes the parameter names from the endpoint\'s schema', () => {
    expect(data.query).toBe(DATE_RANGE_PARAMETERS);
    expect(data.query).toEqual(['startDate', 'endDate']);
  });

  it('refuses parameters the spec does not define, naming them', () => {
    expect(refusal('startDate=2026-03-01&endDate=2026-03-02&startdate=bad')).toMatchInlineSnapshot(`"400 SVC1005: unknown parameter "startdate": only startDate and endDate are accepted"`);
    expect(refusal(`startDate=2026-03-01&endDate=2026-03-02&a=1&b=2&c=3&${'j'.repeat(12_000)}=4`)).toMatchInlineSnapshot(
      `"400 SVC1005: unknown parameters "a", "b", "c" and 1 more: only startDate and endDate are accepted"`,
    );
    expect(refusal('startDate=2026-03-01&endDate=2026-03-02')).toBeUndefined();
  });
});
