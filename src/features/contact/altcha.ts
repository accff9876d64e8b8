/**
 * The contact form's proof-of-work check (ALTCHA) in words and shapes: the payload a submission
 * carries in its `altcha` member (JSON) or form field (the widget's hidden input), the
 * challenge `GET /api/contact/challenge` issues, and the 400s a missing, wrong or reused
 * solution gets. The verification itself is altcha.server.ts.
 */
import { z } from 'zod';
import { HttpError } from '../../lib/http-error.ts';

/** The member (JSON) and form field (the widget's `name`) that carries the solution. */
export const ALTCHA_FIELD = 'altcha';

export const ALTCHA_LIMITS = {
  /** How long a challenge may be solved and spent, in seconds: long enough to write a message. */
  challengeTtlSeconds: 30 * 60,
  /** Longest payload read, in characters; a real one is under 1,000. */
  payloadChars: 4_096,
} as const;

const hex = z.string().regex(/^[0-9a-f]+$/);

/** altcha-lib v2's challenge, as issued (signed, deterministic, always with an expiry). */
export const AltchaChallenge = z
  .object({
    parameters: z
      .looseObject({
        algorithm: z.string().meta({ examples: ['PBKDF2/SHA-256'] }),
        nonce: hex,
        salt: hex,
        cost: z.int().positive(),
        keyLength: z.int().positive(),
        keyPrefix: hex,
        keySignature: hex.optional(),
        expiresAt: z.int().positive().meta({ description: 'When the challenge expires, in seconds since the epoch.' }),
      })
      .meta({ description: 'What to derive keys with; signed, so not to be changed.' }),
    signature: hex.meta({ description: 'HMAC of the parameters; also the id under which a solution is spent.' }),
  })
  .meta({ id: 'AltchaChallenge', description: 'An ALTCHA v2 proof-of-work challenge (altcha-lib 2): pass it whole to `solveChallenge`.' });

export const AltchaSolution = z.object({
  counter: z.int().nonnegative(),
  derivedKey: hex,
  time: z.number().optional(),
});

/** What `altcha` holds once base64-decoded: the challenge as received and its solution. */
export const AltchaPayload = z.object({ challenge: AltchaChallenge, solution: AltchaSolution });
export type AltchaPayload = z.infer<typeof AltchaPayload>;

const HOW = 'Fetch a challenge from GET /api/contact/challenge, solve it (altcha-lib solveChallenge, or the page’s widget) and send the result in altcha.';

export function challengeRequired(): HttpError {
  return new HttpError('challenge_required', {
    detail: 'This form asks for a proof-of-work solution (altcha), and none was sent. On the contact page the check needs JavaScript.',
    resolution: HOW,
  });
}

export function challengeFailed(detail: string, resolution = HOW): HttpError {
  return new HttpError('challenge_failed', { detail, resolution });
}

export function challengeReplayed(): HttpError {
  return new HttpError('challenge_replayed', {
    detail: 'This proof-of-work solution was already used for another submission.',
    resolution: `Each solution sends one submission. ${HOW}`,
  });
}
