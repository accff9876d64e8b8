/**
 * Test helper: `astro build` of a throw-away copy of the repository with articles of the test's
 * own in content/news (bench/scenarios/astro-build.ts makes the copy), in its own output and
 * cache folders, so neither ./dist nor a parallel build is touched.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSiteCopy } from '../../bench/scenarios/astro-build.ts';
import { runOwned } from './processes.ts';

export interface FixtureArticle {
  heading: string;
  createdAt: string;
  body: string;
  draft?: boolean;
}

/** The Markdown file of a fixture article. */
export function articleFile({ heading, createdAt, body, draft }: FixtureArticle): string {
  return `---\nheading: ${JSON.stringify(heading)}\ncreatedAt: ${createdAt}\n${draft ? 'draft: true\n' : ''}---\n\n${body}\n`;
}

export interface BuiltSite {
  /** The copy's build folder (DIST_DIR). */
  dist: string;
  /** Remove the copy and its build. */
  remove(): void;
}

/** Build a copy of the repository with `articles` (by id) added to content/news. */
export async function buildSiteWith(articles: Record<string, FixtureArticle>, prefix: string): Promise<BuiltSite> {
  const work = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const copy = join(work, 'site');
  makeSiteCopy(process.cwd(), copy, 0);
  for (const [id, article] of Object.entries(articles)) writeFileSync(join(copy, 'content', 'news', `${id}.md`), articleFile(article));
  await runOwned(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
    cwd: copy,
    // Not vitest's environment: its workers carry Vite's DEV=1, MODE=test and NODE_ENV=test,
    // which Astro would read into import.meta.env and build the drafts too.
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      NODE_ENV: 'production',
      ASTRO_OUT_DIR: join(copy, 'dist'),
      ASTRO_CACHE_DIR: join(work, 'astro-cache'),
      ASTRO_TELEMETRY_DISABLED: '1',
    },
  });
  return { dist: join(copy, 'dist'), remove: () => rmSync(work, { recursive: true, force: true }) };
}
