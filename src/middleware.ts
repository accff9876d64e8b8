/**
 * The last line of defence for routes rendered per request: an exception a route did not turn
 * into an HttpError becomes an opaque 500 in the interface's error format (RFC 9457 problem or
 * `{code, message}`), logged with the request id, never a stack in the body. At build time
 * (prerendering) errors propagate, so a broken page fails the build instead.
 */
import { defineMiddleware } from 'astro:middleware';
import { errorResponse, toHttpError } from './lib/http-error.ts';

export const onRequest = defineMiddleware(async (context, next) => {
  if (context.isPrerendered) return next();
  try {
    return await next();
  } catch (error) {
    const httpError = toHttpError(error);
    if (httpError.status >= 500) {
      // The edge (and `astro dev`, src/app/dev-integration.ts) hands every request its services;
      // should one ever arrive without them, the error still reaches stderr: no silent 500.
      const log = context.locals.services?.log;
      if (log) log.error({ reqId: context.locals.requestId, path: context.url.pathname, err: error }, 'unhandled error in route');
      else console.error(`unhandled error in route ${context.url.pathname}:`, error);
    }
    return errorResponse(httpError, context.url.pathname);
  }
});
