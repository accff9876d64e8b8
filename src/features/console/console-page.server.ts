/**
 * What every console page does first (the pages are thin Astro routes under src/pages/admin/):
 * the response headers of a private page (never stored by anyone, never indexed) and the
 * session of the request. Without a session a page shows the sign-in alone, and gets the
 * pre-session CSRF token the passkey requests must echo (double-submit cookie).
 */
import { nowOf, relyingParty, type ConsoleDeps } from './console-deps.ts';
import { requestSession, type RequestSession } from './console-session.server.ts';
import { setCookie } from './cookies.ts';
import { takeFlash } from './sessions.server.ts';
import { newToken } from './tokens.ts';

/** How long the sign-in page's token lasts: a ceremony takes at most two minutes. */
const PRE_SESSION_SECONDS = 600;

export interface ConsolePage {
  /** The operator's session, or undefined: show the sign-in. */
  signedIn: RequestSession | undefined;
  /** Without a session: the token the passkey script sends (and its cookie is set). */
  preToken: string | undefined;
  now: number;
}

/** Headers of every console page: no-store (RFC 9111 section 5.2.2.5), noindex (and the meta tag in the layout). */
export function privatePageHeaders(headers: Headers): void {
  headers.set('Cache-Control', 'no-store');
  headers.set('X-Robots-Tag', 'noindex, nofollow');
  headers.set('Content-Type', 'text/html; charset=utf-8');
}

/** `ceremony`: the page runs a passkey ceremony even when signed in (enrolment): it gets the pre-session token. */
export async function openConsolePage(request: Request, headers: Headers, deps: ConsoleDeps, options: { ceremony?: boolean } = {}): Promise<ConsolePage> {
  privatePageHeaders(headers);
  const signedIn = await requestSession(request.headers, deps);
  if (signedIn && !options.ceremony) return { signedIn, preToken: undefined, now: nowOf(deps) };
  const preToken = newToken();
  headers.append('Set-Cookie', setCookie('pre', relyingParty(deps.config).https, preToken, PRE_SESSION_SECONDS));
  return { signedIn, preToken, now: nowOf(deps) };
}

/** The value kept for this page only (a new API key's token), removed as it is read. */
export function flashOf(deps: ConsoleDeps, signedIn: RequestSession): Promise<string | undefined> {
  return takeFlash(deps.db.kysely, signedIn.token);
}

/** `YYYY-MM-DD HH:MM UTC` of an epoch ms. */
export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return `${new Date(Number(ms)).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The message a page shows for the `done` of the action that led back to it. */
export function doneMessage(done: string | null): string | undefined {
  if (done === null) return undefined;
  const erased = /^erased-(\d+)$/.exec(done);
  if (erased) return `Erased ${erased[1]} submission${erased[1] === '1' ? '' : 's'} of that person.`;
  const messages: Record<string, string> = {
    redelivered: 'Queued for redelivery: the outbox sends it on its next pass.',
    spam: 'Marked as spam: it will not be delivered.',
    'not-spam': 'Marked as not spam: it is queued for delivery.',
    'key-created': 'API key created.',
    'key-revoked': 'API key revoked.',
  };
  return messages[done];
}
