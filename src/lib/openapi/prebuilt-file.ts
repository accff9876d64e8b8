/**
 * The operation of a file built at deploy time and served by the edge from memory (news list,
 * sellers.json, this document): GET and HEAD with an ETag and 304, 405 for any other method.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import type { Window } from '../rate-class.ts';
import type { OperationHead } from './api-context.ts';
import { codeSamples } from './code-samples.ts';
import { ConditionalRequestHeaders, siteRateLimitHeaders } from './headers.ts';
import { cachedRead, errorResponses, methodNotAllowed, siteRateLimited, type ReadBody } from './responses.ts';

export interface PrebuiltFileSpec extends OperationHead {
  pathname: string;
  siteUrl: string;
  body: ReadBody;
  /** The site windows that limit the path; absent when it is not rate limited. */
  windows?: readonly Window[];
}

export function prebuiltFileOperation(spec: PrebuiltFileSpec): ZodOpenApiOperationObject {
  const headers = spec.windows ? siteRateLimitHeaders(spec.windows) : z.object({});
  // The wording of the edge's refusal (src/server/http.ts), which features may not import.
  const refusal = { detail: `${spec.pathname} only answers GET and HEAD.` };
  return {
    operationId: spec.operationId,
    tags: spec.tags,
    summary: spec.summary,
    description: spec.description,
    requestParams: { header: ConditionalRequestHeaders },
    responses: {
      ...cachedRead(headers, spec.body),
      ...errorResponses('site', spec.pathname, headers, {
        405: methodNotAllowed(spec.pathname, 'GET, HEAD', headers, refusal),
        ...(spec.windows ? { 429: siteRateLimited(spec.windows, spec.pathname) } : {}),
      }),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url: `${spec.siteUrl}${spec.pathname}` }),
  };
}
