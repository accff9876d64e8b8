/**
 * The prebuilt pages carry absolute URLs fixed at build time, so a build for :4321 served with
 * `PORT=4538 npm start` links to :4321. The server says so once at start, naming both origins and
 * the rebuild; it is silent when the build matches what it serves.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.ts';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/**
 * The real build in dist/ (linked), with a sitemap index as @astrojs/sitemap writes it for
 * `origin`. Inside the project (test-results/, ignored by git) so the server's modules resolve
 * node_modules.
 */
function buildMadeFor(origin: string): string {
  mkdirSync('test-results', { recursive: true });
  const dist = resolve(mkdtempSync(join('test-results', 'build-origin-')));
  scratch.push(dist);
  symlinkSync(resolve('dist/server'), join(dist, 'server'));
  mkdirSync(join(dist, 'client'));
  for (const name of readdirSync('dist/client')) {
    if (name !== 'sitemap-index.xml') symlinkSync(resolve('dist/client', name), join(dist, 'client', name));
  }
  writeFileSync(
    join(dist, 'client', 'sitemap-index.xml'),
    `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-0.xml</loc></sitemap></sitemapindex>`,
  );
  return dist;
}

/** Every line the server wrote from start to a graceful stop. */
async function linesOfARun(env: Record<string, string>): Promise<{ url: string; lines: string[] }> {
  const server = await startServer(env);
  // One request first: main.ts installs its SIGTERM handler just after the 'listening' line.
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  expect(await server.stop()).toBe(0);
  for (let waited = 0; waited < 2_000 && !server.output.some((line) => line.includes('"msg":"stopped"')); waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: server.url, lines: server.output };
}

const aboutTheBuild = (lines: string[]) => lines.filter((line) => line.includes('"builtFor"'));

describe('a build served on another origin than it was made for', () => {
  it('is warned about in one line naming both origins and how to rebuild', async () => {
    const { url, lines } = await linesOfARun({ DIST_DIR: buildMadeFor('http://127.0.0.1:4321') });
    const warnings = aboutTheBuild(lines).map((line) => JSON.parse(line) as { level: string; builtFor: string; servedAs: string; msg: string });
    expect(warnings).toEqual([{ level: 'warn', time: expect.any(String), pid: expect.any(Number), builtFor: 'http://127.0.0.1:4321', servedAs: url, msg: expect.any(String) }]);
    expect(warnings[0]!.msg).toContain(`made for http://127.0.0.1:4321 but the site is served as ${url}`);
    expect(warnings[0]!.msg).toContain(`SITE_URL=${url} npm run build`);
  });

  it('is not warned about when SITE_URL is the origin the build was made for', async () => {
    const { lines } = await linesOfARun({ SITE_URL: 'https://ads.example.test', DIST_DIR: buildMadeFor('https://ads.example.test') });
    expect(lines.some((line) => line.includes('"msg":"listening"'))).toBe(true);
    expect(aboutTheBuild(lines)).toEqual([]);
  });

  it('is not warned about when only localhost and 127.0.0.1 differ, which reach the same server', async () => {
    const { lines } = await linesOfARun({ SITE_URL: 'http://127.0.0.1:4321', DIST_DIR: buildMadeFor('http://localhost:4321') });
    expect(aboutTheBuild(lines)).toEqual([]);
  });
});
