/**
 * Tests that start the real server need an Astro build. `npm test` builds first; when a single
 * file is run on its own and no build exists, build once here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export default function setup(): void {
  if (!existsSync('dist/server/entry.mjs')) {
    execFileSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], { stdio: 'inherit' });
  }
}
