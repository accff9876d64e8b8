import { describe, expect, it } from 'vitest';
import { HttpError, renderError, toHttpError } from '../../../src/lib/http-error.ts';

describe('problem rendering', () => {
  it('renders site errors as RFC 9457 problem details with the spec fields', () => {
    const error = new HttpError('validation_failed', { detail: 'name is required', extensions: { errors: [{ field: 'name' }] }, headers: { 'x-a': '1' } });
    const { status, headers, body } = renderError(error, '/api/contact');
    expect(status).toBe(400);
    expect(headers).toEqual({ 'x-a': '1', 'content-type': 'application/problem+json; charset=utf-8', 'cache-control': 'no-store' });
    expect(JSON.parse(body)).toEqual({ type: 'about:blank', title: 'Invalid request', status: 400, code: 'validation_failed', detail: 'name is required', resolution: 'Correct what the detail names and send the request again.', errors: [{ field: 'name' }] });
  });

  it('renders data-interface errors as {code, message}', () => {
    const { body, headers } = renderError(new HttpError('SVC1005', { detail: 'endDate is before startDate' }), '/api/v1/public/data');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(body)).toEqual({ code: 'SVC1005', message: 'endDate is before startDate' });
  });

  it('turns unknown exceptions into an opaque 500 without internals', () => {
    const { status, body } = renderError(toHttpError(new Error('SELECT * FROM secret failed at /srv/app.ts:12')), '/api/news');
    expect(status).toBe(500);
    expect(body).not.toContain('secret');
    expect(JSON.parse(body)).toEqual({ type: 'about:blank', title: 'Internal server error', status: 500, code: 'internal_error', resolution: 'Try again later; if it persists, report the X-Request-Id.' });
  });
});
