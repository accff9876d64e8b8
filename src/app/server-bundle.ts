/**
 * The Astro integration that compiles the production server (src/app/main.ts and everything it
 * imports, but no package) into one JavaScript module, `<outDir>/server/app.mjs`, when
 * `astro build` finishes. `npm start` runs that module (through bin/start.mjs), so the running
 * server never loads a `.ts` file: Node's type stripping instantiates a WebAssembly compiler
 * (amaro) on the first `.ts` import, about 18 MB of resident memory for the life of the process,
 * plus the transform's garbage per module. `node src/app/main.ts` still works (tests, debugging);
 * both run the same code.
 *
 * esbuild (which Astro and Vite already install) only strips types and joins modules here:
 * packages stay imports, resolved from node_modules at run time like the Astro build's own server
 * chunks, so the bundle needs the same installed dependencies and no more.
 */
import { mkdirSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { afterBuild } from '../lib/after-build.ts';

/** Where the bundle goes, below the build's folder (DIST_DIR at run time). */
export const SERVER_BUNDLE = 'server/app.mjs';

export function serverBundle(): AstroIntegration {
  return afterBuild('adtech:server-bundle', async ({ outDir }, logger) => {
    const { build } = await import('esbuild');
    const target = fileURLToPath(new URL(SERVER_BUNDLE, outDir));
    const partial = `${target}.${process.pid}.tmp`;
    mkdirSync(fileURLToPath(new URL('server/', outDir)), { recursive: true });
    const started = performance.now();
    await build({
      entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
      outfile: partial,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22.19',
      packages: 'external',
      // Readable stack traces: names and layout are kept (no minification).
      logLevel: 'warning',
      legalComments: 'none',
    });
    // Renamed into place: a server starting meanwhile never imports half a file.
    renameSync(partial, target);
    logger.info(`server bundle ${SERVER_BUNDLE} in ${Math.round(performance.now() - started)} ms`);
  });
}
