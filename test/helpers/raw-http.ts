/** HTTP requests sent exactly as written, for tests of how the edge reads a request target. */
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A request to the server at `baseUrl` with `path` as the request target, untouched: no
 * client-side path normalisation, and no Host header added when the caller sets its own.
 */
export function rawRequest(baseUrl: string, path: string, init: RawInit = {}): Promise<RawResponse> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers ?? {}, setHost: !init.headers?.['host'] }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
