/**
 * Money crosses the system as integer minor units (cents) and becomes a decimal only at the
 * edges: parsed exactly from text on import, printed exactly to JSON on the way out. Binary
 * floating point never does arithmetic on it, so 0.10 + 0.20 is stored as 10 + 20 = 30 cents
 * and served as `0.3`, never `0.30000000000000004`.
 */

/**
 * Largest magnitude handled exactly: 15 significant digits. A binary64 double holds every
 * decimal of up to 15 significant digits round-trip (DBL_DIG = 15), not every one of 16, so
 * beyond this a JSON number could not carry the amount to the cent.
 */
export const MAX_EXACT_CENTS = 999_999_999_999_999;
/** Whole-unit digits that keep an amount within MAX_EXACT_CENTS. */
const MAX_UNIT_DIGITS = 13;
const AMOUNT_PATTERN = new RegExp(`^(-?)(\\d{1,${MAX_UNIT_DIGITS}})(?:\\.(\\d{1,2}))?$`);

/**
 * Cents to the JSON number that prints exactly as the decimal amount (1234567 -> 12345.67).
 *
 * `cents / 100` is that number: both operands are exact doubles, and IEEE 754 division is
 * correctly rounded, so the quotient is the double nearest to the exact value cents/100, which is
 * the decimal amount; `Number("12345.67")` is the double nearest to the same value, so the same
 * double (test/unit/features/stats/money.test.ts compares the two for every amount up to
 * 20,000.00 and at random up to MAX_EXACT_CENTS). ECMAScript's Number-to-String (used by JSON.stringify) prints the shortest
 * string that reads back as that double, i.e. exactly "12345.67". Building and parsing the
 * string cost half a microsecond a call, a sixth of a 31-day data answer's own work.
 */
export function centsToAmount(cents: number): number {
  if (!Number.isInteger(cents) || Math.abs(cents) > MAX_EXACT_CENTS) {
    throw new RangeError(`cents must be an integer of at most 15 digits to print exactly, got ${cents}`);
  }
  // `|| 0`: no negative zero (-0 / 100), which the string form never gave.
  return cents / 100 || 0;
}

export type CentsParse = { ok: true; cents: number } | { ok: false; reason: string };

/**
 * A decimal amount in currency units ("12.5", 12.5, "0.07") to integer cents, exactly.
 * Refuses more than two decimals rather than rounding: a third decimal means the producer and
 * we disagree about the unit, and silently rounding would hide that.
 *
 * A JSON number has already become a double when we see it; `String(n)` gives back the shortest
 * decimal that reads as that double (0.1 -> "0.1"), which is what the producer wrote.
 */
export function amountToCents(input: string | number): CentsParse {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, reason: `${input} is not a finite amount` };
    text = String(input);
  } else {
    text = input.trim();
  }
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) {
    if (/^-?\d+\.\d{3,}$/.test(text)) return { ok: false, reason: `${text} has more than 2 decimals` };
    if (/^-?\d+(\.\d+)?$/.test(text)) return { ok: false, reason: `${text} is too large (at most ${MAX_UNIT_DIGITS} digits before the decimal point)` };
    return { ok: false, reason: `${JSON.stringify(text.length > 32 ? `${text.slice(0, 32)}…` : text)} is not a decimal amount such as 12.34` };
  }
  const [, sign, units, fraction = ''] = match;
  const cents = Number(units) * 100 + Number(fraction.padEnd(2, '0'));
  return { ok: true, cents: sign === '-' && cents !== 0 ? -cents : cents };
}
