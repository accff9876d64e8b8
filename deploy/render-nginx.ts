/**
 * Render deploy/nginx.conf.template for a set of instances. Used by the fleet test and by
 * `npm run fleet:nginx -- --listen 127.0.0.1:8080 --upstream 127.0.0.1:4321 --upstream …`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParseArgsOptionsConfig } from 'node:util';
import { runCli, type Usage } from '../jobs/cli/run-cli.ts';

export interface NginxOptions {
  listen: string;
  distClient: string;
  upstreams: string[];
  prefix: string;
}

const TEMPLATE = fileURLToPath(new URL('./nginx.conf.template', import.meta.url));

export function renderNginx({ listen, distClient, upstreams, prefix }: NginxOptions): string {
  const servers = upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=2s;`).join('\n');
  return readFileSync(TEMPLATE, 'utf8')
    .replaceAll('@LISTEN@', listen)
    .replaceAll('@DIST_CLIENT@', resolve(distClient))
    .replaceAll('@UPSTREAMS@', servers)
    .replaceAll('@PREFIX@', resolve(prefix));
}

if (import.meta.main) {
  const usage = {
    synopsis: 'npm run fleet:nginx -- [--listen HOST:PORT] [--upstream HOST:PORT]... [--dist DIR] [--prefix DIR] > nginx.conf',
    options: {
      listen: { type: 'string', default: '127.0.0.1:8080' },
      upstream: { type: 'string', multiple: true, default: ['127.0.0.1:4321'] },
      dist: { type: 'string', default: 'dist/client' },
      prefix: { type: 'string', default: '/tmp/site-nginx' },
    },
  } satisfies Usage<ParseArgsOptionsConfig>;
  process.exitCode = await runCli('render-nginx', usage, async ({ values, stdout }) => {
    stdout.write(renderNginx({ listen: values.listen, distClient: values.dist, upstreams: values.upstream, prefix: values.prefix }));
    return 0;
  });
}
