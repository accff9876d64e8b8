/**
 * One invalid field, as listed in the `errors` extension of a 400 problem (RFC 9457 section 3.2
 * allows extension members), and the one place zod issues become such entries. Both the contact
 * form and the chat use it; each says in its own words what is wrong through `describe`.
 */
import { z } from 'zod';
import { HttpError } from './http-error.ts';

export const FieldError = z
  .object({
    field: z.string().meta({
      description: 'Where the problem is: a body member such as `work_email` or `messages[2].content`, a header such as `Idempotency-Key`, or empty for the body as a whole.',
      examples: ['work_email'],
    }),
    message: z.string().meta({ description: 'What is wrong, as a sentence a person can act on.', examples: ['Work email must be an email address such as ada@example.com.'] }),
    expected: z
      .string()
      .optional()
      .meta({ description: 'What a valid value looks like, when that helps.', examples: ['an email address such as ada@example.com, at most 254 characters'] }),
  })
  .meta({ id: 'FieldError', description: 'One invalid field of a request.' });
export type FieldError = z.infer<typeof FieldError>;

/** `messages[2].content` style paths, the way a reader of the body would write them. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** A feature's words for one issue: its message, and what would be valid. */
export type DescribeIssue = (issue: z.core.$ZodIssue, field: string) => Omit<FieldError, 'field'>;

/**
 * zod issues to `errors`: one entry per field (its first issue, which is what the person fixes
 * first). With `order`, entries follow it (fields not in it, such as the body itself, first);
 * otherwise they keep the issues' order.
 */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], describe: DescribeIssue, order?: readonly string[]): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of issues) {
    const field = formatPath(issue.path);
    if (!byField.has(field)) byField.set(field, { field, ...describe(issue, field) });
  }
  const errors = [...byField.values()];
  return order ? errors.sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field)) : errors;
}

/** The 400 for invalid fields: the detail repeats a single message or names every field. */
export function validationFailed(errors: readonly FieldError[], resolution: string): HttpError {
  const detail = errors.length === 1 ? errors[0]!.message : `${errors.length} fields are invalid: ${errors.map((e) => e.field || 'the body').join(', ')}.`;
  return new HttpError('validation_failed', { detail, resolution, extensions: { errors } });
}
