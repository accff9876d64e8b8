/**
 * Reading request bodies at the edge, with the route's ceiling (routes.ts) enforced while reading: a client
 * announcing or sending more than the limit gets 413 as soon as the limit is crossed, and the
 * rest is never buffered (the connection is closed instead).
 */
import type { IncomingMessage } from 'node:http';
import { bodyTooLarge as tooLarge } from '../lib/endpoint.ts';
import { ownBytes } from './content-coding.ts';

/** The client closed the connection before its body arrived: not an error of ours. */
export class ClientAbortedError extends Error {
  override name = 'ClientAbortedError';
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // In memory of its own (one chunk, most bodies, is node's own copy already): a body lives as
      // long as its request, and a slice of a pool slab (64 KiB on Node 24) that outlives
      // young-generation collections keeps the whole slab until a full one (bench/NOTES.md,
      // "Memory round 5").
      resolve(ownBytes(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    };
    const onError = () => {
      cleanup();
      reject(new ClientAbortedError('the client closed the connection before sending its whole body'));
    };
    const onAborted = onError;
    // A socket closed before 'end' (Node no longer emits 'aborted' in every case).
    const onClose = () => {
      if (!req.complete) onError();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    req.on('close', onClose);
  });
}
