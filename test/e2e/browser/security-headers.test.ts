/**
 * Security headers of the real server, on every page of the build and on the APIs, and the
 * Content-Security-Policy as Chromium enforces it: no page, script or widget trips it.
 *
 * Where a policy comes from: prerendered pages carry Astro's per-page policy (script and style
 * hashes, `security.csp`) as <meta http-equiv>, on-demand pages as a header; the edge
 * (src/server/security.ts) adds a header with what a <meta> policy cannot carry
 * (frame-ancestors, CSP3 section 6.4.1). Browsers enforce every policy present (CSP3 section 8.1),
 * so the checks below read all of them.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPage, startSite, useBrowserSite, utcDay } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite();

/** Every page of the build (each prerendered index.html) plus the on-demand /stats/. */
function sitePages(): string[] {
  const client = join(process.env['E2E_DIST_DIR'] ?? 'dist', 'client');
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'index.html') pages.push(`/${relative(client, dir).split(sep).join('/')}/`.replace('//', '/'));
    }
  };
  walk(client);
  return [...pages.sort(), '/stats/'];
}

const PAGES = sitePages();

/** A policy as directive name -> source list (CSP3 section 2.2: names are case-insensitive). */
type Policy = Map<string, string[]>;

function parsePolicies(text: string): Policy[] {
  // Several header fields arrive joined by ", " (RFC 9110 section 5.3); each is its own policy.
  return text
    .split(',')
    .map((policy) => new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((parts) => parts[0]).map(([name, ...sources]) => [name!.toLowerCase(), sources])))
    .filter((policy) => policy.size > 0);
}

function metaPolicies(html: string): Policy[] {
  const metas = html.match(/<meta\s+http-equiv="content-security-policy"[^>]*>/gi) ?? [];
  return metas.flatMap((meta) => parsePolicies((/content="([^"]*)"/i.exec(meta)?.[1] ?? '').replaceAll('&#39;', "'").replaceAll('&quot;', '"')));
}

/** The script sources of a policy: script-src, or default-src as its fallback (CSP3 section 6.8.1). */
function scriptSources(policy: Policy): string[] | undefined {
  return policy.get('script-src') ?? policy.get('default-src');
}

/** No policy allows inline script, and at least one restricts scripts to hashes, nonces or 'self'. */
function expectScriptsLockedDown(policies: Policy[], where: string): void {
  const scriptPolicies = policies.map(scriptSources).filter((sources): sources is string[] => sources !== undefined);
  expect(scriptPolicies.length, `${where}: a policy restricting scripts`).toBeGreaterThan(0);
  for (const sources of scriptPolicies) {
    expect(sources, where).not.toContain("'unsafe-inline'");
    expect(sources, where).not.toContain("'unsafe-eval'");
    expect(sources.filter((s) => s === '*' || s === 'http:' || s === 'https:' || s === 'data:'), where).toEqual([]);
  }
}

function expectCommonHeaders(headers: Headers, where: string): void {
  expect(headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(headers.get('referrer-policy'), where).toBe('strict-origin-when-cross-origin');
  const permissions = headers.get('permissions-policy') ?? '';
  for (const feature of ['camera', 'microphone', 'geolocation']) expect(permissions, where).toContain(`${feature}=()`);
}

describe('security headers', () => {
  it('finds the pages to check in the build', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['/', '/news/', '/contact/', '/stats/']));
    expect(PAGES.filter((p) => p.startsWith('/news/') && p !== '/news/').length).toBeGreaterThan(0);
  });

  it.each(PAGES)('%s has a script policy without unsafe-inline, frame-ancestors none and the common headers', async (path) => {
    const response = await fetch(`${site.url}${path}`);
    expect(response.status, path).toBe(200);
    expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
    const headerPolicies = parsePolicies(response.headers.get('content-security-policy') ?? '');
    const policies = [...headerPolicies, ...metaPolicies(await response.text())];
    expectScriptsLockedDown(policies, path);
    // frame-ancestors is ignored in <meta> (CSP3 section 6.4.1): it must come in a header.
    expect(headerPolicies.some((p) => p.get('frame-ancestors')?.join(' ') === "'none'"), `${path}: frame-ancestors 'none' in a header`).toBe(true);
    expect(headerPolicies.some((p) => p.get('object-src')?.join(' ') === "'none'" || p.get('default-src')?.join(' ') === "'none'"), `${path}: object-src 'none'`).toBe(true);
    expectCommonHeaders(response.headers, path);
    // Only sent over HTTPS (RFC 6797 section 7.2); this server is plain HTTP.
    expect(response.headers.get('strict-transport-security'), path).toBeNull();
  });

  it('gives the 404 page the same headers', async () => {
    const response = await fetch(`${site.url}/no-such-page/`);
    expect(response.status).toBe(404);
    const headerPolicies = parsePolicies(response.headers.get('content-security-policy') ?? '');
    expectScriptsLockedDown([...headerPolicies, ...metaPolicies(await response.text())], '404');
    expect(headerPolicies.some((p) => p.get('frame-ancestors')?.join(' ') === "'none'")).toBe(true);
    expectCommonHeaders(response.headers, '404');
  });

  const apis: Array<[string, () => Promise<Response>]> = [
    ['GET /api/news', () => fetch(`${site.url}/api/news`)],
    ['GET /sellers.json', () => fetch(`${site.url}/sellers.json`)],
    ['GET /api/v1/public/data', () => fetch(`${site.url}/api/v1/public/data?startDate=${utcDay(-7)}&endDate=${utcDay(-1)}`)],
    ['GET /api/v1/public/data (400)', () => fetch(`${site.url}/api/v1/public/data?startDate=nope&endDate=${utcDay(-1)}`)],
    ['GET /api/unknown (404)', () => fetch(`${site.url}/api/unknown`)],
    ['POST /api/contact (400)', () => fetch(`${site.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json', origin: site.url }, body: '{}' })],
    [
      'POST /api/chat',
      () =>
        fetch(`${site.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: site.url },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
        }),
    ],
  ];

  it.each(apis)('%s forbids everything by CSP and carries the common headers', async (name, send) => {
    const response = await send();
    await response.arrayBuffer();
    const policies = parsePolicies(response.headers.get('content-security-policy') ?? '');
    expect(policies.some((p) => p.get('default-src')?.join(' ') === "'none'"), name).toBe(true);
    expect(policies.some((p) => p.get('frame-ancestors')?.join(' ') === "'none'"), name).toBe(true);
    expectCommonHeaders(response.headers, name);
  });
});

