/** Reading problem answers (RFC 9457) in tests of the site's JSON interfaces. */
import { expect } from 'vitest';

/**
 * The members of a problem answer that set it apart from others, with its status. What every
 * problem shares is checked here, once: the media type application/problem+json in UTF-8,
 * `type: "about:blank"`, and a `status` member equal to the status of the response.
 */
export async function problemParts(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  const { type, status, ...parts } = (await response.json()) as Record<string, unknown>;
  expect({ type, status }).toEqual({ type: 'about:blank', status: response.status });
  return { status, ...parts };
}
