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
  /**
   * Outbox hand-over: `none` (nothing to send: no channel was configured, or spam), `pending`
   * (the outbox creates its deliveries once next_attempt_at is due), `dispatched` (its deliveries,
   * table contact_delivery, exist). `delivered` only before migration 0006.
   */
  delivery_status: Generated<'none' | 'pending' | 'dispatched' | 'delivered'>;
  /** Before migration 0006 only: the delivery state now lives in contact_delivery. */
  delivery_attempts: Generated<number>;
  /** When the outbox should create the deliveries (status `pending`). */
  next_attempt_at: number | null;
  /** Before migration 0006 only. */
  delivered_at: number | null;
  /** Before migration 0006 only. */
  last_error: string | null;
  /** Why the submission was judged spam (src/features/contact/spam.ts); null when it is not. Spam is never delivered. */
  spam_reason: string | null;
}

export type DeliveryChannelName = 'webhook' | 'email';
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One submission's delivery through one channel (src/features/contact/outbox.server.ts). */
export interface ContactDeliveryTable {
  id: Generated<number>;
  submission_id: number;
  channel: DeliveryChannelName;
  /** `pending` until a 2xx / accepted mail (`delivered`) or the last attempt of the schedule failed (`failed`). */
  state: DeliveryState;
  /** Attempts in the current round: a redelivery starts a new round at 0. Every attempt is in contact_delivery_attempt. */
  attempts: number;
  /** Epoch ms the next attempt is due (also a claim's lease); null when none is (settled, or paused as spam). */
  next_attempt_at: number | null;
  created_at: number;
  delivered_at: number | null;
  failed_at: number | null;
  /** The last failed attempt's error, kept after delivery is given up. */
  last_error: string | null;
}

/** One attempt of one delivery, kept for the delivery log. */
export interface ContactDeliveryAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  /** Epoch ms the attempt started. */
  attempted_at: number;
  duration_ms: number;
  outcome: 'delivered' | 'failed';
  /** The webhook's HTTP status or the mail server's SMTP reply code, when it answered. */
  response_code: number | null;
  /** What went wrong; null for a delivered attempt. */
  error: string | null;
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

/** A spent proof-of-work solution (contact form, ALTCHA), kept until its challenge expires. */
export interface ContactAltchaUsedTable {
  /** The challenge's HMAC signature (hex). */
  signature: string;
  /** Epoch ms when the challenge expires; the row may be purged after it. */
  expires_at: number;
  /** The Idempotency-Key of the submission that spent it, if it had one. */
  idempotency_key: string | null;
}

/** An operator of the console (src/features/console), enrolled from an invite. */
export interface ConsoleOperatorTable {
  id: Generated<number>;
  name: string;
  created_at: number;
}

/** A passkey (WebAuthn credential) of an operator. */
export interface ConsoleCredentialTable {
  /** The credential id, base64url. */
  id: string;
  operator_id: number;
  /** COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter (WebAuthn section 6.1.1). */
  counter: number;
  /** Transports as the browser reported them, comma-separated. */
  transports: string;
  created_at: number;
  last_used_at: number | null;
}

/** A one-time enrolment link (`npm run admin:invite`); only the token's SHA-256 is stored. */
export interface ConsoleInviteTable {
  token_hash: string;
  /** The operator's name, as the inviter wrote it. */
  name: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A WebAuthn challenge issued and not yet answered (single use). */
export interface ConsoleChallengeTable {
  challenge: string;
  purpose: 'enrol' | 'sign-in';
  expires_at: number;
}

/** A signed-in browser; only the cookie token's SHA-256 is stored. */
export interface ConsoleSessionTable {
  token_hash: string;
  operator_id: number;
  /** The synchronizer token every state-changing console request must carry (OWASP CSRF cheat sheet). */
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  revoked_at: number | null;
  /** Shown once on the next page, then cleared (a new API key's token). */
  flash: string | null;
}

/** Who did what, when, in the console (and the console's CLIs). */
export interface ConsoleAuditTable {
  id: Generated<number>;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
}

export interface Database {
  contact_submission: ContactSubmissionTable;
  event: EventTable;
  daily_stat: DailyStatTable;
  health_probe: HealthProbeTable;
  api_key: ApiKeyTable;
  contact_altcha_used: ContactAltchaUsedTable;
  contact_delivery: ContactDeliveryTable;
  contact_delivery_attempt: ContactDeliveryAttemptTable;
  console_operator: ConsoleOperatorTable;
  console_credential: ConsoleCredentialTable;
  console_invite: ConsoleInviteTable;
  console_challenge: ConsoleChallengeTable;
  console_session: ConsoleSessionTable;
  console_audit: ConsoleAuditTable;
}

export type ContactSubmissionRow = Selectable<ContactSubmissionTable>;
export type NewContactSubmission = Insertable<ContactSubmissionTable>;
export type DailyStatRow = Selectable<DailyStatTable>;
export type NewEvent = Insertable<EventTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type ContactDeliveryRow = Selectable<ContactDeliveryTable>;
export type ContactDeliveryAttemptRow = Selectable<ContactDeliveryAttemptTable>;
