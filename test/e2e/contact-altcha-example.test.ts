/**
 * examples/contact-altcha.mjs, the script docs/integrators.md shows under "Contact from code":
 * the guide's copy is the file, and run against a server whose proof of work is on, it solves the
 * challenge and its submission is stored. With the check off (the demo) `npm run first-hour` runs
 * it as the guide writes it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { belowHeaderComment, guideBlock } from '../helpers/guide-copy.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'contact-altcha.mjs');

/** Runs the example as a reader would, against `site`; resolves with its exit code and stdout. */
async function runExample(site: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [EXAMPLE, site], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('the ALTCHA example of the integrators guide', () => {
  it('is examples/contact-altcha.mjs as it is, below its header comment', () => {
    expect(guideBlock('docs/integrators.md', '## Contact from code', 'js')).toBe(belowHeaderComment('examples/contact-altcha.mjs'));
  });

  describe('against a server whose proof of work is on', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer({ CONTACT_ALTCHA_HMAC_KEY: 'example-test-altcha-key-0123456789abcdef' });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('solves the challenge, submits, and prints each step', { timeout: 240_000 }, async () => {
      const run = await runExample(server.url);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^challenge: 200\nsolved in \d+ ms\ncontact: 200 \{"success":true\}\n$/);
    });

    it('is refused without a solution, which is what the example spares its reader', async () => {
      const response = await fetch(`${server.url}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada', work_email: 'ada@example.com', priority: 'standard' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'challenge_required' });
    });
  });
});
