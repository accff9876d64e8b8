/**
 * The order vitest starts test files in: the slowest first. Vitest's own order runs first the
 * files that took longest last time, but its record of that (node_modules/.vite) is absent from
 * a clean clone, as on CI, where it falls back to the largest files first; a short file that
 * runs for minutes (test/e2e/first-hour.test.ts: one test of a fresh clone's first hour, 340 s
 * under load) then starts last and the suite waits for it alone on one of its two workers, 5 to 6
 * minutes of the run's 25. Files of SLOWEST start first, in that order; the rest follow in vitest's
 * order. The figures are seconds measured on the two-core runner under load (a full run with the
 * json reporter); they rank the files and need updating only when a file's rank changes a lot.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOWEST: Readonly<Record<string, number>> = {
  // first-hour, run-cli.commands, data-fetch and contact-redeliver: scaled the same way by the
  // CPU before and after the compile cache and kysely loaded lazily (bench/NOTES.md, "Suite time:
  // the CLI files and first-hour"; first-hour by the middle of its spread, 0.85).
  'test/e2e/first-hour.test.ts': 290,
  'test/integration/jobs/cli/run-cli.commands.test.ts': 98,
  'test/integration/scripts/image-smoke.test.ts': 93,
  // edge-limiter, console-lighthouse, lighthouse, layout and security-headers: the full run's
  // figure scaled by the CPU the file took before and after its change (one server per engine,
  // one Chromium per file, the headless shell; bench/NOTES.md, "Suite time (browser files)"),
  // until the next full run measures them.
  'test/integration/app/edge-limiter.api-keys.test.ts': 77,
  'test/e2e/console-lighthouse.test.ts': 77,
  'test/e2e/browser/news-pagination.test.ts': 71,
  'test/e2e/memory-bounds.test.ts': 70,
  'test/e2e/lighthouse.test.ts': 65,
  'test/e2e/npm-start.test.ts': 59,
  'test/e2e/content-build.test.ts': 49,
  'test/e2e/startup-config.test.ts': 48,
  'test/e2e/startup-failures.test.ts': 47,
  'test/integration/db/storage-errors.test.ts': 41,
  'test/integration/jobs/cli/data-fetch.test.ts': 38,
  'test/integration/jobs/cli/contact-redeliver.test.ts': 31,
  'test/e2e/browser/layout.test.ts': 25,
  'test/e2e/browser/security-headers.test.ts': 14,
};

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (spec: TestSpecification) => SLOWEST[relative(spec.project.config.root, spec.moduleId).replaceAll('\\', '/')] ?? 0;
    // Projects keep vitest's order (it runs them in turn); Array.prototype.sort is stable, so
    // files not listed keep vitest's order after the listed ones.
    const project = new Map<string, number>();
    for (const spec of sorted) if (!project.has(spec.project.name)) project.set(spec.project.name, project.size);
    const rank = (spec: TestSpecification) => project.get(spec.project.name)!;
    return sorted.sort((a, b) => rank(a) - rank(b) || seconds(b) - seconds(a));
  }
}
