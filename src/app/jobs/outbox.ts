/**
 * The contact outbox runner: polls `deliverPending` (src/features/contact/outbox.server.ts, where
 * the delivery and all its SQL live) on an interval while the server runs, with the channels the
 * configuration turns on: the webhook (CONTACT_WEBHOOK_URL) and the team's e-mail
 * (CONTACT_NOTIFY_SMTP_URL with CONTACT_NOTIFY_TO).
 */
import type { Services } from '../services.ts';
import type { Config } from '../config.ts';
import type { DeliveryChannel } from '../../features/contact/delivery-channel.ts';
import { emailChannel } from '../../features/contact/email-channel.server.ts';
import { deliverPending, type DeliverOptions } from '../../features/contact/outbox.server.ts';
import { retrySchedule } from '../../features/contact/retry-schedule.ts';
import { webhookChannel } from '../../features/contact/webhook-channel.server.ts';
import { NO_METER, type Meter } from '../../lib/meter.ts';

export interface OutboxHandle {
  /** Stop polling and wait for a run in progress to finish. */
  stop(): Promise<void>;
}

export interface StartOutboxOptions extends DeliverOptions {
  services: Services;
  /** Time between runs; CONTACT_OUTBOX_INTERVAL_MS by default. */
  intervalMs?: number;
  /** Overrides the configured CONTACT_WEBHOOK_URL. */
  webhookUrl?: string;
  fetch?: typeof fetch;
  meter?: Meter;
}

/** The channels the configuration turns on, in a fixed order. */
export function configuredChannels(config: Config, overrides: Pick<StartOutboxOptions, 'webhookUrl' | 'fetch'> = {}): DeliveryChannel[] {
  const channels: DeliveryChannel[] = [];
  const url = overrides.webhookUrl ?? config.CONTACT_WEBHOOK_URL;
  if (url !== undefined) {
    channels.push(webhookChannel({ url, signingSecret: config.CONTACT_WEBHOOK_SECRET, allowPrivate: config.CONTACT_WEBHOOK_ALLOW_PRIVATE, allowPorts: config.OUTBOUND_ALLOW_PORTS, fetch: overrides.fetch }));
  }
  const to = config.CONTACT_NOTIFY_TO;
  if (config.CONTACT_NOTIFY_SMTP_URL !== undefined && to !== undefined) {
    channels.push(emailChannel({ smtpUrl: config.CONTACT_NOTIFY_SMTP_URL, to, from: config.CONTACT_NOTIFY_FROM ?? to[0]! }));
  }
  return channels;
}

/**
 * Poll the outbox every `intervalMs`, starting with one run at once. Runs never overlap (a tick
 * that finds the previous run still going is skipped) and the timer does not keep the process
 * alive. Without a channel it does nothing.
 */
export function startOutbox(options: StartOutboxOptions): OutboxHandle {
  const { services } = options;
  const { config } = services;
  const channels = configuredChannels(config, options);
  if (channels.length === 0) return { stop: async () => {} };

  const deps = { db: services.db, log: services.log, meter: options.meter ?? services.meter ?? NO_METER, channels };
  const deliverOptions: DeliverOptions = { ...options, schedule: options.schedule ?? retrySchedule(config.CONTACT_DELIVERY_SCHEDULE, config.CONTACT_DELIVERY_ATTEMPTS) };
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = deliverPending(deps, deliverOptions).then(() => {
      running = undefined;
    });
  };
  const timer = setInterval(tick, options.intervalMs ?? config.CONTACT_OUTBOX_INTERVAL_MS);
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
