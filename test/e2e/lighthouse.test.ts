/**
 * Lighthouse on home, /news, an article, /contact and /stats of the real server: performance,
 * accessibility, best practices and SEO each at least 95. The configuration (desktop
 * preset, simulated throttling) and its reasons are in test/e2e/browser/lighthouse-run.ts, which
 * `npm run lighthouse` runs with the same function. HTML reports go to test-results/lighthouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type Site } from '../helpers/browser.ts';
import { CATEGORIES, THRESHOLD, belowThreshold, formatTable, lighthousePages, runLighthouse } from './browser/lighthouse-run.ts';

let site: Site;

beforeAll(async () => {
  site = await startSite();
});

afterAll(async () => {
  await site?.stop();
});

describe('Lighthouse', () => {
  it(`scores every main page at least ${THRESHOLD} in every category`, { timeout: 240_000 }, async () => {
    const pages = lighthousePages();
    const results = await runLighthouse({ baseUrl: site.url, pages, reportsDir: 'test-results/lighthouse', log: () => {} });
    console.log(formatTable(results));
    expect(results.map((r) => r.path)).toEqual(pages.map((p) => p.path));
    for (const result of results) {
      expect(result.runtimeError, result.name).toBeUndefined();
      for (const category of CATEGORIES) expect(result.scores[category], `${result.name} ${category}`).not.toBeNull();
    }
    // One line per page and category under the threshold, naming the audits that cost points.
    expect(belowThreshold(results)).toEqual([]);
  });
});
