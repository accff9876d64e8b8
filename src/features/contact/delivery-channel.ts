/**
 * What the outbox (outbox.server.ts) asks of a delivery channel: send one submission once and say
 * how it went. The outbox does the rest (claiming, the log, the schedule, the metrics), the same
 * for every channel: the webhook (webhook-channel.server.ts) and the team's e-mail
 * (email-channel.server.ts).
 */
import type { DeliveryChannelName } from '../../db/schema.ts';
import type { SubmissionContent } from './submission-content.ts';

export type { DeliveryChannelName, DeliveryState } from '../../db/schema.ts';

export const CHANNELS = ['webhook', 'email'] as const satisfies readonly DeliveryChannelName[];
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

/** A stored submission as a channel sends it. */
export interface OutgoingSubmission extends SubmissionContent {
  id: number;
  /** Epoch ms it was submitted. */
  created_at: number;
}

/**
 * One attempt's result. `responseCode`: the webhook's HTTP status or the mail server's SMTP reply
 * code, when the peer answered; `error` says what went wrong (no secret in it: stored and printed).
 */
export type AttemptOutcome = { ok: true; responseCode?: number } | { ok: false; responseCode?: number; error: string };

export interface AttemptContext {
  /** The clock of the run (signatures carry the attempt's own time). */
  now: () => number;
  /** How long this attempt may take, connection included. */
  timeoutMs: number;
}

export interface DeliveryChannel {
  readonly name: DeliveryChannelName;
  /** Never throws: every failure is an outcome. */
  send(submission: OutgoingSubmission, context: AttemptContext): Promise<AttemptOutcome>;
  /** Release what the channel holds (connections). */
  close?(): void;
}

/** A submission's deliveries in one word, for the CSV export (deliveries.server.ts, deliverySummaries). */
export interface DeliverySummary {
  /** `none` (nothing to send), `pending` (some delivery is not settled), `failed` (one was given up), `delivered` (all were). */
  status: 'none' | 'pending' | 'failed' | 'delivered';
  /** When the last channel took it, once all have. */
  deliveredAt: number | null;
}
