/**
 * Reading Retry-After in the browser (chat widget, contact form, stats page): delay-seconds or
 * an HTTP-date (RFC 9110 section 10.2.3), and saying the wait in words.
 */

/** Whole seconds to wait (at least 1), or undefined when the header is absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  const v = value?.trim() ?? '';
  if (/^\d+$/.test(v)) return Math.max(1, Number(v));
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - nowMs) / 1000));
}

/** The same, with a fallback (a minute) when the server gave no usable value. */
export function retryAfterSeconds(value: string | null, now = Date.now(), fallback = 60): number {
  return parseRetryAfter(value, now) ?? fallback;
}

/** "1 second", "20 minutes", "2 hours": rounded up, so the wait is never understated. */
export function describeWait(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return unit(Math.max(1, Math.ceil(seconds)), 'second');
  if (seconds < 3600) return unit(Math.ceil(seconds / 60), 'minute');
  return unit(Math.ceil(seconds / 3600), 'hour');
}
