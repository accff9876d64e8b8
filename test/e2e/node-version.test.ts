/**
 * On a Node.js outside package.json "engines" every entry says so in one line and exits 78,
 * instead of failing with `Unknown file extension ".ts"` (no type stripping: the system Node 20
 * here and in CI) or ending silently with 0 (a Node.js that loads .ts but has no
 * import.meta.main, so a command's `if (import.meta.main)` is false).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, isSupportedNode } from '../../src/lib/node-version.ts';

const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; scripts: Record<string, string> };
const ENTRIES = ['src/app/main.ts', 'jobs/cli/seed.ts', 'jobs/cli/migrate.ts', 'jobs/cli/news-new.ts', 'jobs/cli/events-import.ts', 'jobs/cli/stats-materialize.ts', 'jobs/cli/contact-export.ts', 'jobs/cli/data-fetch.ts', 'deploy/render-nginx.ts'];
const LINE = /^this project needs Node\.js \^22\.19\.0 \|\| >=24\.2\.0 \(.*\); this is Node\.js (\S+): install a supported Node\.js/;

/** The machine's own node (not node_modules/.bin's), when it is one the project does not support. */
const OLD = ['/usr/bin/node', '/usr/local/bin/node']
  .map((path) => ({ path, run: spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }) }))
  .map(({ path, run }) => ({ path, version: run.status === 0 ? run.stdout.trim() : '' }))
  .find(({ version }) => version !== '' && !isSupportedNode(version));
const OLD_NODE = OLD?.path;

/** Node 24 pretending to be `version` from before any other module loads. */
function fakeVersion(version: string): string[] {
  return ['--import', `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`];
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...env, PORT: '0', JOBS_ENABLED: 'false', DATABASE_URL: ':memory:' }, timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderrLines: result.stderr.split('\n').filter(Boolean) };
}

describe('the supported Node.js versions', () => {
  it('are the same range in package.json "engines", src/lib/node-version.ts and bin/require-node.mjs', () => {
    expect(PACKAGE.engines.node).toBe(SUPPORTED_NODE);
    expect(readFileSync('bin/require-node.mjs', 'utf8')).toContain(`const SUPPORTED_NODE = '${SUPPORTED_NODE}';`);
  });

  it('are judged alike by the preload and by the .ts check, at every edge of the range', () => {
    const versions = ['20.20.2', '22.12.0', '22.17.1', '22.18.0', '22.19.0', '22.20.0', '23.5.0', '23.6.0', '23.11.1', '24.0.0', '24.1.0', '24.2.0', '24.21.0', '25.0.0', '26.1.0'];
    const judged = versions.map((version) => [version, run(process.execPath, [...fakeVersion(version), 'bin/require-node.mjs']).status === 0]);
    expect(judged).toEqual(versions.map((version) => [version, isSupportedNode(version)]));
    expect(judged.filter(([, ok]) => ok).map(([version]) => version)).toEqual(['22.19.0', '22.20.0', '24.2.0', '24.21.0', '25.0.0', '26.1.0']);
  });
});

describe.skipIf(OLD_NODE === undefined)(`an entry started with the system Node.js (${OLD_NODE})`, () => {
  it('through the npm scripts\' preload, exits 78 with one line naming the version, for the server and every command', () => {
    for (const entry of ENTRIES) {
      const result = run(OLD_NODE!, ['--import', './bin/require-node.mjs', entry, '--help']);
      expect({ entry, status: result.status, stderr: result.stderrLines }).toEqual({ entry, status: 78, stderr: [expect.stringMatching(LINE)] });
      expect(result.stderrLines[0]).toContain(`this is Node.js ${OLD!.version}:`);
    }
  });

  it('as `npm start` and `npm run demo` run it, exits 78 with that line before building or loading anything', () => {
    const oldNodeFirst = { ...process.env, PATH: `${OLD_NODE!.replace(/\/node$/, '')}:${process.env['PATH'] ?? ''}` };
    for (const script of ['start', 'demo']) {
      const result = run('/bin/sh', ['-c', PACKAGE.scripts[script]!], oldNodeFirst);
      expect({ script, status: result.status, stderr: result.stderrLines }).toEqual({ script, status: 78, stderr: [expect.stringMatching(LINE)] });
    }
  });

  it('without the preload fails on the .ts extension and names no version: why the npm scripts need it', () => {
    const result = run(OLD_NODE!, ['jobs/cli/seed.ts']);
    expect(result.status).toBe(1);
    expect(result.stderrLines.join('\n')).toMatch(/ERR_UNKNOWN_FILE_EXTENSION/);
  });
});

describe('an entry run directly on a Node.js that loads .ts but lacks import.meta.main (23.6 to 24.1)', () => {
  it('exits 78 with one line naming the version, for the server and every command, instead of doing nothing', () => {
    for (const entry of ENTRIES) {
      const result = run(process.execPath, [...fakeVersion('24.1.0'), entry, '--help']);
      expect({ entry, status: result.status, stderr: result.stderrLines, stdout: result.stdout }).toEqual({ entry, status: 78, stderr: [expect.stringMatching(LINE)], stdout: '' });
      expect(result.stderrLines[0]).toContain('this is Node.js 24.1.0:');
    }
  });

  it('on a supported version runs as usual', () => {
    const result = run(process.execPath, [...fakeVersion('24.2.0'), 'jobs/cli/migrate.ts', '--help']);
    expect(result).toMatchObject({ status: 0, stderrLines: [] });
    expect(result.stdout).toMatch(/^usage: /);
  });
});
