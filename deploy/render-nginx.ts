/**
 * Render deploy/nginx.conf.template for a set of instances. Used by the fleet test and by
 * `npm run -s fleet:nginx -- --listen 0.0.0.0:80 --upstream 10.0.0.11:4321 --upstream … --dist /srv/site/dist/client > nginx.conf`
 * (`-s`: npm's banner would otherwise open the file).
 *
 * Without `--prefix` the pid file, the error log and the temporary folders are left to the
 * nginx that runs the file: its compiled-in paths (Debian: /run/nginx.pid, /var/lib/nginx/*,
 * errors on stderr), which a packaged nginx started as root can use, so the output passes
 * `nginx -t -c FILE` as it is. `--prefix DIR` (an existing folder the nginx user can write) puts
 * them there instead, for an unprivileged nginx (the fleet test, the compose image).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParseArgsOptionsConfig } from 'node:util';
import { runCli, UsageError, type Usage } from '../jobs/cli/run-cli.ts';
import { pageSecurityHeaders } from '../src/server/security.ts';

export interface NginxOptions {
  listen: string;
  distClient: string;
  upstreams: string[];
  /** Folder of the pid file, error log and temporary files; unset: nginx's own defaults. */
  prefix?: string;
  /** Load Debian's brotli_static module and serve the build's `.br` copies (default: off). */
  brotliStatic?: boolean;
  /** Serve HTTPS on `tls.listen` for `tls.serverName`; `listen` then only redirects to it. */
  tls?: TlsOptions;
}

export interface TlsOptions {
  /** Address of the HTTPS server, e.g. `443` or `0.0.0.0:443`. */
  listen: string;
  /** Absolute paths of the certificate chain and its key (PEM), as nginx reads them. */
  cert: string;
  key: string;
  /** The one public host name: the redirect's target and the server's `server_name`. */
  serverName: string;
}

/** The app's page headers as nginx `add_header` lines (quoted; `always`: on 404s too). */
function securityHeaderLines(https: boolean): string {
  return pageSecurityHeaders(https)
    .map(([name, value]) => `      add_header ${name} "${value}" always;`)
    .join('\n');
}

/** Where the access log goes: in the prefix folder, or Debian's usual file. */
const accessLogOf = (prefix: string | undefined) => (prefix === undefined ? '/var/log/nginx/access.log' : `${resolve(prefix)}/access.log`);

/** Where Debian's libnginx-mod-http-brotli-static installs the module the template loads. */
export const BROTLI_STATIC_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';

const TEMPLATE = fileURLToPath(new URL('./nginx.conf.template', import.meta.url));
const DEFAULT_DIST = fileURLToPath(new URL('../dist/client', import.meta.url));

/** Keep the lines marked `@MARK@` (without the mark) when `on`, drop them otherwise. */
const marked = (text: string, mark: string, on: boolean) => (on ? text.replaceAll(mark, '') : text.replace(new RegExp(`^.*${mark}.*\\n`, 'gm'), ''));

