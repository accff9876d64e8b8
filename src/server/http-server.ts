/**
 * The node:http server around the edge's handler: connection timeouts, and the answers to what
 * never reaches the handler (Expect: 100-continue for an oversize body, requests Node's parser
 * refuses, CONNECT), each in the error format of the interface the request was meant for.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HttpError, renderError } from '../lib/http-error.ts';
import { parseTarget } from './request-target.ts';
import { routeOf } from './routes.ts';

/** The normalised path of a request Node's parser refused, read from the bytes it kept; `/` when unknown. */
function pathOfRawRequest(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return '/';
  const target = /^[A-Z]+ (\/[^ ?\r\n]*)/.exec(raw.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return target === undefined ? '/' : (parseTarget(target)?.pathname ?? '/');
  } catch {
    return '/';
  }
}

export function createNodeServer(onRequest: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer(
    {
      // Bound how long a client may take to send its request (slowloris), checked every 5 s
      // instead of Node's default 30 s; streamed replies are unaffected.
      requestTimeout: 30_000,
      headersTimeout: 15_000,
      connectionsCheckingInterval: 5_000,
      keepAliveTimeout: 5_000,
    },
    onRequest,
  );
  // Expect: 100-continue (RFC 9110 section 10.1.1): refuse an announced oversize body before
  // the client sends it, instead of inviting it and answering 413 afterwards.
  server.on('checkContinue', (req, res) => {
    const declared = Number(req.headers['content-length']);
    let limit = 0;
    try {
      limit = routeOf(parseTarget(req.url ?? '')?.pathname ?? '/').bodyLimit;
    } catch {
      // A target the edge refuses: onRequest() answers 400 without reading the body.
    }
    if (Number.isFinite(declared) && declared > limit) {
      res.setHeader('Connection', 'close');
      onRequest(req, res);
      return;
    }
    res.writeContinue();
    onRequest(req, res);
  });
  // Requests Node's parser refuses (bad syntax, header overflow, timeouts) get a problem body
  // too, not a bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const error400 =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new HttpError('headers_too_large', { detail: 'The request line and header fields exceed 16 KiB (Node\'s limit).', resolution: 'Send a shorter URL and fewer or smaller headers.' })
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new HttpError('request_timeout')
          : new HttpError('validation_failed', { detail: 'The request is not valid HTTP/1.1.' });
    // The error format follows the interface the request was meant for, as for every other error.
    const { status, headers, body } = renderError(error400, routeOf(pathOfRawRequest((error as { rawPacket?: unknown }).rawPacket)).path);
    const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${status} ${error400.title}\r\n${head}\r\n\r\n${body}`);
  });
  // CONNECT is for proxies; we are not one.
  server.on('connect', (_req, socket) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD, POST, OPTIONS\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  return server;
}
