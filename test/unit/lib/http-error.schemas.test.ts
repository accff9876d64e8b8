/**
 * The Problem and DataError schemas describe what `renderError` really writes, for every code,
 * so the document's error bodies and the one renderer cannot disagree.
 */
import { describe, expect, it } from 'vitest';
import { DATA_ERROR_CODES, DataError, HttpError, Problem, renderError, SITE_PROBLEM_CODES } from '../../../src/lib/http-error.ts';

describe('the error body schemas', () => {
  it('accept the problem renderError writes for every site code, with and without extensions', () => {
    for (const code of SITE_PROBLEM_CODES) {
      for (const init of [{}, { detail: 'What went wrong.', resolution: 'What to do.', extensions: { errors: [{ path: 'messages', message: 'must not be empty' }] } }]) {
        const rendered = renderError(new HttpError(code, init), '/api/chat');
        expect(rendered.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        const parsed = Problem.safeParse(JSON.parse(rendered.body));
        expect(parsed.success, `${code}: ${parsed.error?.message}`).toBe(true);
      }
    }
  });

  it('accept the {code, message} renderError writes on the data interface, and nothing more', () => {
    for (const code of [...DATA_ERROR_CODES, 'method_not_allowed'] as const) {
      const body = JSON.parse(renderError(new HttpError(code, { detail: 'why' }), '/api/v1/public/data').body) as unknown;
      expect(DataError.parse(body)).toEqual(body);
      expect(Object.keys(body as object).sort()).toEqual(['code', 'message']);
    }
  });

  it('refuse a problem without the fields the spec requires', () => {
    expect(Problem.safeParse({ type: 'about:blank', title: 'Invalid request', status: 400 }).success).toBe(false);
    expect(Problem.safeParse({ title: 'Invalid request', status: 400, code: 'no_such_code' }).success).toBe(false);
  });
});
