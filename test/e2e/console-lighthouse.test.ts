/**
 * Lighthouse accessibility on every console page, signed out (the sign-in, the enrolment page)
 * and signed in (inbox, a submission, API keys with a new token shown, data freshness, the audit
 * log): each scores 100. The session is made in the database and sent as the cookie header
 * (Lighthouse's extraHeaders), so no passkey is needed here (test/e2e/browser/console.test.ts
 * signs in with one). Accessibility only: the console is private, so performance and SEO
 * targets of the public pages do not apply.
 */
import lighthouse, { desktopConfig, type Flags } from 'lighthouse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/create-db.ts';
import { createKey } from '../../src/features/apikeys/index.ts';
import { audit } from '../../src/features/console/audit.server.ts';
import { addOperator } from '../../src/features/console/operators.server.ts';
import { createSession, putFlash } from '../../src/features/console/sessions.server.ts';
import { startSite, type Site } from '../helpers/browser.ts';
import { SharedChromium } from './browser/lighthouse-run.ts';

let site: Site;
/** One Chromium for the seven runs, each in a tab of its own (see SharedChromium). */
const chromium = new SharedChromium();
let cookie = '';
let sessionToken = '';
const SHOWN_ONCE = 'adk_ThisIsTheTokenShownOnceOnTheKeysPage000000';

/** The new key's token, kept for the keys page's next view (each view takes it). */
async function flashToken(): Promise<void> {
  const handle = createDb(site.databaseUrl);
  try {
    await putFlash(handle.kysely, sessionToken, SHOWN_ONCE);
  } finally {
    await handle.close();
  }
}
let submissionId = 0;

beforeAll(async () => {
  site = await startSite();
  const handle = createDb(site.databaseUrl);
  try {
    const now = Date.now();
    const row = await handle.kysely
      .insertInto('contact_submission')
      .values({ created_at: now, name: 'Ada Lovelace', job_title: 'Analyst', work_email: 'ada@example.com', priority: 'high', message: 'Please call.', idempotency_key: null, next_attempt_at: null, delivered_at: null, last_error: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    submissionId = Number(row.id);
    // A delivery log to show: one webhook delivery with a failed and a delivered attempt.
    const delivery = await handle.kysely
      .insertInto('contact_delivery')
      .values({ submission_id: submissionId, channel: 'webhook', state: 'delivered', attempts: 2, next_attempt_at: null, created_at: now, delivered_at: now, failed_at: null, last_error: 'HTTP 503 Service Unavailable' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await handle.kysely
      .insertInto('contact_delivery_attempt')
      .values([
        { delivery_id: Number(delivery.id), attempted_at: now - 30_000, duration_ms: 41, outcome: 'failed', response_code: 503, error: 'HTTP 503 Service Unavailable' },
        { delivery_id: Number(delivery.id), attempted_at: now, duration_ms: 12, outcome: 'delivered', response_code: 204, error: null },
      ])
      .execute();
    await createKey(handle.kysely, { name: 'Acme', minuteLimit: 60, dayLimit: 5000, now });
    const { token } = await createSession(handle.kysely, await addOperator(handle.kysely, 'Ada Operator', now), now);
    sessionToken = token;
    await audit(handle.kysely, { at: now, actor: 'Ada Operator', action: 'signed in' });
    cookie = `console_session=${token}`;
  } finally {
    await handle.close();
  }
});

afterAll(async () => {
  await chromium.kill();
  await site?.stop();
});

async function accessibility(path: string, headers: Record<string, string>): Promise<{ score: number | null; failing: string[] }> {
  // No report is kept, so no full-page screenshot for one (it takes no part in any score).
  const flags: Flags = { port: await chromium.port(), logLevel: 'error', onlyCategories: ['accessibility'], extraHeaders: headers, disableFullPageScreenshot: true };
  const run = await lighthouse(new URL(path, site.url).href, flags, desktopConfig);
  if (!run) throw new Error(`no Lighthouse result for ${path}`);
  const { lhr } = run;
  const failing = (lhr.categories['accessibility']?.auditRefs ?? [])
    .map((ref) => lhr.audits[ref.id])
    .filter((a) => a !== undefined && a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary')
    .map((a) => `${a!.id}: ${a!.title}`);
  const score = lhr.categories['accessibility']?.score;
  return { score: typeof score === 'number' ? Math.round(score * 100) : null, failing };
}

describe('Lighthouse on the console', () => {
  it('scores 100 for accessibility on every console page', { timeout: 300_000 }, async () => {
    const pages: Array<[string, Record<string, string>, string]> = [
      ['/admin/', {}, 'Sign in'],
      ['/admin/enrol/', {}, 'Enrol a passkey'],
      ['/admin/', { cookie }, 'Inbox'],
      [`/admin/submissions/${submissionId}/`, { cookie }, `Submission ${submissionId}`],
      ['/admin/keys/', { cookie }, 'API keys'],
      ['/admin/freshness/', { cookie }, 'Data freshness'],
      ['/admin/audit/', { cookie }, 'Audit log'],
    ];
    const results: string[] = [];
    await flashToken();
    for (const [path, headers, title] of pages) {
      // The page scored is the one meant (signed in where the cookie is sent), not the sign-in.
      const html = await (await fetch(new URL(path, site.url), { headers })).text();
      expect(html, path).toMatch(new RegExp(`<h1[^>]*>${title}</h1>`));
      if (path === '/admin/keys/') await flashToken();
      const { score, failing } = await accessibility(path, headers);
      results.push(`${path}${headers['cookie'] ? ' (signed in)' : ''}: ${score}${failing.length > 0 ? ` (${failing.join('; ')})` : ''}`);
    }
    expect(results).toEqual(pages.map(([path, headers]) => `${path}${headers['cookie'] ? ' (signed in)' : ''}: 100`));
  });
});
