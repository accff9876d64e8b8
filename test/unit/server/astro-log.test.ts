/**
 * Astro's log events as lines of the server's logger: one JSON line per event whatever the
 * message holds (newlines, a forged line of ours, colour codes), cut to its bound, at its level.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import astroLogDestination, { ASTRO_MESSAGE_CHARS, routeAstroLogTo } from '../../../src/server/astro-log.ts';
import { createLogger } from '../../../src/server/log.ts';

function collecting(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

const FORGED = '{"level":"fatal","msg":"FORGED admin login"}';

describe("Astro's log destination", () => {
  it('writes each event as one JSON line of the routed logger, request text and all', () => {
    const { stream, lines } = collecting();
    routeAstroLogTo(createLogger({ level: 'debug', stream }));
    const destination = astroLogDestination();
    destination.write({ label: 'assets', level: 'error', message: `Could not process image request: "/favicon.svg?\n${FORGED}\n"`, newLine: true });
    destination.write({ label: null, level: 'warn', message: '\u001b[33mcoloured\u001b[39m', newLine: true });
    destination.write({ label: 'router', level: 'info', message: 'x'.repeat(ASTRO_MESSAGE_CHARS + 10), newLine: true });
    expect(lines).toHaveLength(3);
    const [error, warn, long] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(error).toMatchObject({ level: 'error', astro: 'assets', msg: `Could not process image request: "/favicon.svg?\n${FORGED}\n"` });
    expect(warn).toMatchObject({ level: 'warn', msg: 'coloured' });
    expect(warn!['astro']).toBeUndefined();
    expect(long).toMatchObject({ level: 'info', messageLength: ASTRO_MESSAGE_CHARS + 10 });
    expect((long!['msg'] as string).length).toBe(ASTRO_MESSAGE_CHARS);
  });
});
