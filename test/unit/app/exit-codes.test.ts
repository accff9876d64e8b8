/**
 * Every exit status a command in jobs/cli can end with is in the exit-code table (README.md, or
 * wherever the docs keep the "Exit codes" section), read from the source rather than trusted:
 * the sysexits constants a command names and the literal statuses it returns. A status only some
 * commands use must name them, in its row or in a sentence of the section; the statuses of the
 * frame every command runs in (run-cli.ts and the database classification) need only a row.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as exitCodes from '../../../src/app/exit-codes.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Statuses a source text can produce: the sysexits constants its code names, and literal `return N` / `? N : M`. */
function statusesIn(text: string): Set<number> {
  const source = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '');
  const named = [...source.matchAll(/\bEX_[A-Z]+\b/g)].map(([name]) => {
    const value = (exitCodes as Record<string, unknown>)[name];
    if (typeof value !== 'number') throw new Error(`${name} is not in src/app/exit-codes.ts`);
    return value;
  });
  const literal = [...source.matchAll(/\breturn (\d+);|\? (\d+) : (\d+)/g)].flatMap((m) => m.slice(1).filter(Boolean).map(Number));
  return new Set([...named, ...literal]);
}

/** The "Exit codes" section: the README's or a docs/ page's, whichever has it. */
function exitCodeSection(): string {
  const docs = existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`) : [];
  for (const file of ['README.md', ...docs]) {
    const match = /^(#+) Exit codes\n([\s\S]*?)(?=^#{1,6} |(?![\s\S]))/m.exec(read(file));
    if (match) return match[2]!;
  }
  throw new Error('no "Exit codes" section in README.md or docs/');
}

const section = exitCodeSection();
const rows = new Map(section.split('\n').flatMap((line) => (/^\| (\d+) \|/.test(line) ? [[Number(/^\| (\d+) \|/.exec(line)![1]), line] as const] : [])));
const prose = section.split('\n').filter((line) => !line.startsWith('|')).join(' ').split(/(?<=\.) /);

/** The npm script that runs each command, e.g. jobs/cli/events-import.ts -> events:import. */
const scripts = Object.entries(JSON.parse(read('package.json')).scripts as Record<string, string>);
const commands = readdirSync(join(ROOT, 'jobs/cli'))
  .filter((file) => file.endsWith('.ts') && read(`jobs/cli/${file}`).includes('runCli('))
  .filter((file) => file !== 'run-cli.ts')
  .map((file) => ({ file, script: scripts.find(([, line]) => line.endsWith(` jobs/cli/${file}`))?.[0] ?? basename(file, '.ts') }));

/** What every command may exit with: run-cli.ts's own statuses and the database classification's. */
const frame = new Set([0, ...statusesIn(read('jobs/cli/run-cli.ts')), ...statusesIn(/export function databaseFailure[\s\S]*?\n}\n/.exec(read('src/app/exit-codes.ts'))![0])]);

describe('the exit-code table', () => {
  it('has a row for each status of the frame every command runs in', () => {
    expect([...frame].sort((a, b) => a - b)).toEqual([0, 64, 69, 70, 75, 78]);
    for (const status of frame) expect(rows.has(status), `no row for ${status}`).toBe(true);
  });

  it.each(commands)('names $script beside every status of its own ($file)', ({ file, script }) => {
    const own = [...statusesIn(read(`jobs/cli/${file}`))].filter((status) => !frame.has(status));
    const undocumented = own.filter((status) => {
      const inRow = rows.get(status)?.includes(script) ?? false;
      const inProse = prose.some((sentence) => sentence.includes(script) && new RegExp(`\\b${status}\\b`).test(sentence));
      return !inRow && !inProse;
    });
    expect(undocumented, `statuses of ${script} missing from the exit-code table`).toEqual([]);
  });
});
