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
});
