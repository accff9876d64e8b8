/**
 * Scheduled publishing: an article whose `createdAt` lies after the build's instant is scheduled.
 * The build writes the site as it is at the build's instant (edition 0: dist/client) and, for
 * each later publication instant, the files that change then (an edition: the new articles'
 * pages and pictures, the news list's pages, the home page, the feed, the sitemap, /api/news and
 * the search index's entry) into dist/scheduled/<instant>/, which no static host serves. The edge
 * serves each edition's files from its instant on (src/server/static-files.ts), deciding from the
 * build and its clock alone, so every instance of a fleet switches at the same instant, with no
 * restart and no request refused. Pure: the routes and the build step read it.
 */
import { newestFirst, type NewsEntry } from './news-list.ts';

/**
 * Set by the build (src/app/schedule-integration.ts, at `astro:config:setup`) to the instant, in
 * ms since the epoch, at which every route decides what is published, so all routes of one build
 * agree even when the build takes minutes.
 */
export const BUILD_INSTANT_ENV = 'NEWS_BUILD_INSTANT';

/** The folder under which the build's routes write each edition: `/scheduled-editions/<instant>/...`; moved out of dist/client after the build. */
export const EDITIONS_ROUTE = 'scheduled-editions';
export { EDITIONS_DIR } from '../../lib/editions.ts';
/** The build's schedule, written by a prerendered route and read by the build step. */
export const SCHEDULE_FILE = `${EDITIONS_ROUTE}/schedule.json`;

/** The instant the build decides from (BUILD_INSTANT_ENV), or now when it is not set (astro check, tests). */
export function buildInstant(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env[BUILD_INSTANT_ENV]);
  return Number.isFinite(value) && value > 0 ? value : Date.now();
}

/** When an entry is published: its `createdAt`, in ms since the epoch. */
export const publicationTime = (entry: NewsEntry): number => Date.parse(entry.data.createdAt);

/** Entries published at `instant` (not drafts, `createdAt` not after it), newest first. */
export function publishedAt<E extends NewsEntry>(entries: readonly E[], instant: number): E[] {
  return newestFirst(entries.filter((entry) => !entry.data.draft && publicationTime(entry) <= instant));
}

/** Whether the entry is scheduled: not a draft, published after `instant`. */
export const isScheduled = (entry: NewsEntry, instant: number): boolean => !entry.data.draft && publicationTime(entry) > instant;

export interface Edition {
  /** From when this edition is served, ms since the epoch. */
  at: number;
  /** The articles that appear at `at`. */
  ids: string[];
  /** How many articles are published from `at` on (the news list's length). */
  published: number;
}

/** The editions after `instant`: one per distinct publication time of a scheduled article, earliest first. */
export function editionsAfter(entries: readonly NewsEntry[], instant: number): Edition[] {
  const byTime = new Map<number, string[]>();
  for (const entry of entries) {
    if (!isScheduled(entry, instant)) continue;
    const at = publicationTime(entry);
    const ids = byTime.get(at) ?? [];
    ids.push(entry.id);
    byTime.set(at, ids);
  }
  let published = publishedAt(entries, instant).length;
  return [...byTime]
    .sort(([a], [b]) => a - b)
    .map(([at, ids]) => {
      published += ids.length;
      return { at, ids: ids.sort(), published };
    });
}

/** What the build step reads: the instant the build decided from, what was published then, and the editions after it. */
export interface Schedule {
  builtAt: number;
  /** Articles published at `builtAt`. */
  published: number;
  /** The newest of them (ms since the epoch), null when there is none. */
  newest: number | null;
  editions: Edition[];
}

/** The schedule of a build made at `builtAt`. */
export function scheduleOf(entries: readonly NewsEntry[], builtAt: number): Schedule {
  const published = publishedAt(entries, builtAt);
  return { builtAt, published: published.length, newest: published[0] ? publicationTime(published[0]) : null, editions: editionsAfter(entries, builtAt) };
}
