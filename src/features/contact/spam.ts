/**
 * What makes a contact submission spam, kept simple and documented (docs/operators.md, "Spam").
 * Spam is answered exactly like any other submission (200, or the thank-you page), so a bot learns
 * nothing to adapt to; it is stored with its reason, never forwarded nor mailed, left out of the
 * export unless asked for (`contact:export -- --spam`), and an operator can mark it not spam,
 * after which it is delivered like the rest (deliveries.server.ts).
 *
 * The signals, in the order the contact endpoint checks them:
 * 1. the honeypot (honeypot.ts, HONEYPOT_FIELD) holds anything: `honeypot`;
 * 2. with the proof of work on, a solution that is malformed, forged, wrong, expired or already
 *    spent: `proof of work: <why>` (a missing one is still refused with 400 challenge_required,
 *    which tells a person without JavaScript what to do and a bot nothing it could not read on
 *    the page);
 * 3. these heuristics on what was typed.
 *
 * Each verdict carries its kind beside the words: the kind is the `reason` label of
 * contact_submissions_refused_total (docs/operators.md, deploy/'s alert rules), the words are
 * stored and logged with the submission.
 */

/** The kinds of spam signal, as the metric's `reason` label names them. */
export type SpamKind = 'honeypot' | 'proof_of_work' | 'heuristic';

/** Why a submission is spam: its kind, and the reason stored with it (`spam_reason`). */
export interface SpamVerdict {
  kind: SpamKind;
  reason: string;
}

/** A web address: what link spam is made of (the `g` copy counts; `test` on it would keep state). */
const LINK = /\bhttps?:\/\/|\bwww\.[a-z0-9-]/i;
const LINKS = new RegExp(LINK.source, 'gi');
/** Link markup in a plain-text form: bulletin-board `[url=...]` and HTML anchors. */
const MARKUP = /\[url[=\]]|<a\s+href/i;
/** More links than this in the message is spam. */
export const MAX_MESSAGE_LINKS = 3;

const heuristic = (why: string): SpamVerdict => ({ kind: 'heuristic', reason: `heuristic: ${why}` });

/** Why these contents look like spam, or undefined when they do not. */
export function spamHeuristic(content: { name: string; job_title?: string | null | undefined; message?: string | null | undefined }): SpamVerdict | undefined {
  if (LINK.test(content.name) || LINK.test(content.job_title ?? '')) return heuristic('a link in the name or job title');
  const message = content.message ?? '';
  if (MARKUP.test(message)) return heuristic('link markup in the message');
  const links = message.match(LINKS)?.length ?? 0;
  if (links > MAX_MESSAGE_LINKS) return heuristic(`${links} links in the message (more than ${MAX_MESSAGE_LINKS})`);
  return undefined;
}
