import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createEdgeLimiter } from '../../../src/app/edge-limiter.ts';

const NOON = Date.UTC(2026, 0, 1, 12);
const log = pino({ level: 'silent' });

describe('the edge limiter on the data interface', () => {
  it('gives a 304 its day unit back, in the store and in the headers it then sends', async () => {
    const limiter = createEdgeLimiter(loadConfig({ RATE_LIMIT_DATA_DAY: '10', RATE_LIMIT_DATA_MINUTE: '60' }), log, { now: () => NOON });
    const first = await limiter.check('data', 'c', {});
    expect(first.headers['X-Daily-Quota-Remaining']).toBe('9');
    expect(first.onStatus?.(200)).toBeUndefined();

    const conditional = await limiter.check('data', 'c', {});
    expect(conditional.headers['X-Daily-Quota-Remaining']).toBe('8');
    const replaced = conditional.onStatus?.(304);
    expect(replaced).toMatchObject({ 'X-Daily-Quota-Remaining': '9', 'X-RateLimit-Remaining': '58' });
    await new Promise((r) => setImmediate(r));

    const third = await limiter.check('data', 'c', {});
    expect(third.headers).toMatchObject({ 'X-Daily-Quota-Remaining': '8', 'X-RateLimit-Remaining': '57' });
    await limiter.close();
  });

  it('recomputes the draft pair on a 304 too, when it is on', async () => {
    const limiter = createEdgeLimiter(loadConfig({ RATE_LIMIT_DRAFT_HEADERS: 'true' }), log, { now: () => NOON });
    const outcome = await limiter.check('data', 'c', {});
    expect(outcome.headers['RateLimit']).toBe('"data-minute";r=59;t=1, "data-day";r=4999;t=43200');
    expect(outcome.onStatus?.(304)?.['RateLimit']).toBe('"data-minute";r=59;t=1, "data-day";r=5000;t=43200');
    await limiter.close();
  });

  it('answers 401 to a malformed Authorization header and charges the address', async () => {
    const limiter = createEdgeLimiter(loadConfig({ RATE_LIMIT_DATA_DAY: '10' }), log, { now: () => NOON });
    const outcome = await limiter.check('data', 'c', { authorization: 'Basic dXNlcjpwYXNz' });
    expect(outcome.refused?.status).toBe(401);
    expect(outcome.refused?.headers).toEqual({ 'www-authenticate': 'Bearer realm="data", error="invalid_token"' });
    expect(outcome.refused?.detail).toMatchInlineSnapshot(`"The Authorization header does not carry an API key: it uses the Basic scheme, not Bearer. Send Authorization: Bearer <key>, where the key is adk_ and 43 base64url characters (A-Z, a-z, 0-9, - and _), 47 in all, or no Authorization header for anonymous limits."`);
    expect(outcome.headers['X-Daily-Quota-Remaining']).toBe('9');
    await limiter.close();
  });
});
