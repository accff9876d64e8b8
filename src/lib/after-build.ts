/**
 * An Astro integration that does one thing once `astro build` is done, given the build's folders
 * (Astro's integration API: `astro:config:done` gives the resolved config, `astro:build:done` the
 * logger). The build steps of this project (the server bundle, the assistant index's move, the
 * precompressed files and their manifest) are each one of these.
 */
import type { AstroIntegration, AstroIntegrationLogger } from 'astro';

export interface BuildFolders {
  /** The build's folder (DIST_DIR): `config.outDir`. */
  outDir: URL;
  /** Where public files go (dist/client/): `config.build.client`. */
  client: URL;
  /** Where server files go (dist/server/): `config.build.server`. */
  server: URL;
}

export function afterBuild(name: string, step: (folders: BuildFolders, logger: AstroIntegrationLogger) => Promise<void>): AstroIntegration {
  let folders: BuildFolders | undefined;
  return {
    name,
    hooks: {
      'astro:config:done': ({ config }) => {
        folders = { outDir: config.outDir, client: config.build.client, server: config.build.server };
      },
      'astro:build:done': async ({ logger }) => {
        if (!folders) throw new Error(`${name}: astro:build:done came before astro:config:done`);
        await step(folders, logger);
      },
    },
  };
}
