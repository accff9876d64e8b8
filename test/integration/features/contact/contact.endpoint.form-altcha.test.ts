/**
 * POST /api/contact beyond JSON, on both engines: a form posted by a browser without JavaScript
 * (303 to the thank-you page, the built contact page again with the values and errors, 403 from
 * another site), and the optional proof-of-work check (ALTCHA): a solution buys one
 * submission, a retry of that submission with its Idempotency-Key passes, a forged or spent one
 * is refused, and spent solutions are purged once their challenge expires.
 *
 * The HTML answers are the built page (./dist): run `npm run build` first.
 */
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Services } from '../../../../src/app/services.ts';
import { challengeEndpoint, issueChallenge } from '../../../../src/features/contact/altcha.server.ts';
import { createDb } from '../../../../src/db/create-db.ts';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { callEndpoint } from '../../../helpers/endpoint.ts';
import { startServer } from '../../../helpers/server.ts';
import { callContact, ENGINES, countRows, json, testServices, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';

const SITE = 'http://127.0.0.1:4321';
const KEY = 'integration-test-altcha-key-0123456789';
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'sec-fetch-site': 'same-origin', origin: SITE };

function post(body: string, headers: Record<string, string>): Request {
  return new Request(`${SITE}/api/contact`, { method: 'POST', headers, body: new TextEncoder().encode(body) });
}

const formPost = (body: string, headers: Record<string, string> = BROWSER) => post(body, { 'content-type': 'application/x-www-form-urlencoded', ...headers });
const jsonPost = (body: unknown, headers: Record<string, string> = {}) => post(json(body), { 'content-type': 'application/json', ...headers });

