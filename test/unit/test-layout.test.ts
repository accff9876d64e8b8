/**
 * The tests of test/unit and test/integration mirror the source tree (docs/contributors.md,
 * "Layout"), so a file's tests are found from its path: a test file sits in the folder of the file
 * it tests, with `src/` left out (`jobs/`, `scripts/`, `bench/`, `deploy/`, `examples/` and `bin/`
 * keep their names; the repository's top-level files, such as the Dockerfile, sit at the top of
 * test/<kind>/), and its name is that file's name without its extension, then an optional suffix
 * telling several tests of one file apart, then `.test.ts`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const KINDS = ['unit', 'integration'] as const;
/** Source folders outside src/ that keep their own name under test/<kind>/. */
const OUTSIDE_SRC = new Set(['jobs', 'scripts', 'bench', 'deploy', 'examples', 'bin']);

/** Tests of no one source file, as paths under test/, each with the reason. */
const CROSS_CUTTING: Record<string, string> = {
  'unit/architecture.test.ts': 'the import arrows between all the folders of src, jobs and scripts',
  'unit/no-servers.test.ts': 'a rule about the unit tests themselves: no servers, no build',
  'unit/test-layout.test.ts': 'this rule, about where the tests themselves sit',
  'unit/contract-helper.test.ts': 'tests test/helpers/contract.ts, a helper of the contract tests, not a source file',
};

/** Every file under test/<kind>/, as paths under test/. */
function filesOf(kind: string): string[] {
  return readdirSync(join(ROOT, 'test', kind), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(join(ROOT, 'test'), join(entry.parentPath, entry.name)));
}

/** The source folders a test folder (relative to test/<kind>/) stands for: src/<folder>, or the folder itself outside src. */
function sourceFolders(folder: string): string[] {
  const top = folder.split('/')[0]!;
  const candidates = [join('src', folder), ...(folder === '' || OUTSIDE_SRC.has(top) ? [folder] : [])];
  return candidates.filter((candidate) => existsSync(join(ROOT, candidate)));
}

/** A file's name without its last extension: `contact.server.ts` -> `contact.server`, `Dockerfile` -> `Dockerfile`. */
const stem = (name: string) => name.replace(/\.[^.]+$/, '');

/** Why a test file (a path under test/) is not beside a source file, or undefined when it is. */
function misplaced(file: string): string | undefined {
  const [, ...rest] = file.split('/');
  const folder = dirname(rest.join('/')).replace(/^\.$/, '');
  const name = basename(file);
  const folders = sourceFolders(folder);
  if (folders.length === 0) return `${file}: no source folder ${folder === '' ? 'src' : `src/${folder}`}`;
  const stems = folders.flatMap((source) =>
    readdirSync(join(ROOT, source), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => stem(entry.name)),
  );
  const beside = stems.some((source) => name === `${source}.test.ts` || name.startsWith(`${source}.`));
  return beside ? undefined : `${file}: its name starts with the name of no file in ${folders.join(' or ')}`;
}

describe('the layout of the tests', () => {
  const files = KINDS.flatMap(filesOf);

  it('puts every test of test/unit and test/integration beside the source file it tests', () => {
    const tests = files.filter((file) => file.endsWith('.test.ts') && !(file in CROSS_CUTTING));
    expect(tests.length).toBeGreaterThan(100);
    expect(tests.flatMap((file) => misplaced(file) ?? [])).toEqual([]);
  });

  it('keeps helpers and data out of them: those are in test/helpers and test/fixtures', () => {
    expect(files.filter((file) => !file.endsWith('.test.ts'))).toEqual([]);
  });

  it('exempts only tests that exist', () => {
    expect(Object.keys(CROSS_CUTTING).filter((file) => !existsSync(join(ROOT, 'test', file)))).toEqual([]);
  });

  it('tells a misplaced test, by folder and by name', () => {
    expect(misplaced('unit/stats/calendar.test.ts')).toBe('unit/stats/calendar.test.ts: no source folder src/stats');
    expect(misplaced('integration/features/contact/contact-outbox.test.ts')).toMatch(/^integration\/features\/contact\/contact-outbox\.test\.ts: its name starts with the name of no file in src\/features\/contact$/);
    expect(misplaced('unit/features/contact/contact.server.group-commit.test.ts')).toBeUndefined();
    expect(misplaced('unit/jobs/cli/run-cli.commands.test.ts')).toBeUndefined();
    expect(misplaced('unit/Dockerfile.test.ts')).toBeUndefined();
  });
});
