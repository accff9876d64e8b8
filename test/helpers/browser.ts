/**
 * The shared harness of the browser tests (test/e2e/browser): Debian's Chromium driven by
 * playwright-core, the real server (`node src/app/main.ts`) with a few materialized days in a
 * temp SQLite file, `useBrowserSite()` to have both for one test file, and a watcher that records
 * everything that went wrong on a page so each test can assert it stayed clean.
 *
 * Chromium runs headless with the flags a machine without internet needs: background
 * networking, component updates, sync and QUIC off (otherwise it keeps dialling Google and the
 * refused connections flood the log), no sandbox (containers run it as root), no GPU.
 * `chromium.launch` gives every run a fresh temporary profile.
 *
 * The page tests drive Debian's chromium-headless-shell, the same engine without the browser's
 * window layer, which is what Playwright itself runs for `headless: true`. The full browser in its
 * new headless mode spent about four times the CPU on the same page loads (renderer 5.3 s against
 * 0.9 s over ten loads; security-headers.test.ts 27 s of CPU against 9 s), and the suite is
 * CPU-bound (bench/NOTES.md, "Suite time (browser files)"). Lighthouse keeps the full browser
 * (CHROMIUM_PATH) in the new headless mode its documentation runs: the shell saved it little
 * (19 s of CPU against 22 s for the five pages of `npm run lighthouse`, same scores).
 *
 * Set E2E_DIST_DIR to serve another Astro build than ./dist (e.g. one made with ASTRO_OUT_DIR).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ConsoleMessage, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { startServer, tempSqliteUrl, type RunningServer } from './server.ts';

/** The full browser, for Lighthouse (test/e2e/browser/lighthouse-run.ts). */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** The headless shell the page tests drive (see the file comment). */
export const HEADLESS_SHELL_PATH = process.env['CHROMIUM_HEADLESS_SHELL_PATH'] ?? '/usr/bin/chromium-headless-shell';

/** Flags for a headless Chromium on a machine without internet (see the file comment). */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where screenshots go; CI keeps test-results/ as an artifact (it is in .gitignore). */
export const SCREENSHOT_DIR = resolve('test-results', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(HEADLESS_SHELL_PATH)) {
    throw new Error(`the browser tests need ${HEADLESS_SHELL_PATH}: Debian package chromium-headless-shell (\`bash test/system-deps.sh\` installs it), or set CHROMIUM_HEADLESS_SHELL_PATH`);
  }
  return chromium.launch({ executablePath: HEADLESS_SHELL_PATH, headless: true, args: [...CHROMIUM_FLAGS] });
}

// --- The server and its data ------------------------------------------------------------------

const DAY_MS = 86_400_000;

