/**
 * Table types for kysely. One definition serves both engines: instants are epoch milliseconds
 * (integers), calendar days are `YYYY-MM-DD` text, money is integer minor units (cents), so no
 * engine-specific date or decimal type leaks into the code.
 */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface ContactSubmissionTable {
  id: Generated<number>;
  created_at: number;
  name: string;
  job_title: string | null;
  work_email: string;
  priority: 'high' | 'standard' | 'message';
  message: string | null;
  /** Client-chosen key that makes a retried submission store once (header Idempotency-Key). */
  idempotency_key: string | null;
  /** Outbox state for webhook forwarding: none (no webhook), pending, delivered. */
  delivery_status: Generated<'none' | 'pending' | 'delivered'>;
  delivery_attempts: Generated<number>;
  next_attempt_at: number | null;
  delivered_at: number | null;
  last_error: string | null;
}

export interface EventTable {
  /** Producer-assigned id; re-importing the same event is a no-op. */
  id: string;
  occurred_at: number;
  kind: 'transaction' | 'impression';
  /** Revenue of a transaction in integer minor units (cents); 0 for impressions. */
  revenue_minor: number;
}

export interface DailyStatTable {
  /** UTC calendar day, YYYY-MM-DD. */
  day: string;
  txn_count: number;
  impr_count: number;
  revenue_minor: number;
  materialized_at: number;
}

/** A single row (id 1) that DbHandle.ping rewrites to learn whether writes work. */
export interface HealthProbeTable {
  id: number;
  /** Epoch ms of the last probe. */
  checked_at: number;
}

/** Integrator keys of the data API (src/features/apikeys). The token itself is never stored. */
export interface ApiKeyTable {
  id: Generated<number>;
  /** Who the key is for, as the operator wrote it. */
  name: string;
  /** SHA-256 of the token, lowercase hex (api-key.ts says why a plain hash suffices). */
  token_hash: string;
  /** The token's first characters, shown by `api-keys list` to tell keys apart. */
  token_prefix: string;
  /** Requests per minute (token bucket) and per UTC day this key may make. */
  minute_limit: number;
  day_limit: number;
  created_at: number;
  /** Epoch ms of revocation; null while the key is live. */
  revoked_at: number | null;
}

export interface Database {
  contact_submission: ContactSubmissionTable;
  event: EventTable;
  daily_stat: DailyStatTable;
  health_probe: HealthProbeTable;
  api_key: ApiKeyTable;
}

export type ContactSubmissionRow = Selectable<ContactSubmissionTable>;
export type NewContactSubmission = Insertable<ContactSubmissionTable>;
export type DailyStatRow = Selectable<DailyStatTable>;
export type NewEvent = Insertable<EventTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
