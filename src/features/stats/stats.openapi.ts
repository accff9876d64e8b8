/**
 * `getDailyStats` (GET `PATHS.data`) for the OpenAPI document: the query is the
 * DataQuery schema the handler validates with, the body the DataResponse it writes, and the
 * refusals are what `parseDateRange` throws.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { describeWindows, type ApiContext } from '../../lib/openapi/api-context.ts';
import { codeSamples } from '../../lib/openapi/code-samples.ts';
import { problemExample, thrownBody } from '../../lib/openapi/examples.ts';
import { ConditionalRequestHeaders, dataRateLimitHeaders, dataRefusedHeaders } from '../../lib/openapi/headers.ts';
import { cachedRead, dataUnauthorized, errorResponses, methodNotAllowed } from '../../lib/openapi/responses.ts';
import { PATHS } from '../../lib/paths.ts';
import { DataResponse } from './data-record.ts';
import { DataQuery, MAX_RANGE_DAYS, parseDateRange } from './date-range.ts';
import { MISSING_DAYS_PATTERN } from './settled.ts';

export const dataExample: DataResponse = {
  status: 'Success',
  data: [
    { date: '2026-07-01', txn_count: 74, impr_count: 2398, service_revenue: 2519.64 },
    { date: '2026-07-02', txn_count: 69, impr_count: 2431, service_revenue: 2204.1 },
  ],
};

/** Which days of a community data response are final (settled.ts): on every 200 and 304 of Get Data. */
const DataSettlementHeaders = z.object({
  'X-Data-Settled-Through': z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .meta({
      description:
        'The last settled UTC day, YYYY-MM-DD: no scheduled materialization rewrites it or any earlier day (the nightly run rewrites only the last three complete days), so the records of these days may be kept; revalidate them with If-None-Match, since an operator may still restate one (the ETag then changes). Moves at 00:00 UTC.',
      examples: ['2026-07-27'],
    }),
  'X-Data-Missing-Days': z
    .string()
    .regex(MISSING_DAYS_PATTERN)
    .optional()
    .meta({
      description:
        'The requested days without a record (not materialized yet: today, the future, days before the first event, a pending backfill), as runs `first/last` or single days, comma-separated (ISO 8601 interval notation, both ends included). Absent when every requested day has a record. Such days may appear later: ask for them again.',
      examples: ['2026-07-29/2026-07-31'],
    }),
});

const at = PATHS.data;
const refusal = (query: string) => thrownBody(() => parseDateRange(new URLSearchParams(query)), at);

export function getDailyStats(context: ApiContext): ZodOpenApiOperationObject {
  const headers = dataRateLimitHeaders(context.policies.data);
  return {
    operationId: 'getDailyStats',
    tags: ['Community data'],
    summary: 'Get Data: daily statistics for a date range',
    description:
      `One record per day of the range with transaction count, impression count and revenue. Both dates are required, YYYY-MM-DD (UTC days), endDate not before startDate, at most ${MAX_RANGE_DAYS} days counting both ends. ` +
      'Days not materialized yet (today, the future) are absent from `data` and listed in X-Data-Missing-Days; X-Data-Settled-Through names the last day whose record is final (no scheduled run rewrites it; ask again for later ones). An operator may still restate a final day (a late import, a correction): the ETag, a digest of the body, then changes, so revalidate kept copies with If-None-Match to pick up new figures. No credentials are needed; an integrator with an API key sends it as `Authorization: Bearer adk_...` and gets the key\'s own quotas (reported in the same headers).\n\n' +
      `Limits (defaults): ${describeWindows(context.policies.data)} per client. Watch X-RateLimit-Remaining and X-Daily-Quota-Remaining, back off exponentially after a 429, and cache responses: ranges of settled days may be reused for a day (see Cache-Control) and revalidated with If-None-Match: a 304 Not Modified does not spend the daily quota (the minute window still counts it).`,
    // Anonymous or with a key: both are accepted (OpenAPI 3.1 section 4.8.10, `{}` makes security optional).
    security: [{}, { apiKey: [] }],
    requestParams: { query: DataQuery, header: ConditionalRequestHeaders },
    responses: {
      ...cachedRead(headers.extend(DataSettlementHeaders.shape), { description: 'The records of the range, ascending by date.', schema: DataResponse, example: dataExample }),
      ...errorResponses('data', at, headers, {
        400: {
          description: 'Bad Request (SVC1005): a parameter is missing or invalid; the message names the rule.',
          examples: {
            tooLong: { summary: 'More than 31 days', value: refusal('startDate=2026-07-01&endDate=2026-08-15') },
            reversed: { summary: 'endDate before startDate', value: refusal('startDate=2026-07-31&endDate=2026-07-01') },
            malformed: { summary: 'Not YYYY-MM-DD', value: refusal('startDate=01/07/2026&endDate=2026-07-31') },
            missing: { summary: 'A date missing', value: refusal('startDate=2026-07-01') },
          },
        },
        401: dataUnauthorized(at, headers),
        405: methodNotAllowed(at, 'GET, HEAD', headers),
        429: {
          description: 'Too Many Requests (SVC1010): the rate limit or the daily quota is exceeded. Wait Retry-After seconds.',
          examples: {
            minute: {
              summary: 'Too many requests this minute',
              value: problemExample(at, 'SVC1010', { detail: 'rate limit exceeded: too many requests in a given amount of time; retry after 42 seconds' }),
            },
            day: {
              summary: 'Daily quota spent',
              value: problemExample(at, 'SVC1010', { detail: 'rate limit exceeded: the daily quota is spent; it resets at 00:00 UTC, in 3600 seconds' }),
            },
          },
          headers: dataRefusedHeaders(context.policies.data),
        },
        503: {
          description:
            'Service Unavailable (service_unavailable): the statistics database did not answer within 4 s, or an API key could not be checked within 1 s (then without rate-limit fields). Wait Retry-After seconds.',
          examples: {
            database: { summary: 'Database unavailable', value: problemExample(at, 'service_unavailable', { detail: 'The statistics database is unavailable just now.' }) },
          },
          headers: headers.partial().extend({
            'Retry-After': z.string().meta({ description: 'Seconds to wait before retrying (RFC 9110 section 10.2.3).', examples: ['5'] }),
          }),
        },
      }),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url: `${context.dataUrl}${at}?startDate=2026-07-01&endDate=2026-07-31`, includeHeaders: true }),
  };
}