/** YYYY-MM-DD of the UTC day `offset` days from today (-1: yesterday). */
export function utcDay(offset: number, nowMs = Date.now()): string {
  return new Date(Math.floor(nowMs / DAY_MS) * DAY_MS + offset * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Materialized figures for the `days` complete UTC days before today, so /stats and the data API
 * have something to show. The numbers vary by day (a weekly shape) so charts have real bars.
 */
export async function seedDailyStats(databaseUrl: string, days: number, nowMs = Date.now()): Promise<void> {
  const handle = createDb(databaseUrl);
  try {
    const migration = await migrateToLatest(handle.kysely, handle.engine);
    if (migration.error) throw migration.error;
    const rows = Array.from({ length: days }, (_, i) => {
      const txn = 40_000 + ((i * 7919) % 9_000) + (i % 7) * 3_000;
      return { day: utcDay(-days + i, nowMs), txn_count: txn, impr_count: txn * 23 + (i % 5) * 1_111, revenue_minor: txn * 37 + i, materialized_at: nowMs };
    });
    await handle.kysely.insertInto('daily_stat').values(rows).execute();
  } finally {
    await handle.close();
  }
}

/** The contact submissions the server stored, oldest first, by their form fields. */
export async function storedSubmissions(databaseUrl: string) {
  const handle = createDb(databaseUrl);
  try {
    return await handle.kysely.selectFrom('contact_submission').select(['name', 'job_title', 'work_email', 'priority', 'message']).orderBy('id').execute();
  } finally {
    await handle.close();
  }
}

export interface Site {
  server: RunningServer;
  /** The server's origin, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The SQLite file the server uses; open it with createDb to check what was stored. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Days of figures a started site has (more than the /stats page's default 31). */
export const SEEDED_DAYS = 90;

/** Start the real server against a fresh SQLite file holding SEEDED_DAYS of daily figures. */
export async function startSite(env: Record<string, string> = {}): Promise<Site> {
  const databaseUrl = env['DATABASE_URL'] ?? tempSqliteUrl();
  if (!databaseUrl.startsWith('postgres')) await seedDailyStats(databaseUrl, SEEDED_DAYS);
  const dist = process.env['E2E_DIST_DIR'];
  const server = await startServer({ ...(dist ? { DIST_DIR: dist } : {}), ...env, DATABASE_URL: databaseUrl });
  return {
    server,
    url: server.url,
    databaseUrl,
    stop: async () => {
      await server.stop();
    },
  };
}

/** What a browser test file holds: the site and a browser (only contexts are made from it, see openPage). */
export interface BrowserSite {
  site: Site;
  browser: Pick<Browser, 'newContext'>;
}

/**
 * Start the site and launch Chromium before the file's tests (together: neither waits for the
 * other), close both after them. The returned objects are usable inside tests and hooks.
 */
export function useBrowserSite(env: Record<string, string> = {}): BrowserSite {
  let started: { site: Site; browser: Browser } | undefined;
  const get = () => {
    if (!started) throw new Error('useBrowserSite: the site and browser exist only inside tests and hooks, once beforeAll has run');
    return started;
  };
  beforeAll(async () => {
    const [site, browser] = await Promise.allSettled([startSite(env), launchBrowser()]);
    if (site.status === 'fulfilled' && browser.status === 'fulfilled') {
      started = { site: site.value, browser: browser.value };
      return;
    }
    // One of them started: close it, or its process outlives the file.
    if (site.status === 'fulfilled') await site.value.stop();
    if (browser.status === 'fulfilled') await browser.value.close();
    throw site.status === 'rejected' ? site.reason : (browser as PromiseRejectedResult).reason;
  });
  afterAll(async () => {
    await started?.browser.close();
    await started?.site.stop();
  });
  return {
    site: {
      get server() {
        return get().site.server;
      },
      get url() {
        return get().site.url;
      },
      get databaseUrl() {
        return get().site.databaseUrl;
      },
      stop: () => get().site.stop(),
    },
    browser: { newContext: (options) => get().browser.newContext(options) },
  };
}

// --- Watching a page --------------------------------------------------------------------------

/** A response a test expects to fail, e.g. the 404 document itself or a deliberate 400. */
export interface ExpectedFailure {
  /** The full URL, or a pattern it must match. */
  url: string | RegExp;
  /** The status expected; any status >= 400 when absent. */
  status?: number;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /**
   * Everything that went wrong so far, one line each: console errors, uncaught exceptions,
   * failed requests, responses >= 400 that were not expected, CSP violations. A clean page has
   * none, and every test asserts that.
   */
  problems: string[];
  /** CSP violations and warnings alone (also in `problems`), from `securitypolicyviolation` events and the console. */
  cspViolations: string[];
  /** Mark one more failure as expected (before it happens). */
  expectFailure(failure: ExpectedFailure): void;
  /** Mark responses the page reads as a stream (see WatchOptions.streamed). */
  expectStream(url: string | RegExp): void;
  close(): Promise<void>;
}

export interface WatchOptions extends Pick<BrowserContextOptions, 'javaScriptEnabled' | 'viewport' | 'colorScheme' | 'locale'> {
  expected?: ExpectedFailure[];
  /**
   * URLs whose successful responses the page reads with `response.body.getReader()`. Chromium
   * reports such a request as failed (net::ERR_ABORTED) even when the page read it to the end
   * (microsoft/playwright#42742; the same response read with `text()` is reported finished).
   * For these URLs only, and only after a response below 400 arrived, that report is not a
   * problem: the test must then prove the stream completed from what the page shows.
   */
  streamed?: Array<string | RegExp>;
}

function matches(failure: ExpectedFailure, url: string, status: number): boolean {
  const urlOk = typeof failure.url === 'string' ? failure.url === url : failure.url.test(url);
  return urlOk && (failure.status === undefined ? status >= 400 : failure.status === status);
}

/** Chromium's own console line for a response >= 400: "Failed to load resource: ... status of 404". */
const FAILED_RESOURCE = /^Failed to load resource: the server responded with a status of \d+/;

/** CSP violations as Chromium words them in the console (CSP3 section 5.3 reports them there). */
const CSP_CONSOLE = /Content Security Policy/i;

/** A marker the init script prints, so the harness can tell CSP events from other errors. */
const CSP_EVENT_PREFIX = 'securitypolicyviolation:';

/**
 * A new context and page whose problems are recorded from the first request on. Each page gets
 * its own context, so storage (the chat's sessionStorage) never leaks between tests.
 */
export async function openPage(browser: Pick<Browser, 'newContext'>, options: WatchOptions = {}): Promise<WatchedPage> {
  const { expected = [], streamed = [], ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  // Reported as a console error so it is caught like one; runs before any page script.
  await context.addInitScript((prefix: string) => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`${prefix} ${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'} in ${event.sourceFile || event.documentURI}:${event.lineNumber}`);
    });
  }, CSP_EVENT_PREFIX);
  const page = await context.newPage();
  const problems: string[] = [];
  const cspViolations: string[] = [];
  const allowed = [...expected];
  const isExpected = (url: string, status: number) => allowed.some((failure) => matches(failure, url, status));
  const streams = [...streamed];
  const isStream = (url: string) => streams.some((pattern) => (typeof pattern === 'string' ? pattern === url : pattern.test(url)));
  /** Requests that received a response below 400 (for the streamed-body rule above). */
  const answered = new WeakSet<Request>();
  /**
   * Top-level navigations so far, and how many there had been when each request started: a
   * subresource still loading when the page navigates away (a favicon while a link is followed)
   * is cancelled by the browser (net::ERR_ABORTED). That is the page moving on, not a failure.
   */
  let navigations = 0;
  const startedAt = new WeakMap<Request, number>();
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigations++;
    startedAt.set(request, navigations);
  });
  const leftBehind = (request: Request) => !request.isNavigationRequest() && navigations > (startedAt.get(request) ?? navigations);

  page.on('console', (message: ConsoleMessage) => {
    const text = message.text();
    // Any console line about the policy counts, warnings included (a misplaced directive is one).
    const csp = text.startsWith(CSP_EVENT_PREFIX) || CSP_CONSOLE.test(text);
    if (csp) cspViolations.push(text);
    if (message.type() !== 'error' && !csp) return;
    // Chromium's echo of a response >= 400: the response handler below judges those (expected or not).
    if (FAILED_RESOURCE.test(text)) return;
    problems.push(`console error: ${text}${message.location().url ? ` (${message.location().url})` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught exception: ${error.message}`));
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? 'unknown';
    if (error === 'net::ERR_ABORTED' && answered.has(request) && isStream(request.url())) return;
    if (error === 'net::ERR_ABORTED' && leftBehind(request)) return;
    problems.push(`request failed: ${request.method()} ${request.url()}: ${error}`);
  });
  page.on('response', (response) => {
    const status = response.status();
    if (status < 400) answered.add(response.request());
    if (status >= 400 && !isExpected(response.url(), status)) problems.push(`HTTP ${status}: ${response.request().method()} ${response.url()}`);
  });

  return {
    page,
    context,
    problems,
    cspViolations,
    expectFailure: (failure) => allowed.push(failure),
    expectStream: (url) => streams.push(url),
    close: () => context.close(),
  };
}

/** A full-page screenshot at test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Run `body` on a watched page and close it: the page must end without a problem (console error,
 * uncaught exception, failed or unexpected >= 400 request, CSP violation), and is closed whatever
 * happened.
 */
export async function withPage(browser: Pick<Browser, 'newContext'>, options: WatchOptions, body: (page: Page, watched: WatchedPage) => Promise<void>): Promise<void>;
export async function withPage(browser: Pick<Browser, 'newContext'>, body: (page: Page, watched: WatchedPage) => Promise<void>): Promise<void>;
export async function withPage(
  browser: Pick<Browser, 'newContext'>,
  optionsOrBody: WatchOptions | ((page: Page, watched: WatchedPage) => Promise<void>),
  maybeBody?: (page: Page, watched: WatchedPage) => Promise<void>,
): Promise<void> {
  const [options, body] = typeof optionsOrBody === 'function' ? [{}, optionsOrBody] : [optionsOrBody, maybeBody!];
  const watched = await openPage(browser, options);
  try {
    await body(watched.page, watched);
    expect(watched.problems).toEqual([]);
  } finally {
    await watched.close();
  }
}
