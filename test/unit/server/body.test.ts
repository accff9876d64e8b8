import { describe, expect, it } from 'vitest';
import { readBody } from '../../../src/server/body.ts';
import type { HttpError } from '../../../src/lib/http-error.ts';
import { roundTrip } from '../../helpers/round-trip.ts';

describe('readBody', () => {
  it('returns the bytes of a body within the limit', async () => {
    const { text, server } = await roundTrip(async (req, res) => res.end(String((await readBody(req, 10)).length)), 'abcdef');
    server();
    expect(text).toBe('6');
  });

  it('refuses with 413 once the stream crosses the limit, without waiting for the rest', async () => {
    const { text, status, server } = await roundTrip(async (req, res) => {
      try {
        await readBody(req, 1024);
        res.end('read');
      } catch (error) {
        res.statusCode = (error as HttpError).status;
        res.setHeader('connection', 'close');
        res.end((error as HttpError).code);
      }
    }, Buffer.alloc(200_000, 'x'));
    server();
    expect(status).toBe(413);
    expect(text).toBe('payload_too_large');
  });

  // A body lives as long as its request; a slice of Buffer's shared pool (a 64 KiB slab on Node
  // 24) would hold the whole slab, past young-generation collections (bench/NOTES.md, "Memory
  // round 5").
  it.each([
    ['one chunk', Buffer.from('{"name":"Ada"}')],
    ['several chunks', Buffer.alloc(200_000, 'y')],
  ])('returns memory of its own, not a slice of the shared pool (%s)', async (_, sent) => {
    let own: boolean | undefined;
    let same: boolean | undefined;
    const { server } = await roundTrip(async (req, res) => {
      const body = await readBody(req, 1_000_000);
      own = body.byteOffset === 0 && body.buffer.byteLength === body.byteLength;
      same = body.equals(sent);
      res.end();
    }, sent);
    server();
    expect(same).toBe(true);
    expect(own).toBe(true);
  });
});
