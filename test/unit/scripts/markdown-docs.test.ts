/**
 * What `npm run first-hour` reads in README.md and the guides of docs/ (scripts/markdown-docs.ts):
 * the commands of their ```sh blocks, the anchors their headings make by GitHub's rules, the
 * relative links between them, and commands that would write npm's banner into a file. The last
 * block checks this repository's own documents, so a broken link or an unchecked command fails
 * here before the slow end-to-end run.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPECTATIONS } from '../../../scripts/first-hour.ts';
import { anchors, bannerRedirects, documentFiles, githubSlug, linkProblems, links, shellCommands } from '../../../scripts/markdown-docs.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const fence = '```';

/** A reader over a few in-memory files, as linkProblems takes it. */
const filesOf = (files: Record<string, string>) => (path: string) => files[path];

describe('shellCommands', () => {
  it('takes the lines of sh blocks only, joins continued lines, drops comments and blank lines, and names file and line', () => {
    const markdown = [
      '# Title',
      `${fence}sh`,
      'npm ci && npm run demo   # a trailing comment stays part of the command',
      '',
      '# a comment line',
      'curl -s -X POST http://x/api \\',
      "  -d '{}'; echo",
      fence,
      'npm run not-a-command (prose)',
      `${fence}json`,
      '{ "not": "a command" }',
      fence,
      `${fence}text`,
      'ok pub-1001',
      fence,
      '    npm run indented-prose-is-not-run',
    ].join('\n');
    expect(shellCommands(markdown, 'docs/guide.md')).toEqual([
      { file: 'docs/guide.md', line: 3, command: 'npm ci && npm run demo   # a trailing comment stays part of the command' },
      { file: 'docs/guide.md', line: 6, command: "curl -s -X POST http://x/api -d '{}'; echo" },
    ]);
  });

  it('does not end a block at a shorter fence or one of the other character', () => {
    const markdown = ['````sh', 'echo one', fence, '~~~', 'echo two', '````', 'echo prose'].join('\n');
    expect(shellCommands(markdown, 'README.md').map((c) => c.command)).toEqual(['echo one', '```', '~~~', 'echo two']);
  });

  it('reads README.md first, then the guides of docs/ by name', () => {
    const files = documentFiles(ROOT);
    expect(files[0]).toBe('README.md');
    expect(files.slice(1)).toEqual([...files.slice(1)].sort());
    expect(files).toEqual(expect.arrayContaining(['docs/operators.md', 'docs/integrators.md', 'docs/editors.md', 'docs/contributors.md']));
  });

  it('keeps the commands of several files apart, each with its own file and line', () => {
    const docs = { 'README.md': `${fence}sh\necho readme\n${fence}\n`, 'docs/a.md': `intro\n\n${fence}sh\necho a\n${fence}\n` };
    const commands = Object.entries(docs).flatMap(([file, text]) => shellCommands(text, file));
    expect(commands).toEqual([
      { file: 'README.md', line: 2, command: 'echo readme' },
      { file: 'docs/a.md', line: 4, command: 'echo a' },
    ]);
  });
});

describe('githubSlug and anchors', () => {
  it.each([
    ['Architecture', 'architecture'],
    ['Operations: backfill and import', 'operations-backfill-and-import'],
    ['The command line: data:fetch', 'the-command-line-datafetch'],
    ["The README's commands", 'the-readmes-commands'],
    ['What `npm test` needs', 'what-npm-test-needs'],
    ['Proof of work (ALTCHA), optional', 'proof-of-work-altcha-optional'],
    ['Fleet: PostgreSQL, Redis, several instances', 'fleet-postgresql-redis-several-instances'],
    ['Node.js', 'nodejs'],
    ['A [linked](https://example.com) *word* and snake_case', 'a-linked-word-and-snake_case'],
    ['Café crème 2', 'café-crème-2'],
  ])('%s -> #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers repeated headings, skips headings inside code, and takes explicit anchors', () => {
    const markdown = ['# Usage', '## Usage', '### Usage ##', `${fence}sh`, '# Not a heading', fence, '<a id="custom"></a>', '#NoSpaceIsNoHeading'].join('\n');
    expect([...anchors(markdown)]).toEqual(['usage', 'usage-1', 'usage-2', 'custom']);
  });
});

