/**
 * The arrows of the architecture (README "Architecture", shared/architecture.md), checked on the
 * source rather than trusted: which folder may import which. Every import counts: `import` and
 * `import type`, `export ... from`, side-effect imports and `import()`. A type import does vanish
 * at run time, but it still ties the importer to the other folder's shapes, so a feature says
 * what it needs in its own narrow types instead of naming the composition root's. Import cycles
 * are checked by dpdm in `npm run check`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');


function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|astro|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The script parts of an Astro component: its frontmatter and its `<script>` elements. */
function astroScripts(source: string): string {
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(source)?.[1] ?? '';
  return [frontmatter, ...[...source.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!)].join('\n');
}

/**
 * Every import of one of our files by `file`, as repository paths: TypeScript's own
 * pre-processor finds them (all the kinds above, `import('...')` in type positions too) and
 * does not mistake an import in a comment or a string for one.
 */
function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(file.endsWith('.astro') ? astroScripts(source) : source, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
    .map((specifier) => relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)));
}

const within = (target: string, dirs: readonly string[]) => dirs.some((dir) => target.startsWith(`${dir}/`));

type Exception = (file: string, target: string) => boolean;
const none: Exception = () => false;

/** Every import from a file under `from` that `breaks` a rule, as "file -> target". */
function violations(from: string, breaks: (file: string, target: string) => boolean): string[] {
  return filesUnder(from).flatMap((file) =>
    importsOf(file)
      .filter((target) => breaks(file, target))
      .map((target) => `${file} -> ${target}`),
  );
}

/** Imports from `from` into one of `forbidden`. */
const importsInto = (from: string, forbidden: readonly string[]) => violations(from, (_file, target) => within(target, forbidden));

/** Imports from `from` of anything of ours outside `allowed`. */
const importsOutside = (from: string, allowed: readonly string[], except: Exception = none) =>
  violations(from, (file, target) => !within(target, allowed) && !except(file, target));

describe('the architecture', () => {
  it('keeps the edge on src/lib and the route table: no jobs, database, composition root or document', () => {
    // The one route table binds each endpoint to its path: the edge's only way to a feature's handler.
    const routeTable: Exception = (file, target) => file === 'src/server/routes.ts' && target.startsWith('src/features/');
    expect(importsOutside('src/server', ['src/server', 'src/lib'], routeTable)).toEqual([]);
  });

  it('keeps features on src/lib, src/db and each other: no edge, composition root, jobs, pages or document assembler', () => {
    expect(importsOutside('src/features', ['src/features', 'src/lib', 'src/db'])).toEqual([]);
  });

  it('keeps src/lib pure: it imports nothing of ours outside itself', () => {
    expect(importsOutside('src/lib', ['src/lib'])).toEqual([]);
  });

  it('builds the OpenAPI building blocks the features use (src/lib/openapi) on src/lib alone', () => {
    expect(filesUnder('src/lib/openapi').length).toBeGreaterThan(0);
    expect(importsOutside('src/lib/openapi', ['src/lib'])).toEqual([]);
  });

  it('lets the document assembler (src/api-docs) import the features and src/lib, never the composition root or the edge', () => {
    expect(importsOutside('src/api-docs', ['src/api-docs', 'src/features', 'src/lib'])).toEqual([]);
  });

  it('lets the integrator client import only src/lib', () => {
    expect(importsOutside('src/client', ['src/client', 'src/lib'])).toEqual([]);
  });

  it('keeps the database layer below the features', () => {
    expect(importsOutside('src/db', ['src/db', 'src/lib'])).toEqual([]);
  });

  it('keeps jobs/ to command-line tools: nothing in src/ imports jobs/ (timers live in src/app/jobs, started by the composition root)', () => {
    expect(importsInto('src', ['jobs'])).toEqual([]);
    expect(filesUnder('jobs').filter((file) => !file.startsWith('jobs/cli/'))).toEqual([]);
  });

  it('passes what crosses a request as an argument: no AsyncLocalStorage in src/ or jobs/ (a deadline is a Deadline handed down, src/db/deadline.ts)', () => {
    const ambient = [...filesUnder('src'), ...filesUnder('jobs')].filter((file) => /AsyncLocalStorage|async_hooks/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(ambient).toEqual([]);
    // The scanner reads what it claims: this file names it.
    expect(readFileSync(join(ROOT, 'test/unit/architecture.test.ts'), 'utf8')).toMatch(/AsyncLocalStorage/);
  });

  it('lets jobs reach the features, never the edge', () => {
    expect(importsInto('jobs', ['src/server', 'src/pages'])).toEqual([]);
  });

  it('finds every kind of import (the scanner is not blind)', () => {
    expect(importsOf('src/app/app.ts').some((target) => target.startsWith('src/server/'))).toBe(true);
    // `import type`, `export ... from` and `export type ... from`.
    expect(importsOf('src/app/services.ts')).toContain('src/features/chat/assistant-index.ts');
    expect(importsOf('src/features/ratelimit/index.ts')).toEqual(expect.arrayContaining(['src/features/ratelimit/client-key.ts', 'src/features/ratelimit/limiter.ts']));
    // `import()` in a type position, and in an Astro component's <script>.
    expect(importsOf('src/env.d.ts')).toContain('src/app/services.ts');
    expect(importsOf('src/components/ChatWidget.astro')).toContain('src/features/chat/widget.client.ts');
    expect(importsInto('src/app', ['src/server'])).not.toEqual([]);
    expect(importsOutside('src/app', ['src/app'])).not.toEqual([]);
  });
});

/** Style guide (shared/style.md): no function over 80 lines and no file over 300 lines in src/ and jobs/. */
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 300;

/** The TypeScript sources the size limits cover. */
const sized = () => [...filesUnder('src'), ...filesUnder('jobs')].filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));

