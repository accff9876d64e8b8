/**
 * The console's form actions: `POST /admin/act` (op = redeliver, spam, not-spam, erase,
 * key-create, key-revoke) and `POST /admin/sign-out`. Each needs a live session, a same-origin
 * request and the session's CSRF token (request-guard.ts); each is written to the audit log and
 * answered 303 See Other back to the page it came from (RFC 9110 section 15.4.4), with what was
 * done in the query, so a reload repeats nothing.
 */
import type { Endpoint, PlainRequest, PlainResponse } from '../../lib/endpoint.ts';
import { HttpError, renderError, toHttpError } from '../../lib/http-error.ts';
import { PATHS } from '../../lib/paths.ts';
import { audit } from './audit.server.ts';
import { consoleAction, type ActionOutcome } from './console-actions.server.ts';
import { nowOf, relyingParty, type ConsoleDeps } from './console-deps.ts';
import { requestSession, type RequestSession } from './console-session.server.ts';
import { setCookie } from './cookies.ts';
import { assertSameOrigin, assertToken } from './request-guard.ts';
import { endSession } from './sessions.server.ts';

export const CSRF_FIELD = 'csrf';

function seeOther(location: string, headers: Record<string, string> = {}): PlainResponse {
  return { status: 303, headers: { location, 'cache-control': 'no-store', ...headers }, body: null };
}

/** Where to go back to: a console path only (never another site: no open redirect). */
export function backTo(value: string | null): string {
  const home = `${PATHS.console}/`;
  if (value === null || !value.startsWith(home) || value.startsWith('//') || /[\\\s]/.test(value)) return home;
  return value;
}

/** (POST only: the route table's methods.) Same origin, a form body, a live session and its CSRF token; then the fields. */
async function admit(request: PlainRequest, deps: ConsoleDeps): Promise<{ form: URLSearchParams; signedIn: RequestSession }> {
  assertSameOrigin(request.headers, relyingParty(deps.config).origin);
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new HttpError('unsupported_media_type', { detail: 'Send the console form as application/x-www-form-urlencoded.' });
  const signedIn = await requestSession(request.headers, deps);
  if (!signedIn) throw new HttpError('unauthorized', { detail: 'Not signed in, or the session has expired.', resolution: `Sign in again at ${PATHS.console}/.` });
  const form = new URLSearchParams(new TextDecoder().decode(request.body ?? new Uint8Array(0)));
  assertToken(form.get(CSRF_FIELD), signedIn.session.csrfToken);
  return { form, signedIn };
}

function guarded(run: (form: URLSearchParams, signedIn: RequestSession, deps: ConsoleDeps, now: number) => Promise<PlainResponse>): Endpoint<ConsoleDeps> {
  return async (request, deps) => {
    try {
      const { form, signedIn } = await admit(request, deps);
      return await run(form, signedIn, deps, nowOf(deps));
    } catch (error) {
      const httpError = toHttpError(error);
      if (httpError.status >= 500) deps.log.error({ err: error, path: request.url.pathname }, 'console action failed');
      return renderError(httpError, request.url.pathname);
    }
  };
}

export const signOutEndpoint = guarded(async (_form, { session, token }, deps, now) => {
  await endSession(deps.db.kysely, token, now);
  await audit(deps.db.kysely, { at: now, actor: session.operatorName, action: 'signed out' });
  return seeOther(`${PATHS.console}/`, { 'set-cookie': setCookie('session', relyingParty(deps.config).https, '', 0) });
});

export const actionEndpoint = guarded(async (form, signedIn, deps, now) => {
  const outcome: ActionOutcome = await consoleAction(form, signedIn, deps, now);
  await audit(deps.db.kysely, { at: now, actor: signedIn.session.operatorName, action: outcome.action, target: outcome.target, detail: outcome.detail ?? null });
  const back = new URL(outcome.back ?? backTo(form.get('back')), 'http://x');
  back.searchParams.set('done', outcome.done);
  return seeOther(`${back.pathname}${back.search}`);
});
