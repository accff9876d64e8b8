/**
 * What astro.config.mjs reads from the environment, read with the server's own rules (config.ts)
 * so that `astro build` and `astro dev` agree with `npm start` on where the site lives. A bad
 * value stops them as it stops `npm start`: one line on stderr naming the variable, exit 78
 * (EX_CONFIG in sysexits(3)), rather than a stack trace from deep inside Astro's config loader.
 */
import { ConfigError, configErrorLine, loadConfig, type Config } from './config.ts';

/** src/app/exit-codes.ts's EX_CONFIG; that module loads the database layer, which Astro's config does not need. */
const EX_CONFIG = 78;

function orExit(env: Record<string, string | undefined>): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${configErrorLine(error)}\n`);
    process.exit(EX_CONFIG);
  }
}

/** The variables that say where the site is served; a build reads no other (no secret, no server-only setting). */
const ORIGIN_VARIABLES = ['PORT', 'HOST', 'SITE_URL'] as const;

/**
 * The public origin of the build's absolute URLs (feed, sitemap, /api/news, OpenAPI servers):
 * SITE_URL, or the address the server will listen on (`0.0.0.0`/`::` become 127.0.0.1), as the
 * server derives its own, so `PORT=8080 npm run demo` links to port 8080.
 */
export function siteOrigin(env: Record<string, string | undefined> = process.env): string {
  return orExit(Object.fromEntries(ORIGIN_VARIABLES.map((name) => [name, env[name]]))).SITE_URL;
}

/**
 * Astro's `server` option, as a function of the command: Astro calls it with `dev` for
 * `astro dev` and with `preview` for every other command (build, check, sync), which listen on
 * nothing and are left alone. `astro dev` validates the whole configuration as `npm start` does,
 * then listens on PORT and HOST; Astro's `--port` and `--host` flags still win.
 */
export function devServerOptions({ command }: { command: 'dev' | 'preview' }, env: Record<string, string | undefined> = process.env): { port?: number; host?: string } {
  if (command !== 'dev') return {};
  const { PORT, HOST } = orExit(env);
  return { port: PORT, host: HOST };
}
