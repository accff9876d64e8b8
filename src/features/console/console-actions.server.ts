/**
 * What each console action does, by the form's `op`: the contact features' own operations
 * (erasure by retention.server.ts, the same as `npm run contact:erase`; redelivery and the spam
 * flag by the contact feature's delivery API, deliveries.server.ts) and the API-key repository (the same as
 * `npm run api-keys`). Returns what the audit log records and what the page shows.
 */
import { createKey, DEFAULT_KEY_DAY, DEFAULT_KEY_MINUTE, KeyLimit, revokeKey } from '../apikeys/index.ts';
import { markNotSpam, markSpam, redeliverSubmission } from '../contact/deliveries.server.ts';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendErasure, DEFAULT_POSTGRES_LEDGER, erasureLedgerPath } from '../contact/erasure-ledger.server.ts';
import { eraseSubmissionsByEmail } from '../contact/retention.server.ts';
import { HttpError } from '../../lib/http-error.ts';
import { PATHS } from '../../lib/paths.ts';
import type { ConsoleDeps } from './console-deps.ts';
import type { RequestSession } from './console-session.server.ts';
import { submission } from './inbox.server.ts';
import { putFlash } from './sessions.server.ts';

export interface ActionOutcome {
  /** For the audit log: what was done ("erased", "created API key"), to what, and details. */
  action: string;
  target: string;
  detail?: string;
  /** The query's `done` value the page turns into a message. */
  done: string;
  /** Where to go instead of the form's `back` (an erased submission's page no longer exists). */
  back?: string;
}

function invalid(detail: string): HttpError {
  return new HttpError('validation_failed', { detail, resolution: 'Reload the console page and try again.' });
}

function idOf(form: URLSearchParams): number {
  const text = form.get('id') ?? '';
  if (!/^[1-9]\d{0,15}$/.test(text)) throw invalid('The form names no valid id.');
  return Number(text);
}

async function existing(deps: ConsoleDeps, form: URLSearchParams) {
  const row = await submission(deps.db.kysely, idOf(form));
  if (!row) throw new HttpError('not_found', { detail: 'No such submission: it may have been erased or purged.' });
  return row;
}

function limitOf(form: URLSearchParams, name: string, fallback: number): number {
  const text = form.get(name)?.trim() ?? '';
  if (text === '') return fallback;
  const parsed = KeyLimit.safeParse(text);
  if (!parsed.success) throw invalid(`${name}: ${parsed.error.issues[0]?.message ?? 'not a valid limit'}`);
  return parsed.data;
}

/**
 * Before anything is deleted, the erasure goes into the erasure ledger, as `contact:erase` does,
 * so that restoring an older backup erases the person again; if it cannot be written, nothing is.
 */
async function recordErasure(deps: ConsoleDeps, email: string, now: number): Promise<void> {
  const ledger = erasureLedgerPath(deps.config.DATABASE_URL, deps.config.ERASURE_LEDGER);
  if (ledger === undefined) return;
  try {
    if (ledger === DEFAULT_POSTGRES_LEDGER) await mkdir(dirname(ledger), { recursive: true });
    await appendErasure(ledger, email, now);
  } catch (error) {
    throw new HttpError('service_unavailable', { detail: 'The erasure could not be recorded in the erasure ledger, so nothing was erased.', resolution: 'Check ERASURE_LEDGER is writable, then try again.', cause: error });
  }
}

export async function consoleAction(form: URLSearchParams, signedIn: RequestSession, deps: ConsoleDeps, now: number): Promise<ActionOutcome> {
  const db = deps.db.kysely;
  const op = form.get('op');
  switch (op) {
    case 'redeliver': {
      const row = await existing(deps, form);
      // Due at once, in the database: the running outbox of any instance sends it on its next pass.
      const result = await redeliverSubmission(deps.db, row.id, { now });
      if (result.spam > 0) throw invalid('This submission is marked as spam: mark it not spam to deliver it.');
      return { action: 'redelivered', target: `submission ${row.id}`, detail: `${result.deliveries} delivery(ies) due now`, done: 'redelivered' };
    }
    case 'spam': {
      const row = await existing(deps, form);
      await markSpam(deps.db, row.id, `marked by ${signedIn.session.operatorName}`);
      return { action: 'marked spam', target: `submission ${row.id}`, done: 'spam' };
    }
    case 'not-spam': {
      const row = await existing(deps, form);
      await markNotSpam(deps.db, row.id, { now });
      return { action: 'marked not spam', target: `submission ${row.id}`, done: 'not-spam' };
    }
    case 'erase': {
      const row = await existing(deps, form);
      await recordErasure(deps, row.work_email, now);
      const result = await eraseSubmissionsByEmail(deps.db, row.work_email);
      if (result.error) throw result.error;
      // The address itself is personal data the erasure removed: the log keeps the count only.
      return { action: 'erased a person', target: `submission ${row.id}`, detail: `${result.submissions} submission(s), ${result.pendingDeliveries} pending delivery(ies)`, done: `erased-${result.submissions}`, back: `${PATHS.console}/` };
    }
    case 'key-create': {
      const name = form.get('name')?.trim() ?? '';
      if (name === '' || name.length > 200) throw invalid('Name the key (who it is for), in at most 200 characters.');
      const { key, token } = await createKey(db, { name, minuteLimit: limitOf(form, 'minute', DEFAULT_KEY_MINUTE), dayLimit: limitOf(form, 'day', DEFAULT_KEY_DAY), now });
      await putFlash(db, signedIn.token, token);
      return { action: 'created API key', target: `key ${key.id}`, detail: `${key.name}: ${key.minuteLimit}/min, ${key.dayLimit}/day`, done: 'key-created' };
    }
    case 'key-revoke': {
      const id = idOf(form);
      const outcome = await revokeKey(db, id, now);
      if (outcome === 'unknown') throw new HttpError('not_found', { detail: `No API key ${id}.` });
      return { action: 'revoked API key', target: `key ${id}`, detail: outcome === 'already' ? 'was already revoked' : undefined, done: 'key-revoked' } as ActionOutcome;
    }
    default:
      throw invalid(`Unknown action ${JSON.stringify(op ?? '')}.`);
  }
}
