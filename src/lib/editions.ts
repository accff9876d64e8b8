/**
 * Where a build keeps its scheduled editions (src/features/news/schedule.ts): below the build's
 * folder (DIST_DIR), one folder per instant (ms since the epoch), beside dist/client so that no
 * static host serves them. Shared by the build step and the edge, which serves each from its instant.
 */
export const EDITIONS_DIR = 'scheduled';
