/**
 * The operators' console in real Chromium with a virtual authenticator (DevTools protocol
 * WebAuthn domain, through playwright-core's CDP session): enrol from an invite printed by
 * `admin:invite`, sign out and in again, find a submission, redeliver it, erase the person,
 * read the audit log; a used or expired invite refused; a cross-site form POST refused; a
 * session past its idle or absolute expiry refused (its timestamps moved back in the database,
 * which is the clock the server reads them against: no sleeping).
 *
 * The site is served as http://localhost:PORT: WebAuthn needs a host name as relying party
 * (an IP address is not a valid RP ID), and localhost is a secure context.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/create-db.ts';
import { createInvite } from '../../../src/features/console/invites.server.ts';
import { openPage, useBrowserSite, type WatchedPage } from '../../helpers/browser.ts';

/** The contact webhook's receiver on loopback: each delivery it takes resolves the next waiter. */
const received: string[] = [];
let onDelivery: (() => void) | undefined;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(204).end();
    onDelivery?.();
  });
});
const siteEnv: Record<string, string> = { HOST: 'localhost', JOBS_ENABLED: 'true', CONTACT_OUTBOX_INTERVAL_MS: '200', CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' };
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  siteEnv['CONTACT_WEBHOOK_URL'] = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const { site, browser } = useBrowserSite(siteEnv);

const HOUR = 3_600_000;

function db() {
  return createDb(site.databaseUrl);
}

async function seedSubmissions(): Promise<void> {
  const handle = db();
  try {
    const now = Date.now();
    await handle.kysely
      .insertInto('contact_submission')
      .values([
        { created_at: now - 2_000, name: 'Ada Lovelace', job_title: 'Analyst', work_email: 'ada@example.com', priority: 'high', message: 'Call me', idempotency_key: null, next_attempt_at: null, delivered_at: null, last_error: null },
        { created_at: now - 1_000, name: 'Grace Hopper', job_title: null, work_email: 'grace@example.com', priority: 'standard', message: 'Hello', idempotency_key: null, next_attempt_at: null, delivered_at: null, last_error: null },
      ])
      .execute();
  } finally {
    await handle.close();
  }
}

/** `npm run -s admin:invite -- --name NAME` against the site's database and origin: the link it prints. */
function invite(name: string): string {
  const run = spawnSync(process.execPath, ['jobs/cli/admin-invite.ts', '--name', name], {
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: site.databaseUrl, SITE_URL: site.url },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toMatch(new RegExp(`^${site.url}/admin/enrol/#[A-Za-z0-9_-]{43}\\n$`));
  return run.stdout.trim();
}

/** A page whose context has a platform authenticator that verifies its user (a passkey device). */
async function withAuthenticator(watched: WatchedPage): Promise<void> {
  const cdp = await watched.context.newCDPSession(watched.page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

async function heading(page: Page): Promise<string> {
  return (await page.locator('h1').first().textContent())?.trim() ?? '';
}

async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === 'console_session');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
  return cookie!.value;
}

describe('the console in Chromium', () => {
  let operator: WatchedPage;

  beforeAll(async () => {
    await seedSubmissions();
    operator = await openPage(browser);
    await withAuthenticator(operator);
  });
  afterAll(async () => {
    await operator?.close();
  });

  it('shows nothing but the sign-in without a session', async () => {
    const { page } = operator;
    const response = await page.goto(`${site.url}/admin/`);
    expect(response?.headers()['cache-control']).toBe('no-store');
    expect(response?.headers()['x-robots-tag']).toBe('noindex, nofollow');
    expect(await heading(page)).toBe('Sign in');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');
    expect(await page.content()).not.toContain('grace@example.com');
    await page.goto(`${site.url}/admin/keys/`);
    expect(await heading(page)).toBe('Sign in');
  });

  it('enrols from an invite, signs out, and signs in with the passkey', async () => {
    const { page } = operator;
    await page.goto(invite('Ada Operator'));
    expect(await heading(page)).toBe('Enrol a passkey');
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL(`${site.url}/admin/`);
    expect(await heading(page)).toBe('Inbox');
    await sessionCookie(operator.context);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${site.url}/admin/`);
    expect(await heading(page)).toBe('Sign in');

    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    expect(await page.locator('.console-signout .meta').textContent()).toBe('Ada Operator');
  });

  it('finds a submission, redelivers it through the outbox, marks it spam and not spam, and erases the person', async () => {
    const { page } = operator;
    await page.getByLabel('Name or e-mail').fill('GRACE');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/q=GRACE/);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Grace Hopper' }).click();
    expect(await heading(page)).toMatch(/^Submission \d+$/);
    const submissionUrl = page.url();

    // Redeliver: due at once, the running outbox sends it to the receiver, the log shows the attempt.
    const delivered = new Promise<void>((resolve) => (onDelivery = resolve));
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.waitForURL(/done=redelivered/);
    expect(await page.getByRole('status').textContent()).toContain('Queued for redelivery');
    await delivered;
    expect(received.at(-1)).toContain('grace@example.com');
    await page.goto(submissionUrl);
    await page.locator('[data-delivery-state]', { hasText: 'delivered' }).waitFor();
    expect(await page.locator('table', { hasText: 'Every attempt through webhook' }).locator('tbody tr').first().textContent()).toContain('204');

    await page.getByRole('button', { name: 'Mark spam' }).click();
    await page.waitForURL(/done=spam/);
    expect(await page.locator('[data-spam-state]').textContent()).toMatch(/^yes: /);
    await page.goto(`${site.url}/admin/?q=grace`);
    expect(await page.locator('tbody tr').count()).toBe(0);
    await page.goto(`${site.url}/admin/?q=grace&spam=spam`);
    await page.getByRole('link', { name: 'Grace Hopper' }).click();
    await page.getByRole('button', { name: 'Mark not spam' }).click();
    await page.waitForURL(/done=not-spam/);
    expect(await page.locator('[data-spam-state]').textContent()).toBe('no');

    await page.getByRole('button', { name: 'Erase this person' }).click();
    await page.waitForURL(/\/admin\/\?done=erased-1$/);
    expect(await page.getByRole('status').textContent()).toBe('Erased 1 submission of that person.');
    const handle = db();
    try {
      const left = await handle.kysely.selectFrom('contact_submission').select('work_email').execute();
      expect(left.map((r) => r.work_email)).toEqual(['ada@example.com']);
    } finally {
      await handle.close();
    }
  });

  it('creates an API key, shows its token once, and revokes it', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Who it is for').fill('Acme Corp');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(/done=key-created/);
    const token = await page.locator('[data-new-token]').textContent();
    expect(token).toMatch(/^adk_[A-Za-z0-9_-]{43}$/);
    await page.reload();
    expect(await page.locator('[data-new-token]').count()).toBe(0);
    await page.getByRole('button', { name: /^Revoke key \d+ \(Acme Corp\)$/ }).click();
    await page.waitForURL(/done=key-revoked/);
    expect(await page.locator('tbody').textContent()).toContain('revoked');
  });

  it('writes every action to the audit log, with who did it', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = await page.locator('tbody tr').allTextContents();
    const actions = rows.map((row) => row.replace(/\s+/g, ' '));
    for (const action of ['revoked API key', 'created API key', 'erased a person', 'marked not spam', 'marked spam', 'redelivered', 'signed in', 'signed out', 'enrolled a passkey']) {
      expect(actions.some((row) => row.includes('Ada Operator') && row.includes(action)), action).toBe(true);
    }
    expect(actions.some((row) => row.includes('cli') && row.includes('invited an operator'))).toBe(true);
    await page.getByRole('link', { name: 'Data freshness' }).click();
    expect(await page.locator('[data-last-day]').textContent()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(operator.problems).toEqual([]);
  });

  it('refuses a cross-site form POST from a signed-in browser, and does nothing', async () => {
    // Another site (its own server on 127.0.0.1) whose page posts a console form at once: the
    // operator's browser sends Origin and Sec-Fetch-Site: cross-site (and, SameSite=Strict, no cookie).
    const target = `${site.url}/admin/act`;
    const evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Win a prize</title><form method="post" action="${target}"><input name="op" value="key-create"><input name="name" value="Mallory"></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      operator.expectFailure({ url: target, status: 403 });
      const answer = operator.page.waitForResponse(target);
      await operator.page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const response = await answer;
      expect(response.status()).toBe(403);
      expect(response.request().headers()['origin']).toMatch(/^http:\/\/127\.0\.0\.1:/);
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
    const handle = db();
    try {
      expect(await handle.kysely.selectFrom('api_key').select('name').where('name', '=', 'Mallory').execute()).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it('refuses a session past its idle expiry, and one past its absolute expiry', async () => {
    const { page, context } = operator;
    await page.goto(`${site.url}/admin/`);
    expect(await heading(page)).toBe('Inbox');
    const handle = db();
    try {
      // 31 minutes without a request (the idle expiry is 30).
      await handle.kysely.updateTable('console_session').set((eb) => ({ last_seen_at: eb('last_seen_at', '-', 31 * 60_000) })).execute();
      await page.reload();
      expect(await heading(page)).toBe('Sign in');

      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      // Busy, but signed in 12 hours ago (the absolute expiry).
      const token = await sessionCookie(context);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await handle.kysely.updateTable('console_session').set((eb) => ({ created_at: eb('created_at', '-', 12 * HOUR) })).where('revoked_at', 'is', null).execute();
      await page.reload();
      expect(await heading(page)).toBe('Sign in');
    } finally {
      await handle.close();
    }
    expect(operator.problems).toEqual([]);
  });
});

describe('invites that no longer work', () => {
  it('refuses a used invite and an expired one', async () => {
    const used = invite('Once');
    const first = await openPage(browser);
    try {
      await withAuthenticator(first);
      await first.page.goto(used);
      await first.page.getByRole('button', { name: 'Create a passkey' }).click();
      await first.page.waitForURL(`${site.url}/admin/`);
    } finally {
      await first.close();
    }

    const handle = db();
    let expired: string;
    try {
      const made = await createInvite(handle.kysely, 'Late', Date.now() - 2 * HOUR, HOUR);
      expired = `${site.url}/admin/enrol/#${made.token}`;
    } finally {
      await handle.close();
    }
    for (const [link, message] of [
      [used, 'This invite has been used already.'],
      [expired, 'This invite has expired.'],
    ] as const) {
      const second = await openPage(browser, { expected: [{ url: `${site.url}/admin/enrol/options`, status: 401 }] });
      try {
        await withAuthenticator(second);
        await second.page.goto(link);
        await second.page.getByRole('button', { name: 'Create a passkey' }).click();
        const alert = second.page.getByRole('alert');
        await alert.filter({ hasText: message }).waitFor();
        expect(second.problems).toEqual([]);
      } finally {
        await second.close();
      }
    }
  });
});
