/**
 * The contract check itself: it must refuse what the document does not promise, or the contract
 * tests would pass whatever the server sends.
 */
import { describe, expect, it } from 'vitest';
import { expectToMatchContract } from '../helpers/contract.ts';

const SITE_LIMITS = { 'RateLimit-Limit': '300', 'RateLimit-Remaining': '299', 'RateLimit-Reset': '1', 'RateLimit-Policy': '300;w=60' };
const DATA_LIMITS = { 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': '1785600060', 'X-Daily-Quota-Remaining': '4999' };
const NEWS = [{ id: 'a-b', heading: 'Heading', subheading: null, imageUrl: null, link: null, createdAt: '2026-08-04T16:00:00Z' }];

function news(body: unknown = NEWS, headers: Record<string, string> = {}, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      ...SITE_LIMITS,
      'content-type': 'application/json; charset=utf-8',
      etag: '"abc"',
      'cache-control': 'public, max-age=60',
      'access-control-allow-origin': '*',
      ...headers,
    },
  });
}

describe('expectToMatchContract', () => {
  it('accepts a response the document promises and hands back its parsed body', async () => {
    const check = await expectToMatchContract('GET', '/api/news', news());
    expect(check).toMatchObject({ operationId: 'listNews', status: 200, body: NEWS });
  });

  it('refuses a status the operation does not document', async () => {
    await expect(expectToMatchContract('GET', '/api/news', news(NEWS, {}, 201))).rejects.toThrow(/status 201 is not documented for listNews/);
  });

  it('refuses a missing required header, and a header of the wrong type', async () => {
    const missing = news();
    missing.headers.delete('RateLimit-Remaining');
    await expect(expectToMatchContract('GET', '/api/news', missing)).rejects.toThrow(/header RateLimit-Remaining is required but missing/);
    await expect(expectToMatchContract('GET', '/api/news', news(NEWS, { 'RateLimit-Reset': 'soon' }))).rejects.toThrow(/header RateLimit-Reset: "soon"/);
  });

  it('refuses an undocumented content type and a body that breaks the schema', async () => {
    await expect(expectToMatchContract('GET', '/api/news', news(NEWS, { 'content-type': 'text/html' }))).rejects.toThrow(/content type "text\/html" is not one of/);
    await expect(expectToMatchContract('GET', '/api/news', news([{ ...NEWS[0], body: 'the article text' }]))).rejects.toThrow(/must NOT have additional properties/);
    await expect(expectToMatchContract('GET', '/api/news', news([{ ...NEWS[0], createdAt: 'yesterday' }]))).rejects.toThrow(/createdAt/);
  });

  it('holds each error status to its own codes and shapes', async () => {
    const data = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { ...DATA_LIMITS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
    await expect(expectToMatchContract('GET', '/api/v1/public/data?startDate=x', data(400, { code: 'SVC1005', message: 'startDate must be a date' }))).resolves.toMatchObject({ status: 400 });
    await expect(expectToMatchContract('GET', '/api/v1/public/data', data(400, { code: 'SVC1010', message: 'wrong code' }))).rejects.toThrow(/body\/code must be equal to constant/);
    await expect(expectToMatchContract('GET', '/api/v1/public/data', data(400, { code: 'SVC1005', message: 'm', extra: 1 }))).rejects.toThrow(/additional properties/);
  });

  it('accepts a bodiless 304 with its validators, and refuses an operation the document lacks', async () => {
    const notModified = new Response(null, { status: 304, headers: { ...SITE_LIMITS, etag: '"abc"', 'cache-control': 'public, max-age=60' } });
    await expect(expectToMatchContract('GET', '/api/news', notModified)).resolves.toMatchObject({ status: 304, text: '' });
    await expect(expectToMatchContract('DELETE', '/api/news', news())).rejects.toThrow(/no operation DELETE \/api\/news/);
  });
});
