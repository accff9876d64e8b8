/**
 * The peer: what a user would build instead of our edge for the same answers.
 * Fastify 5 with @fastify/rate-limit (its in-memory store, keyed by client IP) and Fastify's
 * default pino logger writing to a file (an "incoming request" and a "request completed" line
 * per request, request ids from its counter), answering the bytes our server sent for that URL
 * (captured like the ceiling's) with the same representation and security headers, and its
 * X-Request-Id. Over the limit it answers our captured 429 body through an error handler, as
 * Fastify's documentation shows for a custom refusal.
 *
 *   node bench/peers/fastify.ts <responses.json> <requests per minute> <log file>
 *
 * Prints `{"msg":"listening","url":...}` like the real server, on a free port of 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { CapturedResponse } from '../baselines.ts';

const [responsesFile, perMinute, logFile] = process.argv.slice(2);
if (!responsesFile || !perMinute || !logFile) {
  console.error('usage: node bench/peers/fastify.ts <responses.json> <requests per minute> <log file>');
  process.exit(2);
}

const captured = JSON.parse(readFileSync(responsesFile, 'utf8')) as CapturedResponse[];
const app = Fastify({ logger: { level: 'info', file: logFile }, keepAliveTimeout: 5_000 });
await app.register(rateLimit, { max: Number(perMinute), timeWindow: '1 minute' });

// One refusal body for every route: the first captured 429, or Fastify's default when none was.
const refusal = captured.find((r) => r.status === 429);
if (refusal) {
  const body = Buffer.from(refusal.body, 'base64');
  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    if (error.statusCode !== 429) return reply.send(error);
    return reply.code(429).headers(refusal.headers ?? {}).header('x-request-id', request.id).type(refusal.contentType).send(body);
  });
}

for (const response of captured) {
  const body = Buffer.from(response.body, 'base64');
  const headers = { ...response.headers, 'content-type': response.contentType };
  app.get(new URL(response.path, 'http://peer.invalid').pathname, (request, reply) => {
    reply.code(response.status).headers(headers).header('x-request-id', request.id).send(body);
  });
}

const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ msg: 'listening', url, peer: 'fastify' }));
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
