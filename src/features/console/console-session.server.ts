/**
 * The session of a console request, from its cookie: the one way the pages and the action
 * endpoints learn who is asking.
 */
import type { HeaderReader } from '../../lib/endpoint.ts';
import { nowOf, relyingParty, sessionPolicy, type ConsoleDeps } from './console-deps.ts';
import { cookieName, readCookie } from './cookies.ts';
import { sessionOf, type Session } from './sessions.server.ts';

export interface RequestSession {
  session: Session;
  /** The cookie's token (to sign out, or to keep a flash value for the next page). */
  token: string;
}

export async function requestSession(headers: HeaderReader, deps: ConsoleDeps): Promise<RequestSession | undefined> {
  const token = readCookie(headers, cookieName('session', relyingParty(deps.config).https));
  if (token === undefined) return undefined;
  const session = await sessionOf(deps.db.kysely, token, nowOf(deps), sessionPolicy(deps.config));
  return session && { session, token };
}
