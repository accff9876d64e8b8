import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderNginx } from '../../deploy/render-nginx.ts';
import { countingServer } from '../helpers/outbound.ts';
import { freePort, spawnOwned } from '../helpers/processes.ts';

/** GET `path` from the proxy at 127.0.0.1:`port`, the connection coming from `from` (any 127.0.0.0/8 address). */
function getFrom(from: string, port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `npm run -s fleet:nginx -- ARGS` as a shell runs it, in this checkout. */
function fleetNginx(args: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('sh', ['-c', `npm run -s fleet:nginx -- ${args}`], { encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
}

describe('the nginx configuration', () => {
  it('that compose ships is exactly the tested template, rendered for the compose services', () => {
    const rendered = renderNginx({ listen: '8080', distClient: '/srv/site', upstreams: ['app1:4321', 'app2:4321'], prefix: '/tmp/nginx' });
    expect(readFileSync('deploy/nginx.compose.conf', 'utf8')).toBe(rendered);
  });

  it('passes nginx -t when rendered for loopback instances', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'nginx-t-'));
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(conf, renderNginx({ listen: '127.0.0.1:18080', distClient: 'dist/client', upstreams: ['127.0.0.1:14321', '127.0.0.1:14322'], prefix }));
    const result = spawnSync('nginx', ['-t', '-p', `${prefix}/`, '-c', conf], { encoding: 'utf8' });
    expect(result.stderr).toContain('syntax is ok');
    expect(result.status).toBe(0);
  });

  it("passes `nginx -t -c FILE` as the README's example renders it, without --prefix (nginx's own pid and temp paths)", () => {
    const run = fleetNginx('--listen 0.0.0.0:80 --upstream 10.0.0.11:4321 --upstream 10.0.0.12:4321 --dist /srv/site/dist/client');
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).not.toMatch(/\bpid\b|_temp_path|error_log/);
    expect(run.stdout).toContain('    server 10.0.0.12:4321 max_fails=1 fail_timeout=2s;');
    const conf = join(mkdtempSync(join(tmpdir(), 'nginx-readme-')), 'nginx.conf');
    writeFileSync(conf, run.stdout);
    const result = spawnSync('nginx', ['-t', '-c', conf], { encoding: 'utf8' });
    expect(result.stderr).toContain('test is successful');
    expect(result.status).toBe(0);
  });

  it("keeps the health checks for this host's own monitoring: another address gets 403 and reaches no instance", async () => {
    const instance = await countingServer('127.0.0.1', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}'));
    const prefix = mkdtempSync(join(tmpdir(), 'nginx-probes-'));
    const conf = join(prefix, 'nginx.conf');
    const port = await freePort();
    writeFileSync(conf, renderNginx({ listen: `127.0.0.1:${port}`, distClient: `${process.cwd()}/dist/client`, upstreams: [`127.0.0.1:${instance.port}`], prefix }));
    const nginx = spawnOwned('nginx', ['-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;']);
    try {
      // Until nginx listens.
      for (let tries = 0; ; tries++) {
        const ready = await getFrom('127.0.0.1', port, '/healthz').catch(() => 0);
        if (ready === 200 || tries > 100) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const before = instance.hits.length;
      expect(await getFrom('127.0.0.2', port, '/readyz')).toBe(403);
      expect(await getFrom('127.0.0.2', port, '/healthz')).toBe(403);
      expect(instance.hits.length).toBe(before);
      expect(await getFrom('127.0.0.1', port, '/readyz')).toBe(200);
      expect(instance.hits.slice(before)).toEqual(['/readyz']);
      // The public paths still reach the instances from anywhere.
      expect(await getFrom('127.0.0.2', port, '/api/news')).toBe(200);
    } finally {
      await nginx.stop('SIGTERM');
      await instance.close();
    }
  });

  it.each([
    ['--listen 0.0.0.0:99999 --upstream 10.0.0.11:4321', '--listen must be HOST:PORT or PORT with a port from 1 to 65535, got "0.0.0.0:99999"'],
    ['--listen "80; include /etc/passwd" --upstream 10.0.0.11:4321', '--listen must be HOST:PORT or PORT (e.g. 10.0.0.11:4321), got "80; include /etc/passwd"'],
    ['--upstream "a;b:80"', '--upstream must be HOST:PORT with a host name, an IPv4 address or an [IPv6] address, got "a;b:80"'],
    ['--upstream 10.0.0.11', '--upstream must be HOST:PORT (e.g. 10.0.0.11:4321), got "10.0.0.11"'],
    ['--listen 8080', 'give at least one --upstream HOST:PORT'],
    ['--upstream 10.0.0.11:4321 --dist dist/client', '--dist must be an absolute path (e.g. /srv/site/dist/client), got "dist/client"'],
    ['--upstream 10.0.0.11:4321 --prefix "/tmp/a b"', '--prefix must not contain spaces, quotes, \';\', braces, \'$\' or \'\\\', got "/tmp/a b"'],
  ])('refuses %s with 64 and a message naming the flag', (args, message) => {
    const run = fleetNginx(args);
    expect(run.status).toBe(64);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(`render-nginx: ${message}`);
  });
});