describe('HSTS', () => {
  it('is sent, for a year and subdomains, when SITE_URL is https', async () => {
    const https = await startSite({ SITE_URL: 'https://example.test' });
    try {
      for (const path of ['/', '/stats/', '/api/news', '/no-such-page/']) {
        const response = await fetch(`${https.url}${path}`);
        await response.arrayBuffer();
        const hsts = response.headers.get('strict-transport-security') ?? '';
        expect(Number(/max-age=(\d+)/.exec(hsts)?.[1]), path).toBeGreaterThanOrEqual(31_536_000);
        expect(hsts, path).toMatch(/includeSubDomains/i);
      }
    } finally {
      await https.stop();
    }
  });
});

describe('the Content-Security-Policy in Chromium', () => {
  it('reports a violation when an inline script is injected (the check below can fail)', async () => {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(`${site.url}/`, { waitUntil: 'networkidle' });
      const ran = await watched.page.evaluate(async () => {
        const script = document.createElement('script');
        script.textContent = 'window.__inlineRan = true;';
        document.body.append(script);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
      });
      expect(ran).toBe(false);
      expect(watched.cspViolations.length).toBeGreaterThan(0);
      expect(watched.problems.length).toBeGreaterThan(0);
    } finally {
      await watched.close();
    }
  });

  it.each(PAGES)('%s loads with no CSP violation and no other problem', async (path) => {
    const { page, problems, cspViolations, close } = await openPage(browser);
    try {
      await page.goto(`${site.url}${path}`, { waitUntil: 'networkidle' });
      if (path === '/stats/') await page.locator('[data-chart="txn"] canvas').waitFor({ state: 'visible' });
      // Every page carries the assistant's button (its script is part of what CSP must allow).
      expect(await page.getByRole('button', { name: 'Ask the assistant' }).count()).toBe(1);
      expect(cspViolations).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('runs the chat widget (code loaded later, styles, streamed reply) with no CSP violation', async () => {
    const { page, problems, cspViolations, close } = await openPage(browser, { streamed: [`${site.url}/api/chat`] });
    try {
      await page.goto(`${site.url}/news/`, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: 'Ask the assistant' }).click();
      await page.getByRole('textbox', { name: 'Your question' }).fill('Where is sellers.json?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForFunction(() => {
        const reply = document.querySelector('[data-chat-log] .chat-msg--assistant');
        return reply !== null && !reply.hasAttribute('aria-busy') && (reply.textContent ?? '') !== '';
      });
      expect(cspViolations).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
