/**
 * `npm start`: runs the production server as `astro build` compiled it, `<DIST_DIR>/server/app.mjs`
 * (src/app/server-bundle.ts explains why JavaScript and not src/app/main.ts). DIST_DIR is read
 * here the same way the server reads it (default ./dist), so a build made elsewhere
 * (ASTRO_OUT_DIR=… npm run build; DIST_DIR=… npm start) starts its own bundle.
 *
 * Plain JavaScript, like bin/require-node.mjs, which runs first and refuses an unsupported
 * Node.js. A missing bundle gets the server's own one-line answer for a missing build (exit 66,
 * EX_NOINPUT in sysexits.h), not a stack trace.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.DIST_DIR || './dist';
const bundle = resolve(join(dist, 'server', 'app.mjs'));
if (!existsSync(bundle)) {
  process.stderr.write(`start-up failed: no Astro build in DIST_DIR (${dist}): run \`npm run build\` first\n`);
  process.exit(66);
}
await import(pathToFileURL(bundle).href);
