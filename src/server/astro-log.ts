/**
 * Astro's own log lines (its Node adapter's "Could not render ...", the image service's warnings,
 * an unhandled rejection while rendering) as JSON lines through the server's logger. Astro's
 * default destination writes plain text: a message that quotes request text (an image `href`
 * with an encoded newline) started a line of its own there, and one shaped like ours passed for
 * a line of ours (`{"level":"fatal","msg":"FORGED admin login"}`, issue 31). Through pino every
 * message is one JSON string, cut to ASTRO_MESSAGE_CHARS, with secrets redacted as in every line.
 *
 * astro.config.mjs names this module Astro's logger (`logger.entrypoint`, Astro 7); its default
 * export makes the destination. The composition root hands the destination the process's logger
 * (routeAstroLogTo). Without one (`astro build`, `astro dev`) Astro's usual Node destination writes
 * as before.
 */
import type { AstroLoggerDestination, AstroLoggerMessage } from 'astro';
import nodeDestination from 'astro/logger/node';
import type { Logger } from 'pino';

/** How much of one Astro message a line carries; a longer one is cut and its length given. */
export const ASTRO_MESSAGE_CHARS = 4096;

/**
 * Where the process's logger waits for Astro's destination. Astro bundles this module into its
 * own server chunks, a module instance apart from the one the composition root loads: a
 * process-wide registered symbol is what both copies share.
 */
const SINK = Symbol.for('adtech-site.astro-log');
const registry = globalThis as { [SINK]?: Logger };

/** ANSI colour codes (SGR): Astro colours some messages; a JSON line has no use for them. */
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * Write Astro's log events through `log` from now on. Never undone: Astro may still log while the
 * process closes, and the logger outlives the app (flushed last, by the entry).
 */
export function routeAstroLogTo(log: Logger): void {
  registry[SINK] = log;
}

/** One Astro event as one line of `log`. */
export function writeAstroEvent(log: Logger, event: AstroLoggerMessage): void {
  const text = event.message.replace(SGR, '');
  const fields = { astro: event.label ?? undefined, messageLength: text.length > ASTRO_MESSAGE_CHARS ? text.length : undefined };
  const message = text.length > ASTRO_MESSAGE_CHARS ? text.slice(0, ASTRO_MESSAGE_CHARS) : text;
  const level = event.level === 'error' || event.level === 'warn' || event.level === 'debug' ? event.level : 'info';
  log[level](fields, message);
}

/** Astro's logger destination (the `logger.entrypoint` contract): the server's logger when one is routed. */
export default function astroLogDestination(): AstroLoggerDestination {
  // Level filtering is the AstroLogger's (it holds `--verbose`/`--silent`); the fallback passes all.
  const fallback = nodeDestination({ level: 'debug' });
  return {
    write(event) {
      const log = registry[SINK];
      if (log) writeAstroEvent(log, event);
      else fallback.write(event);
    },
  };
}
