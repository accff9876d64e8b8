/**
 * Whatever a client throws at `POST /api/contact`, the handler answers with one of the statuses
 * the interface allows for bad input (200, 400, 413, 415), a well-formed body, and never a 5xx;
 * and it keeps answering afterwards. Runs against real databases on both engines.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, contactLike } from '../../../helpers/contact-arbitraries.ts';
import { callContact, ENGINES, contactRequest, countRows, json, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';

const body = fc.oneof(
  { weight: 4, arbitrary: contactLike.map((value) => json(value)) },
  { weight: 2, arbitrary: anyValue.map((value) => json(value)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  // A valid form padded with whitespace to around the 32 KiB limit, on both sides of it.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 32 * 1024 - 300, max: 32 * 1024 + 300 }).map((n) => json(validPayload).padEnd(n, ' ')),
  },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/problem+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'json',
  '',
);

const ALLOWED = [200, 400, 413, 415];

describe.each(ENGINES)('POST /api/contact under arbitrary input on %s', (engine) => {
  const suite = useTestDb(engine);

  it('answers only 200, 400, 413 or 415 with a well-formed body, never a 5xx, and keeps answering', async () => {
    let successes = 0;
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        const response = await callContact(contactRequest(payload, type ? { 'content-type': type } : {}), suite.services);
        expect(ALLOWED).toContain(response.status);
        seen.add(response.status);
        const parsed = (await response.json()) as Record<string, unknown>;
        if (response.status === 200) {
          successes += 1;
          expect(parsed).toEqual({ success: true });
        } else {
          expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
          expect(parsed).toMatchObject({ status: response.status, code: expect.any(String), title: expect.any(String) });
        }
      }),
      { numRuns: 300 },
    );
    // The generators reach every outcome (each one's chance of not appearing is about 1e-6).
    expect([...seen].sort()).toEqual(ALLOWED);
    // Every stored row was answered 200 (bots were answered 200 without a row).
    expect(await countRows(suite.db.handle)).toBeLessThanOrEqual(successes);
    const after = await callContact(contactRequest(json(validPayload)), suite.services);
    expect(after.status).toBe(200);
  });
});
