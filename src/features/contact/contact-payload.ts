/**
 * The ContactPayload body of `POST /api/contact` (docs/interface.md sections 2, 3 and 5): the zod
 * schema, the one source of truth for the form's fields, their bounds and the published document.
 */
import { z } from 'zod';
import { cleanText } from '../../lib/clean-text.ts';
import { CONTACT_LIMITS } from './contact-limits.ts';

/** At least one character that is not white space: what "not blank" means, as a JSON Schema pattern. */
const NOT_BLANK = /\S/;

/** The values of `priority`, in the order the form offers them. */
export const PRIORITIES = ['high', 'standard', 'message'] as const;

/**
 * The contact form. White space around every string is removed before anything else, and the
 * bounds apply to what remains; unknown members are refused by parseContactPayload (a misspelt
 * `mesage` would otherwise be dropped and the message lost), and never stored. Text may not hold NUL or unpaired surrogates (src/lib/clean-text.ts).
 *
 * The email keeps its trimming rather than refusing surrounding spaces: the page sends what was
 * typed, and a pasted or autofilled address often ends in a space nobody can see; refusing it
 * would spend one of the sender's hourly attempts on an invisible character. The description
 * says so, since the published `pattern` alone would refuse such a value.
 */
export const ContactPayload = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(CONTACT_LIMITS.nameChars)
      .regex(NOT_BLANK)
      .check(cleanText())
      .meta({
        description: 'Who is writing: 1 to 200 characters after surrounding white space is removed; not blank.',
        examples: ['Ada Lovelace'],
      }),
    job_title: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.jobTitleChars)
      .check(cleanText())
      .optional()
      .meta({ description: 'Their role, if they want to say: at most 200 characters after surrounding white space is removed. Blank counts as absent.', examples: ['Head of Programmatic'] }),
    work_email: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.emailChars)
      // The address pattern admits ASCII only, so NUL and surrogates are already refused.
      .check(z.email())
      .meta({
        description:
          'Where the team answers: an email address, at most 254 characters. Surrounding white space is removed before the address is checked and stored, so " ada@example.com " is accepted as "ada@example.com".',
        examples: ['ada@harbourdaily.example'],
      }),
    priority: z.enum(PRIORITIES).meta({ description: 'How soon they need an answer: `high`, `standard`, or `message` (no reply needed).', examples: ['standard'] }),
    message: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.messageChars)
      .check(cleanText())
      .optional()
      .meta({
        description: 'What they want to tell us: at most 5,000 characters after surrounding white space is removed. Blank counts as absent.',
        examples: ['We would like to list our sports inventory with you. Who can we talk to?'],
      }),
  })
  .meta({ description: 'The contact form. Strings are trimmed; an unknown member is refused (400, naming it and the nearest field), except the honeypot `website` and the proof of work `altcha`, which are accepted and never stored.' });
export type ContactPayload = z.infer<typeof ContactPayload>;
export type ContactField = keyof ContactPayload;
