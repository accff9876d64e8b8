import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../../../bench/lib/start-command.ts';

/** The shipped unit with /srv/site pointing at this checkout, so the commands it names exist. */
function unitHere(): string {
  const dir = mkdtempSync(join(tmpdir(), 'unit-'));
  const file = join(dir, 'adtech-site.service');
  writeFileSync(file, readFileSync('deploy/adtech-site.service', 'utf8').replaceAll('/srv/site', process.cwd()));
  return file;
}

describe('the systemd unit (deploy/adtech-site.service)', () => {
  it('passes systemd-analyze verify without a warning', () => {
    const run = spawnSync('systemd-analyze', ['verify', unitHere()], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('is hardened: systemd-analyze security rates its exposure under 2.0', () => {
    const run = spawnSync('systemd-analyze', ['security', '--offline=yes', '--no-pager', unitHere()], { encoding: 'utf8' });
    const score = /Overall exposure level for \S+: ([\d.]+)/.exec(run.stdout)?.[1];
    expect(score, run.stdout.slice(-500) + run.stderr).toBeDefined();
    expect(Number(score)).toBeLessThan(2);
  });

  it('starts the production server on the pinned Node and does not restart on a bad setting', () => {
    const unit = readFileSync('deploy/adtech-site.service', 'utf8');
    expect(unit).toMatch(/^ExecStart=\/srv\/site\/node_modules\/\.bin\/node .*bin\/start\.mjs$/m);
    expect(unit).toMatch(/^RestartPreventExitStatus=.*\b78\b/m);
    expect(unit).toMatch(/^StateDirectory=adtech-site$/m);
  });

  it('runs the server with the memory settings of npm start (V8 flags, the allocator\'s environment)', () => {
    const unit = readFileSync('deploy/adtech-site.service', 'utf8');
    const start = startCommand(process.cwd());
    const exec = /^ExecStart=\S+ (.*)$/m.exec(unit)?.[1]?.split(' ');
    expect(exec).toEqual(start.args);
    const environment = new Map(/^Environment=(.*)$/m.exec(unit)?.[1]?.split(' ').map((pair) => pair.split('=', 2) as [string, string]));
    expect(Object.keys(start.env).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(start.env)) expect(environment.get(name), name).toBe(value);
  });
});
