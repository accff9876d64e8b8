/**
 * The passkey endpoints of the console, JSON in and out, called by passkey.client.ts:
 * `POST /admin/sign-in/options` and `/admin/sign-in/verify`, `POST /admin/enrol/options` and
 * `/admin/enrol/verify`. Each refuses a cross-site request and one without the pre-session CSRF
 * token (the sign-in and enrolment pages set it as a cookie and hold it in the page), spends the
 * `sign-in` rate class (the route table), and writes the outcome to the audit log. A verified
 * ceremony answers with the session cookie and where to go.
 */
import { z } from 'zod';
import type { Endpoint, PlainRequest, PlainResponse } from '../../lib/endpoint.ts';
import { HttpError, renderError, toHttpError } from '../../lib/http-error.ts';
import { parseJsonBody } from '../../lib/json-body.ts';
import { PATHS } from '../../lib/paths.ts';
import { audit } from './audit.server.ts';
import { nowOf, relyingParty, type ConsoleDeps } from './console-deps.ts';
import { cookieName, readCookie, setCookie } from './cookies.ts';
import { enrol, enrolmentOptions, signIn, signInOptions, type Refusal } from './passkeys.server.ts';
import { assertSameOrigin, assertToken } from './request-guard.ts';
import { createSession } from './sessions.server.ts';
import { operatorName } from './operators.server.ts';

export const CSRF_HEADER = 'x-csrf-token';
/** Bounded: a passkey answer is a few KiB (attestation "none"); the route's body limit says 64 KiB. */
const Invite = z.string().max(100);
const Credential = z.looseObject({ id: z.string().max(1400), rawId: z.string().max(1400), type: z.literal('public-key'), response: z.looseObject({}) });

function json(status: number, body: unknown, headers: Record<string, string> = {}): PlainResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }, body: JSON.stringify(body) };
}

/** (POST only: the route table's methods, answered by the edge.) Same-origin, and the page's CSRF token matching its cookie; then the JSON body. */
function admit(request: PlainRequest, deps: ConsoleDeps): Record<string, unknown> {
  const { origin, https } = relyingParty(deps.config);
  assertSameOrigin(request.headers, origin);
  assertToken(request.headers.get(CSRF_HEADER), readCookie(request.headers, cookieName('pre', https)));
  return parseJsonBody(request.body ?? new Uint8Array(0), request.headers, { subject: 'The request', example: '{"response": {...}}', shape: 'an object' });
}

function refused(refusal: Refusal): HttpError {
  return new HttpError('unauthorized', { detail: refusal.refused, headers: { 'cache-control': 'no-store' } });
}

/** A new session for the operator, as the cookie of a JSON answer that says where to go. */
async function signedIn(deps: ConsoleDeps, operatorId: number, now: number): Promise<PlainResponse> {
  const { token } = await createSession(deps.db.kysely, operatorId, now);
  const { https } = relyingParty(deps.config);
  // One Set-Cookie per answer (PlainResponse headers are single-valued); the pre-session cookie
  // is left to its own 10-minute Max-Age.
  return json(200, { redirect: `${PATHS.console}/` }, { 'set-cookie': setCookie('session', https, token) });
}

function ceremony(run: (body: Record<string, unknown>, deps: ConsoleDeps, now: number) => Promise<PlainResponse>): Endpoint<ConsoleDeps> {
  return async (request, deps) => {
    try {
      const body = admit(request, deps);
      return await run(body, deps, nowOf(deps));
    } catch (error) {
      const httpError = toHttpError(error);
      if (httpError.status >= 500) deps.log.error({ err: error, path: request.url.pathname }, 'console ceremony failed');
      return renderError(httpError, request.url.pathname);
    }
  };
}

function field<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError('validation_failed', { detail: `${name} is missing or malformed.` });
  return parsed.data;
}

export const signInOptionsEndpoint = ceremony(async (_body, deps, now) => json(200, await signInOptions(deps.db, deps.config, now)));

export const signInEndpoint = ceremony(async (body, deps, now) => {
  const response = field(Credential, body['response'], 'response') as never;
  const outcome = await signIn(deps.db, deps.config, response, now);
  if ('refused' in outcome) {
    await audit(deps.db.kysely, { at: now, actor: 'unknown', action: 'sign-in refused', detail: outcome.refused });
    throw refused(outcome);
  }
  await audit(deps.db.kysely, { at: now, actor: (await operatorName(deps.db.kysely, outcome.operatorId)) ?? 'unknown', action: 'signed in' });
  return signedIn(deps, outcome.operatorId, now);
});

export const enrolOptionsEndpoint = ceremony(async (body, deps, now) => {
  const options = await enrolmentOptions(deps.db, deps.config, field(Invite, body['invite'], 'invite'), now);
  if ('refused' in options) throw refused(options);
  return json(200, options);
});

export const enrolEndpoint = ceremony(async (body, deps, now) => {
  const invite = field(Invite, body['invite'], 'invite');
  const outcome = await enrol(deps.db, deps.config, invite, field(Credential, body['response'], 'response') as never, now);
  if ('refused' in outcome) {
    await audit(deps.db.kysely, { at: now, actor: 'unknown', action: 'enrolment refused', detail: outcome.refused });
    throw refused(outcome);
  }
  await audit(deps.db.kysely, { at: now, actor: outcome.name, action: 'enrolled a passkey', target: `operator ${outcome.operatorId}` });
  return signedIn(deps, outcome.operatorId, now);
});
