/**
 * Sign-in attempts are rate-limited: the console's passkey endpoints spend the `sign-in` class
 * (RATE_LIMIT_SIGN_IN_HOUR per client, a token bucket), refused with 429 and Retry-After before
 * the endpoint runs; the site's other routes are untouched by it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../src/lib/paths.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_SIGN_IN_HOUR: '3' });
});

afterAll(async () => {
  await server?.stop();
});

describe('sign-in rate limit', () => {
  it('refuses the fourth passkey request of the hour with 429, whatever the endpoint', async () => {
    const post = (path: string) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: '{}' });
    const statuses = [];
    for (const path of [PATHS.consoleSignInOptions, PATHS.consoleSignIn, PATHS.consoleEnrolOptions, PATHS.consoleEnrol, PATHS.consoleSignInOptions]) {
      const answer = await post(path);
      await answer.arrayBuffer();
      statuses.push([answer.status, answer.headers.get('retry-after') !== null]);
    }
    // Without the page's CSRF token the first three are refused by the endpoint (403); then the limit.
    expect(statuses).toEqual([
      [403, false],
      [403, false],
      [403, false],
      [429, true],
      [429, true],
    ]);
    const page = await fetch(`${server.url}/admin/`);
    expect(page.status).toBe(200);
  });
});