describe('links', () => {
  it('finds inline links, images and reference definitions, not those inside code', () => {
    const markdown = ['See [a](docs/a.md#x) and ![pic](img.png "title").', 'Not `[b](b.md)` in code.', `${fence}`, '[c](c.md)', fence, '[ref]: docs/ref.md'].join('\n');
    expect(links(markdown, 'README.md').map((l) => [l.line, l.target])).toEqual([
      [1, 'docs/a.md#x'],
      [1, 'img.png'],
      [6, 'docs/ref.md'],
    ]);
  });
});

describe('linkProblems', () => {
  const docs = {
    'README.md': ['# Project', '## Try it', '[ops](docs/operators.md#deployment) [here](#try-it) [site](https://example.com) [mail](mailto:a@example.com)'].join('\n'),
    'docs/operators.md': ['# Operators', '## Deployment', 'Back to [the README](../README.md#try-it), [integrators](integrators.md#api-keys).'].join('\n'),
    'docs/integrators.md': ['# Integrators', '## API keys'].join('\n'),
  };

  it('accepts links that resolve, relative to the linking file, and leaves other sites alone', () => {
    expect(linkProblems(Object.keys(docs), filesOf(docs))).toEqual({ checked: 4, problems: [] });
  });

  it('names a missing file, a missing anchor, in the same file too, and a path out of the repository', () => {
    const broken = {
      ...docs,
      'README.md': ['# Project', '[a](docs/missing.md) [b](docs/operators.md#deploy) [c](#nowhere) [d](../outside.md)'].join('\n'),
    };
    expect(linkProblems(['README.md'], filesOf(broken)).problems.map(({ line, target, problem }) => ({ line, target, problem }))).toEqual([
      { line: 2, target: 'docs/missing.md', problem: 'docs/missing.md does not exist' },
      { line: 2, target: 'docs/operators.md#deploy', problem: 'docs/operators.md has no heading whose anchor is #deploy' },
      { line: 2, target: '#nowhere', problem: 'README.md has no heading whose anchor is #nowhere' },
      { line: 2, target: '../outside.md', problem: '../outside.md points outside the repository' },
    ]);
  });

  it('checks only that a file other than Markdown exists', () => {
    const withExample = { 'README.md': '[example](examples/x.mjs#L3)', 'examples/x.mjs': 'code' };
    expect(linkProblems(['README.md'], filesOf(withExample)).problems).toEqual([]);
  });
});

describe('bannerRedirects', () => {
  it('finds `npm run` without -s sending stdout to a file, in sh blocks and inline code, and nothing else', () => {
    const markdown = `${fence}sh
npm run fleet:nginx -- --upstream a:1 > nginx.conf
npm run -s data:fetch -- --from D --to D > stats.csv
npm run --silent contact:export > contacts.csv
npm run build 2> build.log
npm run demo
${fence}
Render it with \`npm run contact:export -- --bom > contacts.csv\` or \`npm run -s api-keys -- list > keys.txt\`.`;
    expect(bannerRedirects(markdown, 'docs/x.md')).toEqual([
      { file: 'docs/x.md', line: 2, command: 'npm run fleet:nginx -- --upstream a:1 > nginx.conf' },
      { file: 'docs/x.md', line: 8, command: 'npm run contact:export -- --bom > contacts.csv' },
    ]);
  });
});

describe("this repository's README.md and guides", () => {
  const files = documentFiles(ROOT);
  const read = (path: string) => (existsSync(join(ROOT, path)) ? (statSync(join(ROOT, path)).isDirectory() ? '' : readFileSync(join(ROOT, path), 'utf8')) : undefined);

  it('link to files and headings that exist', () => {
    const { checked, problems } = linkProblems(files, read);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('show every command with an expectation of scripts/first-hour.ts, and exactly one', () => {
    const commands = files.flatMap((file) => shellCommands(read(file)!, file));
    const unmatched = commands.filter((c) => EXPECTATIONS.filter((e) => e.command.test(c.command)).length !== 1);
    expect(unmatched).toEqual([]);
    expect(commands.length).toBeGreaterThan(20);
  });

  it('send no npm banner into a file', () => {
    expect(files.flatMap((file) => bannerRedirects(read(file)!, file))).toEqual([]);
  });

  it('keep README.md short, with a compact Architecture section (flow, walk-throughs, names) and library choices', () => {
    const readme = read('README.md')!;
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const architecture = readme.slice(readme.indexOf('\n## Architecture\n') + 1).split(/\n(?=## )/)[0]!;
    expect(architecture.split('\n').length).toBeLessThanOrEqual(80);
    expect(architecture).toContain('### Libraries and why');
    expect(readme.startsWith(`# Ad-tech public site and community data API\n\n${fence}sh\nnpm ci && npm run demo`)).toBe(true);
  });
});
