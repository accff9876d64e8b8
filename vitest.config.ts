import { defaultExclude, defineConfig } from 'vitest/config';
import SlowestFirst from './test/sequencer.ts';

/** Pure tests: no build, no database server (README "Scripts": `npm run test:unit`). */
const UNIT = 'test/unit/**/*.test.ts';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    // A safety net against hangs, not a speed check: the suite asserts no durations (a busy
    // machine runs a test several times slower), so the nets are wide.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Files that start servers or databases are heavier than the two cores like in parallel.
    maxWorkers: 2,
    pool: 'forks',
    // The slowest files first, so that none starts late and leaves one worker running alone.
    sequence: { sequencer: SlowestFirst },
    // Two projects so that a run of unit files alone starts nothing: vitest runs a project's
    // global setup only when the run holds files of that project. `npm test` runs both.
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT] } },
      {
        extends: true,
        test: { name: 'servers', include: ['test/**/*.test.ts'], exclude: [...defaultExclude, UNIT], globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
