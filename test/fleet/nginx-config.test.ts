import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request as httpsRequest } from 'node:https';
import { BROTLI_STATIC_MODULE, renderNginx, type TlsOptions } from '../../deploy/render-nginx.ts';
import { pageSecurityHeaders } from '../../src/server/security.ts';
import { freePort, spawnOwned } from '../helpers/processes.ts';
import { countingServer } from '../helpers/outbound.ts';

/** nginx -t of a rendered file in its own prefix folder. */
function nginxTest(options: { brotliStatic?: boolean } = {}): { status: number | null; stderr: string } {
  const prefix = mkdtempSync(join(tmpdir(), 'nginx-t-'));
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, renderNginx({ listen: '127.0.0.1:18080', distClient: 'dist/client', upstreams: ['127.0.0.1:14321', '127.0.0.1:14322'], prefix, ...options }));
  return spawnSync('nginx', ['-t', '-p', `${prefix}/`, '-c', conf], { encoding: 'utf8' });
}

/** GET through nginx, keeping the bytes as sent (no decoding). */
function rawGet(url: string, acceptEncoding: string): Promise<{ status: number; encoding: string | undefined; vary: string | undefined; body: Buffer }> {
  return new Promise((resolvePromise, reject) => {
    request(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

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

/** A self-signed certificate for `name` (openssl, Debian's package), in a new folder. */
function selfSigned(name: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  return { cert, key };
}

/** One GET over http or https (any certificate), its status and headers. */
function fetchRaw(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const get = url.startsWith('https:') ? httpsRequest : request;
  return new Promise((resolvePromise, reject) => {
    get(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

/** Retry `attempt` until nginx answers (it starts in the background). */
async function whenListening<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries > 200) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('the nginx configuration', () => {
  it('that compose ships is exactly the tested template, rendered for the compose services', () => {
    const rendered = renderNginx({ listen: '8080', distClient: '/srv/site', upstreams: ['app1:4321', 'app2:4321'], prefix: '/tmp/nginx' });
    expect(readFileSync('deploy/nginx.compose.conf', 'utf8')).toBe(rendered);
  });

  it('passes nginx -t when rendered for loopback instances', () => {
    const result = nginxTest();
    expect(result.stderr).toContain('syntax is ok');
    expect(result.status).toBe(0);
  });

  it("serves the build's .gz copies always, and its .br copies only with Debian's brotli_static module loaded", () => {
    const plain = renderNginx({ listen: '8080', distClient: '/srv/site', upstreams: ['app1:4321'] });
    expect(plain).toContain('\n  gzip_static on;\n');
    expect(plain).not.toMatch(/brotli_static|load_module|@[A-Z_]+@/);
    const brotli = renderNginx({ listen: '8080', distClient: '/srv/site', upstreams: ['app1:4321'], brotliStatic: true });
    expect(brotli).toContain(`\nload_module ${BROTLI_STATIC_MODULE};\nworker_processes 1;\n`);
    expect(brotli).toContain('\n  gzip_static on;\n  brotli_static on;\n');
    expect(brotli).not.toMatch(/@[A-Z_]+@/);
  });

  it("passes nginx -t with the brotli_static module (Debian's libnginx-mod-http-brotli-static, installed by test/system-deps.sh)", () => {
    expect(existsSync(BROTLI_STATIC_MODULE)).toBe(true);
    const result = nginxTest({ brotliStatic: true });
    expect(result.stderr).toContain('syntax is ok');
    expect(result.status).toBe(0);
  });

  it('renders brotli_static by --brotli-static: auto follows the module file on this machine, on and off as told', () => {
    const args = '--upstream 10.0.0.11:4321 --dist /srv/site/dist/client';
    expect(fleetNginx(`${args} --brotli-static on`).stdout).toContain('brotli_static on;');
    expect(fleetNginx(`${args} --brotli-static off`).stdout).not.toMatch(/brotli_static|load_module/);
    expect(fleetNginx(args).stdout.includes('brotli_static on;')).toBe(existsSync(BROTLI_STATIC_MODULE));
  });

  it.each([false, true])("sends the build's precompressed copies byte for byte (brotli_static: %s)", async (brotliStatic) => {
    const prefix = mkdtempSync(join(tmpdir(), 'nginx-static-'));
    const conf = join(prefix, 'nginx.conf');
    const port = await freePort();
    writeFileSync(conf, renderNginx({ listen: `127.0.0.1:${port}`, distClient: 'dist/client', upstreams: ['127.0.0.1:9'], prefix, brotliStatic }));
    const nginx = spawnOwned('nginx', ['-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;']);
    try {
      const css = readdirSync('dist/client/_astro').find((name) => name.endsWith('.css') && existsSync(join('dist/client/_astro', `${name}.gz`)))!;
      // Pages a scheduled article never changes: nginx serves those itself (/ and /news/ go to the instances).
      for (const [path, file] of [['/contact/', 'contact/index.html'], ['/docs/api/', 'docs/api/index.html'], [`/_astro/${css}`, `_astro/${css}`]] as const) {
        let res = await rawGet(`http://127.0.0.1:${port}${path}`, 'gzip').catch(() => undefined);
        for (let waited = 0; res === undefined && waited < 5_000; waited += 100) {
          await new Promise((r) => setTimeout(r, 100));
          res = await rawGet(`http://127.0.0.1:${port}${path}`, 'gzip').catch(() => undefined);
        }
        expect(res?.status, path).toBe(200);
        expect(res?.encoding, path).toBe('gzip');
        expect(res?.vary, path).toBe('Accept-Encoding');
        expect(res?.body.equals(readFileSync(resolve('dist/client', `${file}.gz`))), path).toBe(true);
        const br = await rawGet(`http://127.0.0.1:${port}${path}`, 'gzip, br');
        expect(br.encoding, path).toBe(brotliStatic ? 'br' : 'gzip');
        expect(br.body.equals(readFileSync(resolve('dist/client', `${file}${brotliStatic ? '.br' : '.gz'}`))), path).toBe(true);
      }
    } finally {
      await nginx.stop('SIGTERM');
    }
  });

  it("passes `nginx -t -c FILE` as the operators' guide's example renders it, without --prefix (nginx's own pid and temp paths)", () => {
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

  it('keeps /metrics off the public side: the unknown-path 404, token or not, and no instance reached', async () => {
    const instance = await countingServer('127.0.0.1');
    const prefix = mkdtempSync(join(tmpdir(), 'nginx-metrics-'));
    const conf = join(prefix, 'nginx.conf');
    const port = await freePort();
    writeFileSync(conf, renderNginx({ listen: `127.0.0.1:${port}`, distClient: `${process.cwd()}/dist/client`, upstreams: [`127.0.0.1:${instance.port}`], prefix }));
    const nginx = spawnOwned('nginx', ['-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;']);
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolvePromise, reject) => {
        request({ host: '127.0.0.1', port, path, headers }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body }));
        })
          .on('error', reject)
          .end();
      });
    try {
      for (let tries = 0; ; tries++) {
        const ready = await get('/no-such-page').catch(() => undefined);
        if (ready !== undefined || tries > 100) break;
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 50));
      }
      const unknown = await get('/no-such-page');
      expect(unknown.status).toBe(404);
      expect(await get('/metrics', { authorization: 'Bearer 0123456789abcdef0123456789abcdef' })).toEqual(unknown);
      expect(await get('/metrics')).toEqual(unknown);
      expect(instance.hits).toEqual([]);
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
    ['--upstream 10.0.0.11:4321 --brotli-static yes', '--brotli-static must be auto, on or off, got "yes"'],
    ['--upstream 10.0.0.11:4321 --prefix "/tmp/a b"', '--prefix must not contain spaces, quotes, \';\', braces, \'$\' or \'\\\', got "/tmp/a b"'],
  ])('refuses %s with 64 and a message naming the flag', (args, message) => {
    const run = fleetNginx(args);
    expect(run.status).toBe(64);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(`render-nginx: ${message}`);
  });

  describe('with TLS', () => {
    it('passes nginx -t, redirects plain HTTP to the one public name, and serves pages with the app\'s own security headers and HSTS', async () => {
      const prefix = mkdtempSync(join(tmpdir(), 'nginx-tls-run-'));
      const conf = join(prefix, 'nginx.conf');
      const [plain, secure] = [await freePort(), await freePort()];
      const tls: TlsOptions = { listen: `127.0.0.1:${secure}`, serverName: 'site.test', ...selfSigned('site.test') };
      writeFileSync(conf, renderNginx({ listen: `127.0.0.1:${plain}`, distClient: 'dist/client', upstreams: ['127.0.0.1:9'], prefix, tls }));
      const checked = spawnSync('nginx', ['-t', '-p', `${prefix}/`, '-c', conf], { encoding: 'utf8' });
      expect(checked.stderr).toContain('test is successful');
      const nginx = spawnOwned('nginx', ['-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;']);
      try {
        const redirect = await whenListening(() => fetchRaw(`http://127.0.0.1:${plain}/news/?page=2`));
        expect(redirect.status).toBe(301);
        // The configured name, never the client's Host header.
        expect(redirect.headers.location).toBe('https://site.test/news/?page=2');
        // A page nginx serves itself (the home page goes to the instances: scheduled articles change it).
        const page = await whenListening(() => fetchRaw(`https://127.0.0.1:${secure}/contact/`));
        expect(page.status).toBe(200);
        const expected = pageSecurityHeaders(true);
        expect(expected.map(([name]) => name)).toContain('Strict-Transport-Security');
        for (const [name, value] of expected) expect(page.headers[name.toLowerCase()], name).toBe(value);
        const missing = await fetchRaw(`https://127.0.0.1:${secure}/no-such-page`);
        expect(missing.status).toBe(404);
        expect(missing.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      } finally {
        await nginx.stop('SIGTERM');
      }
    });

    it('renders no TLS line, HSTS or redirect without --tls-cert', () => {
      const text = renderNginx({ listen: '8080', distClient: '/srv/site', upstreams: ['app1:4321'] });
      expect(text).not.toMatch(/ssl_|Strict-Transport-Security|return 301|@[A-Z_]+@/);
      for (const [name] of pageSecurityHeaders(false)) expect(text).toContain(`add_header ${name} `);
    });

    it.each([
      ['--upstream 10.0.0.11:4321 --tls-cert /etc/ssl/site.pem', '--tls-cert, --tls-key and --server-name go together: give all three for HTTPS, or none'],
      ['--upstream 10.0.0.11:4321 --tls-cert site.pem --tls-key /k.pem --server-name site.test', '--tls-cert must be an absolute path (e.g. /srv/site/dist/client), got "site.pem"'],
      ['--upstream 10.0.0.11:4321 --tls-cert /c.pem --tls-key /k.pem --server-name "a b"', '--server-name must be a host name, got "a b"'],
    ])('refuses %s with 64 and a message naming the flag', (args, message) => {
      const run = fleetNginx(args);
      expect(run.status).toBe(64);
      expect(run.stderr.split('\n')[0]).toBe(`render-nginx: ${message}`);
    });
  });

  it('writes one JSON line per request to the access log, the URI cut to 256 bytes and no client text starting a line', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'nginx-log-'));
    const conf = join(prefix, 'nginx.conf');
    const port = await freePort();
    writeFileSync(conf, renderNginx({ listen: `127.0.0.1:${port}`, distClient: 'dist/client', upstreams: ['127.0.0.1:9'], prefix }));
    const nginx = spawnOwned('nginx', ['-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;']);
    try {
      await whenListening(() => fetchRaw(`http://127.0.0.1:${port}/contact/`));
      const forged = '/x%0A%7B%22level%22%3A%22fatal%22%7D\\n"}';
      await fetchRaw(`http://127.0.0.1:${port}${forged}`);
      await fetchRaw(`http://127.0.0.1:${port}/${'a'.repeat(6000)}`);
    } finally {
      await nginx.stop('SIGTERM');
    }
    const lines = readFileSync(join(prefix, 'access.log'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const entries = lines.map((line) => JSON.parse(line) as { uri: string; status: number; bytes_in: number });
    expect(entries.map((e) => e.status)).toEqual([200, 404, 404]);
    expect(entries[1]!.uri.startsWith('/x%0A')).toBe(true);
    expect(entries[2]!.uri).toHaveLength(256);
    expect(entries[2]!.bytes_in).toBeGreaterThan(6000);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(1024);
  });
});
