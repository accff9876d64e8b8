/**
 * The console's state-changing endpoints on SQLite and PostgreSQL, called directly: a cross-site
 * request, one without Origin, and one without the session's CSRF token are refused and change
 * nothing; the right one acts, is audited and goes back with 303; an expired session (the clock
 * moved past the idle expiry) is refused. The passkey ceremonies want the pre-session token.
 */
import { describe, expect, it } from 'vitest';
import { listKeys } from '../../../../src/features/apikeys/index.ts';
import { actionEndpoint, signOutEndpoint } from '../../../../src/features/console/actions.endpoint.ts';
import { auditPage } from '../../../../src/features/console/audit.server.ts';
import { signInOptionsEndpoint } from '../../../../src/features/console/ceremony.endpoint.ts';
import type { ConsoleDeps } from '../../../../src/features/console/console-deps.ts';
import { addOperator } from '../../../../src/features/console/operators.server.ts';
import { createSession, sessionOf } from '../../../../src/features/console/sessions.server.ts';
import { PATHS } from '../../../../src/lib/paths.ts';
import { ENGINES, testServices, useTestDb } from '../../../helpers/contact-fixtures.ts';
import { callEndpoint } from '../../../helpers/endpoint.ts';

const SITE = 'http://localhost:4321';
const T0 = 1_800_000_000_000;

describe.each(ENGINES)('console actions on %s', (engine) => {
  const suite = useTestDb(engine);
  let clock = T0;
  const deps = (): ConsoleDeps => ({ ...testServices(suite.db.handle, { SITE_URL: SITE }), consoleClock: () => clock });

  async function signedIn() {
    const db = suite.db.handle.kysely;
    clock = T0;
    const { token, csrfToken } = await createSession(db, await addOperator(db, 'Ada', T0), T0);
    return { token, csrfToken };
  }

  function post(path: string, token: string, fields: Record<string, string>, headers: Record<string, string> = { origin: SITE, 'sec-fetch-site': 'same-origin' }): Request {
    return new Request(`${SITE}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `console_session=${token}`, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  const createKeyFields = (csrf: string) => ({ csrf, op: 'key-create', name: 'Acme', back: `${PATHS.console}/keys/` });

  it('refuses cross-site requests and wrong tokens, and does nothing', async () => {
    const { token, csrfToken } = await signedIn();
    const refusals = [
      post(PATHS.consoleAction, token, createKeyFields(csrfToken), { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
      post(PATHS.consoleAction, token, createKeyFields(csrfToken), { origin: SITE, 'sec-fetch-site': 'same-site' }),
      post(PATHS.consoleAction, token, createKeyFields(csrfToken), { origin: 'null' }),
      post(PATHS.consoleAction, token, createKeyFields(csrfToken), {}),
      post(PATHS.consoleAction, token, createKeyFields('x'.repeat(43))),
      post(PATHS.consoleAction, token, { op: 'key-create', name: 'Acme' }),
    ];
    for (const request of refusals) {
      const answer = await callEndpoint(actionEndpoint, request, deps());
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ code: 'origin_not_allowed' });
    }
    expect(await listKeys(suite.db.handle.kysely)).toEqual([]);
  });

  it('acts on a same-origin request with the token, audits it, and goes back with 303', async () => {
    const { token, csrfToken } = await signedIn();
    const answer = await callEndpoint(actionEndpoint, post(PATHS.consoleAction, token, createKeyFields(csrfToken)), deps());
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/admin/keys/?done=key-created');
    expect((await listKeys(suite.db.handle.kysely)).map((k) => k.name)).toEqual(['Acme']);
    const [entry] = await auditPage(suite.db.handle.kysely, 1);
    expect(entry).toMatchObject({ actor: 'Ada', action: 'created API key', at: T0 });
  });

  it('never sends the browser to another site', async () => {
    const { token, csrfToken } = await signedIn();
    for (const back of ['https://evil.example/', '//evil.example/admin/', '/admin/\\evil']) {
      const answer = await callEndpoint(actionEndpoint, post(PATHS.consoleAction, token, { ...createKeyFields(csrfToken), back }), deps());
      expect(answer.headers.get('location')).toBe('/admin/?done=key-created');
    }
  });

  it('refuses a session past its idle expiry', async () => {
    const { token, csrfToken } = await signedIn();
    clock = T0 + 31 * 60_000;
    const answer = await callEndpoint(actionEndpoint, post(PATHS.consoleAction, token, createKeyFields(csrfToken)), deps());
    expect(answer.status).toBe(401);
  });

  it('signs out: the session is over and the cookie deleted', async () => {
    const { token, csrfToken } = await signedIn();
    const answer = await callEndpoint(signOutEndpoint, post(PATHS.consoleSignOut, token, { csrf: csrfToken }), deps());
    expect(answer.status).toBe(303);
    expect(answer.headers.get('set-cookie')).toMatch(/^console_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    expect(await sessionOf(suite.db.handle.kysely, token, T0 + 1, { idleMs: 1e9, maxMs: 1e9 })).toBeUndefined();
  });

  it('gives passkey options only with the pre-session token of the sign-in page', async () => {
    const json = (headers: Record<string, string>) =>
      new Request(`${SITE}${PATHS.consoleSignInOptions}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: SITE, ...headers }, body: '{}' });
    const pre = 'p'.repeat(43);
    expect((await callEndpoint(signInOptionsEndpoint, json({ cookie: `console_pre=${pre}` }), deps())).status).toBe(403);
    expect((await callEndpoint(signInOptionsEndpoint, json({ cookie: `console_pre=${pre}`, 'x-csrf-token': 'q'.repeat(43) }), deps())).status).toBe(403);
    const answer = await callEndpoint(signInOptionsEndpoint, json({ cookie: `console_pre=${pre}`, 'x-csrf-token': pre }), deps());
    expect(answer.status).toBe(200);
    const options = (await answer.json()) as { challenge: string; rpId: string; userVerification: string };
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    const stored = await suite.db.handle.kysely.selectFrom('console_challenge').select('challenge').where('challenge', '=', options.challenge).execute();
    expect(stored).toHaveLength(1);
  });
});
