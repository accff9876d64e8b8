/**
 * The settings of the team's e-mail notification (email-channel.server.ts), as zod schemas that
 * src/app/config.ts validates at start: CONTACT_NOTIFY_SMTP_URL, CONTACT_NOTIFY_TO and
 * CONTACT_NOTIFY_FROM. Messages never repeat a password (config.ts also redacts the URL it echoes).
 */
import { z } from 'zod';

/**
 * An address as the notification uses it: the addr-spec alone (no display name, no comment, no
 * group), ASCII, no white space, commas, quotes or angle brackets, so it can only ever name one
 * mailbox, in a header and in the SMTP envelope alike. zod's email check, which the contact form's
 * work_email passes too.
 */
export const MAILBOX = z.email();

export function isMailbox(text: string): boolean {
  return MAILBOX.safeParse(text).success && !/[\s,;<>"()\\]/.test(text);
}

/** The SMTP server: `smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start). */
export interface SmtpTarget {
  secure: boolean;
  host: string;
  /** Unset: nodemailer's default, 587 for smtp:// and 465 for smtps://. */
  port: number | undefined;
  /** Percent-decoded credentials, when the URL carries them. */
  auth: { user: string; pass: string } | undefined;
}

export function smtpTarget(url: string): SmtpTarget {
  const parsed = new URL(url);
  const decode = (part: string) => decodeURIComponent(part);
  return {
    secure: parsed.protocol === 'smtps:',
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? undefined : Number(parsed.port),
    auth: parsed.username === '' ? undefined : { user: decode(parsed.username), pass: decode(parsed.password) },
  };
}

const SMTP_EXPECTS = 'must be smtp://[user:password@]host[:port] or smtps://… (percent-encode special characters in the credentials), with no path or query';

/** CONTACT_NOTIFY_SMTP_URL. */
export const SmtpUrl = z.string().check((ctx) => {
  const parsed = URL.parse(ctx.value);
  let decodable = true;
  try {
    if (parsed) decodeURIComponent(parsed.username + parsed.password);
  } catch {
    decodable = false;
  }
  const ok =
    parsed !== null &&
    (parsed.protocol === 'smtp:' || parsed.protocol === 'smtps:') &&
    parsed.hostname !== '' &&
    (parsed.pathname === '' || parsed.pathname === '/') &&
    parsed.search === '' &&
    parsed.hash === '' &&
    (parsed.password === '' || parsed.username !== '') &&
    decodable;
  if (!ok) ctx.issues.push({ code: 'custom', input: ctx.value, message: SMTP_EXPECTS });
});

/** CONTACT_NOTIFY_FROM: one address. */
export const MailboxSetting = z
  .string()
  .trim()
  .refine(isMailbox, 'must be one e-mail address such as contact-form@example.com (no display name)');

/** CONTACT_NOTIFY_TO: one or more addresses, comma-separated. */
export const MailboxListSetting = z.string().transform((text, ctx) => {
  const items = text.split(',').map((item) => item.trim());
  const bad = items.filter((item) => !isMailbox(item));
  if (bad.length > 0 || items.length > 50) {
    const what = bad.length > 0 ? `${bad.length === 1 ? 'this item is' : 'these items are'} not one e-mail address each: ${bad.map((b) => JSON.stringify(b.slice(0, 80))).join(', ')}` : 'at most 50 addresses';
    ctx.issues.push({ code: 'custom', input: text, message: `must be e-mail addresses separated by commas, e.g. "team@example.com,sales@example.com"; ${what}` });
    return z.NEVER;
  }
  return items;
});
