/**
 * Members of a contact body that no field answers to. zod's default `strip` dropped them
 * silently: `{"mesage": "..."}` answered 200 and the message was lost. Each is now a 400 naming
 * the member and, when one is near, the field it was probably meant to be (the way the news
 * frontmatter's `suggestField` does for editors). The honeypot and the proof of work travel
 * beside the fields and are accepted (honeypot.ts HONEYPOT_FIELD, altcha.ts ALTCHA_FIELD).
 */
import { boundedEditDistance } from '../../lib/edit-distance.ts';
import type { FieldError } from '../../lib/field-error.ts';

/** Unknown members named one by one; past this many, one more entry counts the rest. */
const NAMED_AT_MOST = 5;

/** A name as compared for suggestions: case, hyphens, underscores and spaces do not count. */
const comparable = (text: string) => [...text.toLowerCase().replace(/[-_\s]/g, '')];

/**
 * The field `key` was most likely meant to be: within one edit (a swap of neighbours counts as
 * one) for names of up to four characters, two for longer ones; ties go to the field listed
 * first. Undefined when none is that near.
 */
export function nearestField(key: string, fields: readonly string[]): string | undefined {
  const chars = comparable(key);
  const allowance = chars.length <= 4 ? 1 : 2;
  let best: { field: string; distance: number } | undefined;
  for (const field of fields) {
    const distance = boundedEditDistance(chars, comparable(field), allowance, { transpositions: true });
    if (distance <= allowance && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** One error per member of `body` that is neither a field nor one of `beside`, in body order. */
export function unknownFieldErrors(body: Record<string, unknown>, fields: readonly string[], beside: readonly string[]): FieldError[] {
  const unknown = Object.keys(body).filter((key) => !fields.includes(key) && !beside.includes(key));
  const expected = `one of the fields ${fields.join(', ')}`;
  const errors: FieldError[] = unknown.slice(0, NAMED_AT_MOST).map((key) => {
    const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
    const near = nearestField(key, fields);
    return {
      field: shown,
      message: near ? `Unknown field "${shown}": did you mean "${near}"?` : `Unknown field "${shown}": the contact fields are ${fields.join(', ')}.`,
      expected,
    };
  });
  if (unknown.length > NAMED_AT_MOST) {
    errors.push({ field: '', message: `${unknown.length - NAMED_AT_MOST} more unknown fields.`, expected });
  }
  return errors;
}
