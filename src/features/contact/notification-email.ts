/**
 * The e-mail the team gets for each submission (email-channel.server.ts sends it): plain text,
 * Reply-To the sender's work_email, "[High priority]" in the subject when they asked for it.
 *
 * Nothing a visitor types can add a header or a recipient:
 * - recipients and the SMTP envelope come from the settings alone (the envelope is set
 *   explicitly, never derived from headers);
 * - the only visitor text in a header is the name in the Subject: control characters (CR, LF,
 *   tab...) become spaces, and whenever it holds anything but plain printable ASCII, or text that
 *   looks like an RFC 2047 encoded word (`=?utf-8?b?...?=`), the whole Subject is sent as base64
 *   encoded words, which a reader decodes exactly once, so the visitor's text is shown as typed
 *   and never decoded into anything else;
 * - Reply-To is given to nodemailer as an address object, never parsed from text, and only when
 *   the work_email is one plain addr-spec (no comma, quote, angle bracket or space); otherwise
 *   the message has no Reply-To and says so in its body.
 * The message text is the body: visitor text there cannot reach the headers.
 */
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import type { OutgoingSubmission } from './delivery-channel.ts';
import { isMailbox } from './notify-settings.ts';

export interface NotificationSettings {
  /** CONTACT_NOTIFY_TO. */
  to: readonly string[];
  /** CONTACT_NOTIFY_FROM (the first recipient when unset). */
  from: string;
}

/** What nodemailer's sendMail takes, the fields used here. */
export interface NotificationMessage {
  from: { name: string; address: string };
  to: Array<{ name: string; address: string }>;
  replyTo?: { name: string; address: string };
  envelope: { from: string; to: string[] };
  headers: Record<string, { prepared: true; value: string } | string>;
  priority: 'high' | 'normal';
  text: string;
}

/** Every control character (C0, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line of header text: controls to single spaces, trimmed. */
export function oneLine(text: string): string {
  return text.replace(CONTROLS, ' ').replace(/ {2,}/g, ' ').trim();
}

/** The Subject as sent: plain when it is safe as it is, otherwise encoded words (see above). */
export function subjectHeader(subject: string): string {
  const line = oneLine(subject);
  if (/^[\x20-\x7e]*$/.test(line) && !line.includes('=?')) return line;
  return encodeWord(line, 'B', 52);
}

export function notificationSubject(submission: OutgoingSubmission): string {
  const who = oneLine(submission.name).slice(0, 120);
  return `${submission.priority === 'high' ? '[High priority] ' : ''}Contact form: ${who}`;
}

const PRIORITY_WORDS = { high: 'high (asks for a quick answer)', standard: 'standard', message: 'message (no reply needed)' } as const;

export function notificationText(submission: OutgoingSubmission, replyTo: boolean): string {
  const lines = [
    `Contact form submission #${submission.id}`,
    '',
    `Name:        ${submission.name}`,
    `Job title:   ${submission.job_title ?? '(not given)'}`,
    `Work email:  ${submission.work_email}`,
    `Priority:    ${PRIORITY_WORDS[submission.priority]}`,
    `Submitted:   ${new Date(submission.created_at).toISOString()}`,
    '',
    'Message:',
    submission.message ?? '(none)',
    '',
    replyTo ? `Replying to this e-mail answers ${submission.work_email}.` : 'This e-mail has no Reply-To: the work email above is not a plain address.',
  ];
  return `${lines.join('\n')}\n`;
}

export function notificationMessage(submission: OutgoingSubmission, settings: NotificationSettings): NotificationMessage {
  const replyTo = isMailbox(submission.work_email) ? { name: '', address: submission.work_email } : undefined;
  return {
    from: { name: 'Contact form', address: settings.from },
    to: settings.to.map((address) => ({ name: '', address })),
    ...(replyTo ? { replyTo } : {}),
    envelope: { from: settings.from, to: [...settings.to] },
    headers: {
      subject: { prepared: true, value: subjectHeader(notificationSubject(submission)) },
      // For the team's mail filters; a number only.
      'x-contact-submission-id': String(submission.id),
    },
    priority: submission.priority === 'high' ? 'high' : 'normal',
    text: notificationText(submission, replyTo !== undefined),
  };
}
