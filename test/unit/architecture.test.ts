/**
 * The arrows of the architecture (README "Architecture", shared/architecture.md), checked on the
 * source rather than trusted: which folder may import which. Type-only imports are allowed across
 * folders (they vanish at run time: features describe the `Services` they receive by type);
 * every other import must follow the arrows. Import cycles are checked by dpdm in `npm run check`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|astro|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Runtime imports of a file (`import type` and `export type` left out), as repository paths. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specifiers.map((specifier) => relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)));
}

/** Every runtime import from `from` into one of `forbidden`, as "file -> target". */
function violations(from: string, forbidden: readonly string[], except: (file: string, target: string) => boolean = () => false): string[] {
  return filesUnder(from).flatMap((file) =>
    runtimeImports(file)
      .filter((target) => forbidden.some((dir) => target.startsWith(`${dir}/`)) && !except(file, target))
      .map((target) => `${file} -> ${target}`),
  );
}

describe('the architecture', () => {
  it('keeps the edge free of features, jobs, the database and the composition root', () => {
    expect(violations('src/server', ['src/features', 'src/app', 'src/db', 'jobs', 'src/api-docs'])).toEqual([]);
  });

  it('keeps features away from the edge, the composition root and the jobs', () => {
    // A feature publishes its OpenAPI operations with the document's shared builders.
    const openapiBuilders = (file: string, target: string) => file.endsWith('.openapi.ts') && target.startsWith('src/api-docs/');
    expect(violations('src/features', ['src/server', 'src/app', 'jobs', 'src/api-docs'], openapiBuilders)).toEqual([]);
  });

  it('keeps src/lib pure: it imports nothing of ours outside itself', () => {
    expect(violations('src/lib', ['src/app', 'src/server', 'src/features', 'src/db', 'src/api-docs', 'src/client', 'src/pages', 'jobs'])).toEqual([]);
  });

  it('lets the integrator client import only src/lib', () => {
    expect(violations('src/client', ['src/app', 'src/server', 'src/features', 'src/db', 'src/api-docs', 'src/pages', 'jobs'])).toEqual([]);
  });

  it('keeps the database layer below the features', () => {
    expect(violations('src/db', ['src/app', 'src/server', 'src/features', 'src/api-docs', 'jobs'])).toEqual([]);
  });

  it('lets jobs reach the features, never the edge', () => {
    expect(violations('jobs', ['src/server', 'src/pages'])).toEqual([]);
  });

  it('finds imports at all (the scanner is not blind)', () => {
    expect(runtimeImports('src/app/app.ts').some((target) => target.startsWith('src/server/'))).toBe(true);
    expect(violations('src/app', ['src/server'])).not.toEqual([]);
  });
});