async function solved(hmacKey = KEY, now = Date.now()): Promise<string> {
  const challenge: Challenge = await issueChallenge(hmacKey, now);
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

describe.each(ENGINES)('contact form posts and proof of work on %s', (engine) => {
  const suite = useTestDb(engine);
  let altcha: Services;
  beforeEach(async () => {
    await suite.db.handle.kysely.deleteFrom('contact_submission').execute();
    await suite.db.handle.kysely.deleteFrom('contact_altcha_used').execute();
    altcha = testServices(suite.db.handle, { CONTACT_ALTCHA_HMAC_KEY: KEY });
  });
  /** Every stored submission's spam reason (null: not spam), in order. */
  const spamReasons = async () => (await suite.db.handle.kysely.selectFrom('contact_submission').select('spam_reason').orderBy('id').execute()).map((r) => r.spam_reason);

  describe('a form posted without JavaScript', () => {
    it('is stored and answered with 303 See Other to the thank-you page', async () => {
      const response = await callContact(formPost('name=Ada+Lovelace&job_title=&work_email=+ada%40example.com&priority=high&message=Hello%0D%0Athere&website='), suite.services);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/contact/thanks/');
      const rows = await suite.db.handle.kysely.selectFrom('contact_submission').select(['name', 'job_title', 'work_email', 'priority', 'message']).execute();
      expect(rows).toEqual([{ name: 'Ada Lovelace', job_title: null, work_email: 'ada@example.com', priority: 'high', message: 'Hello\r\nthere' }]);
    });

    it('answers invalid fields with the contact page again: 400, the values kept, each error beside its field', async () => {
      const response = await callContact(formPost('name=Ada+%3Cb%3E&work_email=ada%40example&message=Hi'), suite.services);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await response.text();
      expect(html).toContain('<title>Error: Contact');
      expect(html).toContain('value="Ada &lt;b&gt;"');
      expect(html).toContain('>Hi</textarea>');
      expect(html).toContain('<p class="field-error" id="contact-email-error" data-error-for="work_email">Work email must be an email address such as ada@example.com.</p>');
      expect(html).toContain('<p class="field-error" id="contact-priority-error" data-error-for="priority">Priority is required.</p>');
      expect(html).toContain('Please correct these 2 things before sending:');
      expect(await countRows(suite.db.handle)).toBe(0);
    });

    it('answers in JSON when the client does not prefer HTML, as a JSON body is', async () => {
      const response = await callContact(formPost('name=Ada&work_email=ada%40example&priority=high', { accept: 'application/json' }), suite.services);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await response.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'work_email' }] });
      const stored = await callContact(formPost('name=Ada&work_email=ada%40example.com&priority=high', {}), suite.services);
      expect(await stored.json()).toEqual({ success: true });
    });

    it('is refused with 403 from another site, as a page of errors for the browser, and stores nothing', async () => {
      const response = await callContact(formPost('name=Ada&work_email=ada%40example.com&priority=high', { ...BROWSER, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }), suite.services);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('A form posted from https://evil.example cannot send a contact request.');
      expect(await countRows(suite.db.handle)).toBe(0);
    });

    it('is refused with 403 from a chat partner too: ALLOWED_ORIGINS is for the chat only', async () => {
      const services = testServices(suite.db.handle, { SITE_URL: SITE, ALLOWED_ORIGINS: `${SITE},https://partner.example` });
      for (const headers of [{ ...BROWSER, 'sec-fetch-site': 'cross-site', origin: 'https://partner.example' }, { accept: BROWSER.accept, origin: 'https://partner.example' }]) {
        const response = await callContact(formPost('name=Ada&work_email=ada%40example.com&priority=high', headers), services);
        expect(response.status).toBe(403);
        expect(await response.text()).toContain('A form posted from https://partner.example cannot send a contact request.');
      }
      expect(await countRows(suite.db.handle)).toBe(0);
    });

    it('answers a filled honeypot like a success and keeps it as spam', async () => {
      const response = await callContact(formPost('name=Bot&work_email=bot%40example.com&priority=high&website=http%3A%2F%2Fspam.example'), suite.services);
      expect(response.status).toBe(303);
      expect(await spamReasons()).toEqual(['honeypot']);
    });

    it('falls back to the form alone when there is no build to take the page from', async () => {
      const services = testServices(suite.db.handle, { DIST_DIR: '/nonexistent/dist' });
      const response = await callContact(formPost('name=Ada&work_email=ada%40example&priority=high'), services);
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(html).toMatch(/^<!doctype html>.*<title>Error: Contact<\/title>/);
      expect(html).toContain('value="ada@example"');
      expect(html).toContain('data-error-for="work_email">Work email must be an email address');
    });

    it('says the check needs JavaScript when the proof of work is on, keeping what was typed', async () => {
      const response = await callContact(formPost('name=Ada&work_email=ada%40example.com&priority=standard&message=Kept'), altcha);
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(html).toContain('a short computation that needs JavaScript, which is off or blocked in your browser');
      expect(html).toContain('>Kept</textarea>');
      expect(await countRows(suite.db.handle)).toBe(0);
    });
  });

  describe('the proof of work, when on', () => {
    it('stores a submission carrying a solution, by JSON or as the widget\'s form field', async () => {
      expect(await (await callContact(jsonPost({ ...validPayload, altcha: await solved() }), altcha)).json()).toEqual({ success: true });
      const form = `name=Ada&work_email=ada%40example.com&priority=high&altcha=${encodeURIComponent(await solved())}`;
      expect((await callContact(formPost(form), altcha)).status).toBe(303);
      expect(await countRows(suite.db.handle)).toBe(2);
    });

    it('answers a spent solution like a success and keeps the submission as spam', async () => {
      const metrics = createMetrics({ processMetrics: false });
      const metered = { ...altcha, meter: metrics.meter };
      const payload = await solved();
      expect((await callContact(jsonPost({ ...validPayload, altcha: payload }), metered)).status).toBe(200);
      const again = await callContact(jsonPost({ ...validPayload, message: 'Another one', altcha: payload }), metered);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ success: true });
      expect(await spamReasons()).toEqual([null, 'proof of work: This proof-of-work solution was already used for another submission.']);
      // Counted with the refusals by its kind, the label the dashboard reads.
      expect(await metrics.scrape()).toContain('contact_submissions_refused_total{reason="proof_of_work"} 1\n');
    });

    it('refuses a solution spent on another instance that shares the database', async () => {
      // A second instance: its own connection pool, the same database (docs/operators.md, "Proof of work").
      const other = createDb(suite.db.url);
      try {
        const payload = await solved();
        expect((await callContact(jsonPost({ ...validPayload, altcha: payload }), altcha)).status).toBe(200);
        const elsewhere = await callContact(jsonPost({ ...validPayload, message: 'Via the other instance', altcha: payload }), testServices(other, { CONTACT_ALTCHA_HMAC_KEY: KEY }));
        expect(await elsewhere.json()).toEqual({ success: true });
        expect((await spamReasons()).map((r) => r?.startsWith('proof of work: ') ?? null)).toEqual([null, true]);
      } finally {
        await other.close();
      }
    });

    it('lets a retry of the same submission through with its Idempotency-Key, and only that one', async () => {
      const payload = await solved();
      const key = { 'idempotency-key': '4f6c1a5e-3f0e-4b8e-9a49-0c8f5b7d2e11' };
      expect((await callContact(jsonPost({ ...validPayload, altcha: payload }, key), altcha)).status).toBe(200);
      const retry = await callContact(jsonPost({ ...validPayload, altcha: payload }, key), altcha);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const other = await callContact(jsonPost({ ...validPayload, altcha: payload }, { 'idempotency-key': 'another-key' }), altcha);
      expect(await other.json()).toEqual({ success: true });
      expect((await spamReasons()).map((r) => r !== null)).toEqual([false, true]);
    });

    it('refuses a missing solution with challenge_required, and keeps a malformed, forged, wrong or expired one as spam', async () => {
      const required = await callContact(jsonPost(validPayload), altcha);
      expect(await required.json()).toMatchObject({ status: 400, code: 'challenge_required' });
      expect(await countRows(suite.db.handle)).toBe(0);
      const answer = async (altchaValue: unknown) => (await (await callContact(jsonPost({ ...validPayload, altcha: altchaValue }), altcha)).json()) as unknown;
      expect(await answer('not base64 json')).toEqual({ success: true });
      expect(await answer(42)).toEqual({ success: true });
      // Signed with another key: not issued by this server.
      expect(await answer(await solved('someone-elses-key-0123456789abcdef'))).toEqual({ success: true });
      // A derived key that is not the one the work finds (the key is what proves the work).
      const decoded = JSON.parse(Buffer.from(await solved(), 'base64').toString()) as { solution: { derivedKey: string } };
      decoded.solution.derivedKey = `${decoded.solution.derivedKey.slice(0, -2)}${decoded.solution.derivedKey.endsWith('00') ? '01' : '00'}`;
      expect(await answer(Buffer.from(JSON.stringify(decoded)).toString('base64'))).toEqual({ success: true });
      expect(await answer(await solved(KEY, Date.now() - 31 * 60_000))).toEqual({ success: true });
      const reasons = await spamReasons();
      expect(reasons).toHaveLength(5);
      expect(reasons.every((r) => r?.startsWith('proof of work: '))).toBe(true);
      expect(reasons.at(-1)).toBe('proof of work: The challenge has expired.');
    });

    it('checks the fields first, so a typo does not spend the solution', async () => {
      const payload = await solved();
      expect((await callContact(jsonPost({ ...validPayload, work_email: 'ada@', altcha: payload }), altcha)).status).toBe(400);
      expect((await callContact(jsonPost({ ...validPayload, altcha: payload }), altcha)).status).toBe(200);
    });

    it('purges spent solutions whose challenge has expired', async () => {
      const db = suite.db.handle.kysely;
      await db.insertInto('contact_altcha_used').values([
        { signature: 'aa', expires_at: Date.now() - 1_000, idempotency_key: null },
        { signature: 'bb', expires_at: Date.now() + 60_000, idempotency_key: null },
      ]).execute();
      expect((await callContact(jsonPost({ ...validPayload, altcha: await solved() }), altcha)).status).toBe(200);
      const left = await db.selectFrom('contact_altcha_used').select('signature').orderBy('signature').execute();
      expect(left.map((r) => r.signature)).not.toContain('aa');
      expect(left.map((r) => r.signature)).toContain('bb');
      expect(left).toHaveLength(2);
    });
  });
});