/** Lines a file has (a final newline ends the last line, it does not start another). */
const lineCount = (source: string) => source.split('\n').length - (source.endsWith('\n') ? 1 : 0);

/**
 * Every function of `file` longer than `limit` lines, as "file:line name (n lines)": declarations,
 * methods, accessors, constructors, arrows and function expressions, each counted on its own
 * (an inner function's lines count in its outer one too), from TypeScript's own parser.
 */
function longFunctions(file: string, limit: number): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const name = node.name?.getText(source) ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(source) : '(anonymous)');
      if (last - first + 1 > limit) found.push(`${file}:${first + 1} ${name} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size limits', () => {
  it(`has no function over ${MAX_FUNCTION_LINES} lines in src/ or jobs/`, () => {
    expect(sized().flatMap((file) => longFunctions(file, MAX_FUNCTION_LINES))).toEqual([]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines in src/ or jobs/`, () => {
    const over = sized()
      .map((file) => [file, lineCount(readFileSync(join(ROOT, file), 'utf8'))] as const)
      .filter(([, lines]) => lines > MAX_FILE_LINES)
      .map(([file, lines]) => `${file} (${lines} lines)`);
    expect(over).toEqual([]);
  });

  it('measures what it claims (the checks are not blind)', () => {
    // This very test file has a describe callback of more than 20 lines, and is over 100 lines.
    expect(longFunctions('test/unit/architecture.test.ts', 20).some((found) => found.includes('(anonymous)'))).toBe(true);
    expect(longFunctions('test/unit/architecture.test.ts', 2).some((found) => found.includes(' longFunctions '))).toBe(true);
    expect(lineCount(readFileSync(join(ROOT, 'test/unit/architecture.test.ts'), 'utf8'))).toBeGreaterThan(100);
    expect(sized()).toContain('jobs/cli/run-cli.ts');
    expect(sized().some((file) => file.startsWith('src/features/'))).toBe(true);
  });
});
