/**
 * The contact outbox runner: polls `deliverPending` (src/features/contact/outbox.server.ts, where
 * the delivery and all its SQL live) on an interval while the server runs.
 */
import type { Services } from '../services.ts';
import { deliverPending, webhookFetch, type DeliverOptions, type OutboxDeps } from '../../features/contact/outbox.server.ts';

export interface OutboxHandle {
  /** Stop polling and wait for a run in progress to finish. */
  stop(): Promise<void>;
}

export interface StartOutboxOptions extends DeliverOptions {
  services: Services;
  /** Time between runs. */
  intervalMs: number;
  /** Overrides the configured CONTACT_WEBHOOK_URL. */
  webhookUrl?: string;
  fetch?: typeof fetch;
}

/**
 * Poll the outbox every `intervalMs`, starting with one run at once. Runs never overlap (a tick
 * that finds the previous run still going is skipped) and the timer does not keep the process
 * alive. Without a webhook URL it does nothing. With CONTACT_WEBHOOK_SECRET each delivery is signed.
 */
export function startOutbox(options: StartOutboxOptions): OutboxHandle {
  const { services, intervalMs } = options;
  const webhookUrl = options.webhookUrl ?? services.config.CONTACT_WEBHOOK_URL;
  if (webhookUrl === undefined) return { stop: async () => {} };

  const deps: OutboxDeps = {
    db: services.db,
    log: services.log,
    webhookUrl,
    signingSecret: services.config.CONTACT_WEBHOOK_SECRET,
    // Made once: the guarded fetch keeps its connections for the next runs.
    fetch: options.fetch ?? webhookFetch({ allowPrivate: services.config.CONTACT_WEBHOOK_ALLOW_PRIVATE, allowPorts: services.config.OUTBOUND_ALLOW_PORTS }),
  };
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = deliverPending(deps, options).then(() => {
      running = undefined;
    });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