describe('CONTACT_ALTCHA_HMAC_KEY at start-up', () => {
  it('refuses a key too short to be a secret: exit 78, one line naming the variable, the value never echoed', async () => {
    const short = 'tooshort-secret';
    const failure = await startServer({ CONTACT_ALTCHA_HMAC_KEY: short }).then(
      // Started after all: stop it, and the assertion below fails.
      async (server) => void (await server.stop()),
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(/exited with 78[\s\S]*CONTACT_ALTCHA_HMAC_KEY: must be at least 32 characters/);
    expect(failure).not.toContain(short);
  });
});

describe('GET and HEAD /api/contact/challenge', () => {
  const challenge = (hmacKey: string | undefined, method = 'GET') =>
    callEndpoint(challengeEndpoint, new Request(`${SITE}/api/contact/challenge`, { method }), { config: hmacKey === undefined ? {} : { CONTACT_ALTCHA_HMAC_KEY: hmacKey } });

  it('gives a signed challenge with an expiry when the check is on, only its status to HEAD, and 204 when off; never cached', async () => {
    const issued = await challenge(KEY);
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    const body = (await issued.json()) as Challenge;
    expect(body.parameters).toMatchObject({ algorithm: 'PBKDF2/SHA-256', keySignature: expect.stringMatching(/^[0-9a-f]+$/) });
    expect(body.parameters.expiresAt! * 1000).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(body.signature).toMatch(/^[0-9a-f]{64}$/);
    const head = await challenge(KEY, 'HEAD');
    expect([head.status, await head.text()]).toEqual([200, '']);
    const off = await challenge(undefined);
    expect([off.status, off.headers.get('cache-control'), await off.text()]).toEqual([204, 'no-store', '']);
  });

  it('answers any other method 405 with Allow: GET, HEAD', async () => {
    const response = await challenge(KEY, 'POST');
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toMatchObject({ status: 405, code: 'method_not_allowed', detail: 'POST is not supported here.' });
  });
});
