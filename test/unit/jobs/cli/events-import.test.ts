/** What events:import suggests after an import (jobs/cli/events-import.ts): only days stats:materialize accepts. */
import { describe, expect, it } from 'vitest';
import { materializeAdvice } from '../../../../jobs/cli/events-import.ts';

const NOW = Date.parse('2026-05-20T09:30:00Z');
const at = (iso: string) => Date.parse(iso);

describe('the advice after an import', () => {
  it('suggests the whole span when every day of it is complete', () => {
    expect(materializeAdvice({ first: at('2026-03-01T10:00:00Z'), last: at('2026-05-19T23:59:59Z') }, NOW)).toMatchInlineSnapshot(`
      "Events fall on 2026-03-01 to 2026-05-19 (UTC). The nightly job re-materializes only the last three complete days; for older days run:
        npm run stats:materialize -- --from 2026-03-01 --to 2026-05-19
      "
    `);
  });

  it('stops the suggested range at yesterday when events fall on today or later, which stats:materialize refuses', () => {
    expect(materializeAdvice({ first: at('2026-05-18T10:00:00Z'), last: at('2026-05-20T08:00:00Z') }, NOW)).toMatchInlineSnapshot(`
      "Events fall on 2026-05-18 to 2026-05-20 (UTC). Days from today (2026-05-20) on are materialized by the nightly job once complete; it re-materializes only the last three complete days, so for older days run:
        npm run stats:materialize -- --from 2026-05-18 --to 2026-05-19
      "
    `);
    expect(materializeAdvice({ first: at('2026-05-19T00:00:00Z'), last: at('2026-06-02T00:00:00Z') }, NOW)).toContain('--from 2026-05-19 --to 2026-05-19\n');
  });

  it('suggests no command when no day of the span is complete yet', () => {
    expect(materializeAdvice({ first: at('2026-05-20T00:00:00Z'), last: at('2026-05-20T09:00:00Z') }, NOW)).toBe(
      'Events fall on 2026-05-20 to 2026-05-20 (UTC). None of these days is complete yet: the nightly job materializes each once it is over.\n',
    );
  });
});
