/**
 * The operations for operators and tooling: this document and the health probes the edge
 * answers itself (src/server/http.ts). Neither is rate limited; the probes answer any method.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { PATHS } from '../lib/paths.ts';
import type { ApiContext } from '../lib/openapi/api-context.ts';
import { prebuiltFileOperation } from '../lib/openapi/prebuilt-file.ts';
import { errorResponses } from '../lib/openapi/responses.ts';
import { API_VERSION } from './context.ts';

export function getOpenApiDocument(context: ApiContext): ZodOpenApiOperationObject {
  return prebuiltFileOperation({
    operationId: 'getOpenApiDocument',
    tags: ['Operations'],
    summary: 'Get this OpenAPI document',
    description: 'This description, OpenAPI 3.1, prebuilt with the site. Not rate limited.',
    pathname: PATHS.openapi,
    siteUrl: context.siteUrl,
    body: {
      description: 'The OpenAPI document.',
      schema: z
        .looseObject({ openapi: z.string().regex(/^3\.1\.\d+$/), info: z.looseObject({ version: z.literal(API_VERSION) }), paths: z.record(z.string(), z.unknown()) })
        .meta({ description: 'An OpenAPI 3.1 document.' }),
    },
  });
}

const probeHeaders = z.object({ 'Cache-Control': z.literal('no-store').meta({ description: 'Never cached.' }) });
const database = z.enum(['sqlite', 'postgres']).meta({ description: 'The database engine in use.' });

function probe(description: string, schema: z.ZodType, example: unknown): ZodOpenApiResponseObject {
  return { description, headers: probeHeaders, content: { 'application/json': { schema, example } } };
}

export function getLiveness(): ZodOpenApiOperationObject {
  return {
    operationId: 'getLiveness',
    tags: ['Operations'],
    summary: 'Liveness probe',
    description: 'Answers as long as the process serves requests; checks nothing else. Not rate limited.',
    responses: {
      '200': probe(
        'The process is alive.',
        z.object({ status: z.literal('ok'), uptimeSeconds: z.int().nonnegative().meta({ description: 'Seconds since the process started.' }) }),
        { status: 'ok', uptimeSeconds: 86_400 },
      ),
      ...errorResponses('site', PATHS.healthz, probeHeaders, {}),
    },
  };
}

export function getReadiness(): ZodOpenApiOperationObject {
  return {
    operationId: 'getReadiness',
    tags: ['Operations'],
    summary: 'Readiness probe',
    description: 'Ready when the database answers; route traffic elsewhere on 503. Not rate limited.',
    responses: {
      '200': probe('Ready: the database answers.', z.object({ status: z.literal('ready'), database }), { status: 'ready', database: 'sqlite' }),
      ...errorResponses('site', PATHS.readyz, probeHeaders, {}),
      // The reason is logged, not published: it can name hosts and paths.
      '503': probe('Not ready: the database does not answer.', z.object({ status: z.literal('unavailable'), database }), { status: 'unavailable', database: 'postgres' }),
    },
  };
}
