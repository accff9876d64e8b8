/**
 * Astro's own log lines in the real build (./dist) go through the server's logger: one JSON line
 * per message, whatever the message quotes. Astro's handler is called directly, past the edge
 * (which no longer lets `/_image` through), with the request that used to put a forged line on
 * the server's output: the image service quotes the `href` it was given, decoded newlines
 * included, in a plain-text error line (issue 31).
 */
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { inject } from 'light-my-request';
import { describe, expect, it } from 'vitest';
import type { AstroHandler } from '../../src/server/http.ts';
import { routeAstroLogTo } from '../../src/server/astro-log.ts';
import { createLogger } from '../../src/server/log.ts';

const FORGED = '{"level":"fatal","msg":"FORGED admin login"}';

describe("Astro's logger in the built server", () => {
  it('writes a message that quotes request text as one JSON line of the server log', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    routeAstroLogTo(createLogger({ level: 'info', stream }));
    const entry = pathToFileURL(join(resolve('dist'), 'server', 'entry.mjs')).href;
    const { handler } = (await import(entry)) as { handler: AstroHandler };
    const url = `/_image?href=${encodeURIComponent(`/favicon.svg?\n${FORGED}\n`)}&f=webp&w=10`;
    const response = await inject((req, res) => void handler(req, res, () => res.writeHead(404).end(), {} as App.Locals), { url, headers: { host: 'site.test' } });
    expect(response.statusCode).toBe(500);
    const astroLines = lines.map((line) => JSON.parse(line) as { level: string; msg: string; astro?: string });
    expect(astroLines).toHaveLength(1);
    expect(astroLines[0]).toMatchObject({ level: 'error', msg: expect.stringContaining(`\n${FORGED}\n`) });
    expect(lines.some((line) => line.startsWith(FORGED))).toBe(false);
  });
});
