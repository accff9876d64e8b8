/**
 * The build step of scheduled publishing (src/features/news/schedule.ts). At `astro:config:setup`
 * it fixes the instant every route of the build decides from; once the build is done it moves
 * everything that must not be served before its time out of dist/client, where static hosts and
 * nginx serve files as they are, into dist/scheduled/<instant>/:
 * - each edition's copies of the home page, the news list, the feed and /api/news (rendered under
 *   /scheduled-editions/<instant>/), at their public paths;
 * - each scheduled article's page and picture;
 * - each edition's sitemap, and the search index's files that only it has (search-index.ts).
 * The static manifest (src/server/precompress.ts) then describes each edition for the edge.
 * Listed after the sitemap integration, whose file it edits, and before the manifest's.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { BUILD_INSTANT_ENV, EDITIONS_DIR, EDITIONS_ROUTE, SCHEDULE_FILE, type Schedule } from '../features/news/schedule.ts';
import { sitemapEdition } from '../features/news/sitemap-edition.ts';
import { writeSearchIndex } from './search-index.ts';

const SITEMAP_FILE = /^sitemap-\d+\.xml$/;

/** Move `from` to `to`, making `to`'s folder; nothing when `from` does not exist. */
async function move(from: string, to: string): Promise<void> {
  if (!existsSync(from)) return;
  await mkdir(dirname(to), { recursive: true });
  await rename(from, to);
}

/** Each sitemap file of the build, rewritten as of every edition (edition 0 in place). */
async function sitemaps(client: string, scheduled: string, schedule: Schedule, site: string): Promise<void> {
  const files = (await readdir(client)).filter((name) => SITEMAP_FILE.test(name));
  const allScheduled = schedule.editions.flatMap((edition) => edition.ids);
  for (const name of files) {
    const xml = await readFile(join(client, name), 'utf8');
    const editions = [
      { dir: client, hidden: new Set(allScheduled), published: schedule.published, newest: schedule.newest },
      ...schedule.editions.map((edition, i) => ({
        dir: join(scheduled, String(edition.at)),
        hidden: new Set(schedule.editions.slice(i + 1).flatMap((later) => later.ids)),
        published: edition.published,
        newest: edition.at,
      })),
    ];
    for (const { dir, ...edition } of editions) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, name), sitemapEdition(xml, edition, site));
    }
  }
}

export function scheduleIntegration(): AstroIntegration {
  let site = '';
  let folders: { outDir: URL; client: URL } | undefined;
  return {
    name: 'adtech:schedule',
    hooks: {
      'astro:config:setup': () => {
        // Set once for the whole build (and dev server); a build may be given its instant (tests).
        process.env[BUILD_INSTANT_ENV] ??= String(Date.now());
      },
      'astro:config:done': ({ config }) => {
        site = config.site ?? '';
        folders = { outDir: config.outDir, client: config.build.client };
      },
      'astro:build:done': async ({ logger }) => {
        if (!folders) throw new Error('adtech:schedule: astro:build:done came before astro:config:done');
        const client = fileURLToPath(folders.client);
        const scheduled = fileURLToPath(new URL(`${EDITIONS_DIR}/`, folders.outDir));
        const schedule = JSON.parse(await readFile(join(client, SCHEDULE_FILE), 'utf8')) as Schedule;
        // A new build starts without an earlier build's editions.
        await rm(scheduled, { recursive: true, force: true });
        for (const edition of schedule.editions) {
          const target = join(scheduled, String(edition.at));
          await move(join(client, EDITIONS_ROUTE, String(edition.at)), target);
          for (const id of edition.ids) await move(join(client, 'news', id), join(target, 'news', id));
        }
        await rm(join(client, EDITIONS_ROUTE), { recursive: true, force: true });
        await sitemaps(client, scheduled, schedule, site);
        const search = await writeSearchIndex(client, scheduled, schedule);
        const articles = schedule.editions.reduce((sum, edition) => sum + edition.ids.length, 0);
        logger.info(`${articles} scheduled articles in ${schedule.editions.length} editions (${EDITIONS_DIR}/); search index: ${search.pages} pages, ${search.files} files, ${(search.bytes / 1024).toFixed(0)} KiB`);
      },
    },
  };
}