export function renderNginx({ listen, distClient, upstreams, prefix, brotliStatic = false, tls }: NginxOptions): string {
  const servers = upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=2s;`).join('\n');
  const withBrotli = marked(readFileSync(TEMPLATE, 'utf8'), '@BROTLI@', brotliStatic).replaceAll('@BROTLI_STATIC_MODULE@', BROTLI_STATIC_MODULE);
  const withTls = marked(withBrotli, '@TLS@', tls !== undefined);
  const text = prefix === undefined ? withTls.replace(/^.*@PREFIX@.*\n/gm, '') : withTls.replaceAll('@PREFIX@', resolve(prefix));
  const site = tls ? `${tls.listen} ssl http2` : listen;
  return text
    .replaceAll('@SITE_LISTEN@', site)
    .replaceAll('@LISTEN@', listen)
    .replaceAll('@TLS_CERT@', tls?.cert ?? '')
    .replaceAll('@TLS_KEY@', tls?.key ?? '')
    .replaceAll('@SERVER_NAME@', tls?.serverName ?? '')
    .replaceAll('@ACCESS_LOG@', accessLogOf(prefix))
    .replaceAll('@SECURITY_HEADERS@', securityHeaderLines(tls !== undefined))
    .replaceAll('@DIST_CLIENT@', resolve(distClient))
    .replaceAll('@UPSTREAMS@', servers);
}

/** A host name, an IPv4 address, or an IPv6 address in brackets (nginx's `listen`/`server` syntax). */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$/;

function validPort(text: string): boolean {
  return /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535;
}

/** `host:port`, or with `portAlone` a bare port too; the problem in words, or undefined. */
export function addressProblem(text: string, portAlone: boolean): string | undefined {
  const expected = portAlone ? 'HOST:PORT or PORT' : 'HOST:PORT';
  if (portAlone && validPort(text)) return undefined;
  const colon = text.lastIndexOf(':');
  if (colon < 0) return `must be ${expected} (e.g. 10.0.0.11:4321), got ${JSON.stringify(text)}`;
  const host = text.slice(0, colon);
  const port = text.slice(colon + 1);
  if (!HOST.test(host)) return `must be ${expected} with a host name, an IPv4 address or an [IPv6] address, got ${JSON.stringify(text)}`;
  if (!validPort(port)) return `must be ${expected} with a port from 1 to 65535, got ${JSON.stringify(text)}`;
  return undefined;
}

/** An absolute path nginx can take unquoted: no whitespace, quotes, `;`, braces or `$`. */
export function pathProblem(text: string): string | undefined {
  if (!isAbsolute(text)) return `must be an absolute path (e.g. /srv/site/dist/client), got ${JSON.stringify(text)}`;
  if (/[\s;{}'"$\\]/.test(text)) return `must not contain spaces, quotes, ';', braces, '$' or '\\', got ${JSON.stringify(text)}`;
  return undefined;
}

/** A DNS name nginx can take unquoted as server_name and in the redirect's URL. */
const SERVER_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** The TLS flags come together or not at all; each in the form nginx takes. */
function tlsProblems(values: { 'tls-cert'?: string | undefined; 'tls-key'?: string | undefined; 'server-name'?: string | undefined; 'tls-listen': string }): string[] {
  const given = (['tls-cert', 'tls-key', 'server-name'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length === 0) return [];
  if (given.length < 3) return ['--tls-cert, --tls-key and --server-name go together: give all three for HTTPS, or none'];
  return [
    ...[values['tls-cert']!, values['tls-key']!].map((v, i) => pathProblem(v) && `${i === 0 ? '--tls-cert' : '--tls-key'} ${pathProblem(v)}`),
    SERVER_NAME.test(values['server-name']!) ? undefined : `--server-name must be a host name, got ${JSON.stringify(values['server-name'])}`,
    addressProblem(values['tls-listen'], true) && `--tls-listen ${addressProblem(values['tls-listen'], true)}`,
  ].filter((p): p is string => p !== undefined);
}

const USAGE = {
  synopsis:
    'npm run -s fleet:nginx -- [--listen HOST:PORT|PORT] --upstream HOST:PORT [--upstream HOST:PORT]... [--dist /ABS/DIR] [--prefix /ABS/DIR] [--brotli-static auto|on|off] [--tls-cert /ABS/FILE --tls-key /ABS/FILE --server-name NAME [--tls-listen HOST:PORT|PORT]] > nginx.conf',
  options: {
    listen: { type: 'string', default: '127.0.0.1:8080' },
    upstream: { type: 'string', multiple: true },
    dist: { type: 'string', default: DEFAULT_DIST },
    prefix: { type: 'string' },
    'brotli-static': { type: 'string', default: 'auto' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'tls-listen': { type: 'string', default: '443' },
    'server-name': { type: 'string' },
  },
  details: [
    '  --listen    address nginx listens on (default 127.0.0.1:8080)',
    '  --upstream  an instance, HOST:PORT; at least one, repeat for each',
    "  --dist      absolute path of the build's dist/client (default: this checkout's)",
    "  --prefix    existing folder for the pid file, error log and temporary files (default: nginx's own paths)",
    `  --brotli-static  serve the build's .br copies with Debian's libnginx-mod-http-brotli-static: on, off, or auto`,
    `              (default: on when ${BROTLI_STATIC_MODULE} exists on this machine; the .gz copies are always served)`,
    '  --tls-cert, --tls-key  absolute paths of the certificate chain and key (PEM): serve HTTPS with HSTS,',
    '              and let --listen only redirect to https://NAME (all three of these flags, or none)',
    '  --server-name  the public host name (the redirect target and server_name)',
    '  --tls-listen   address of the HTTPS server (default 443)',
  ].join('\n'),
} satisfies Usage<ParseArgsOptionsConfig>;

if (import.meta.main) {
  process.exitCode = await runCli('render-nginx', USAGE, async ({ values, stdout }) => {
    const upstreams = values.upstream ?? [];
    if (upstreams.length === 0) throw new UsageError('give at least one --upstream HOST:PORT');
    const problems = [
      ...[values.listen].map((v) => addressProblem(v, true)).map((p) => p && `--listen ${p}`),
      ...upstreams.map((v) => addressProblem(v, false)).map((p) => p && `--upstream ${p}`),
      ...[values.dist].map(pathProblem).map((p) => p && `--dist ${p}`),
      ...(values.prefix === undefined ? [] : [pathProblem(values.prefix)].map((p) => p && `--prefix ${p}`)),
      ...(['auto', 'on', 'off'].includes(values['brotli-static']) ? [] : [`--brotli-static must be auto, on or off, got ${JSON.stringify(values['brotli-static'])}`]),
    ].filter((p): p is string => p !== undefined);
    problems.push(...tlsProblems(values));
    if (problems.length > 0) throw new UsageError(problems.join('; '));
    // auto: the nginx that will run the file is taken to be this machine's (render on the proxy host).
    const brotliStatic = values['brotli-static'] === 'auto' ? existsSync(BROTLI_STATIC_MODULE) : values['brotli-static'] === 'on';
    const tls = values['tls-cert'] && values['tls-key'] && values['server-name'] ? { listen: values['tls-listen'], cert: values['tls-cert'], key: values['tls-key'], serverName: values['server-name'] } : undefined;
    stdout.write(renderNginx({ listen: values.listen, distClient: values.dist, upstreams, brotliStatic, ...(values.prefix === undefined ? {} : { prefix: values.prefix }), ...(tls ? { tls } : {}) }));
    return 0;
  });
}
