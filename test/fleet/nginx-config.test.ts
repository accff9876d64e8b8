import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderNginx } from '../../deploy/render-nginx.ts';

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
});
