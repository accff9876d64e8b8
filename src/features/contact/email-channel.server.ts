/**
 * The e-mail channel of the outbox: each submission to the team (CONTACT_NOTIFY_TO) through the
 * SMTP server of CONTACT_NOTIFY_SMTP_URL, with nodemailer. The message is notification-email.ts.
 *
 * A connection per attempt (no pool): a server that went away mid-session costs that attempt
 * only, and the next one connects afresh. Every phase (connect, greeting, each command) is bounded
 * by the attempt's timeout, and so is the whole attempt. The SMTP host is the operator's own relay
 * and is not put through the outbound guard (it is usually on localhost or the private network).
 * Delivery is at least once: the mail server may have taken a message whose answer was lost.
 */
import { createTransport } from 'nodemailer';
import { redactUrlsIn } from '../../lib/redact-url.ts';
import type { AttemptOutcome, DeliveryChannel } from './delivery-channel.ts';
import { notificationMessage, type NotificationSettings } from './notification-email.ts';
import { smtpTarget } from './notify-settings.ts';

export interface EmailChannelOptions extends NotificationSettings {
  /** CONTACT_NOTIFY_SMTP_URL. */
  smtpUrl: string;
}

/** An SMTP failure as nodemailer reports it. */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

export function emailChannel(options: EmailChannelOptions): DeliveryChannel {
  const target = smtpTarget(options.smtpUrl);
  const secrets = target.auth ? [target.auth.pass, target.auth.user].filter((s) => s.length >= 3) : [];
  return {
    name: 'email',
    async send(submission, { timeoutMs }) {
      const transport = createTransport({
        host: target.host,
        ...(target.port === undefined ? {} : { port: target.port }),
        secure: target.secure,
        ...(target.auth ? { auth: target.auth } : {}),
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      });
      let timer: NodeJS.Timeout | undefined;
      try {
        const sent = transport.sendMail(notificationMessage(submission, options));
        const info = await Promise.race([
          sent,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
          }),
        ]);
        return { ok: true, ...codeOf(info.response) };
      } catch (error) {
        return failure(error as SmtpError, secrets);
      } finally {
        clearTimeout(timer);
        transport.close();
      }
    },
  };
}

/** `{ responseCode }` from an SMTP reply such as "250 2.0.0 OK". */
function codeOf(response: unknown): { responseCode?: number } {
  const match = typeof response === 'string' ? /^(\d{3})\b/.exec(response) : null;
  return match ? { responseCode: Number(match[1]) } : {};
}

function failure(error: SmtpError, secrets: readonly string[]): AttemptOutcome {
  const reply = error.response ? `: ${error.response}` : '';
  let text = error.responseCode !== undefined ? `SMTP ${error.responseCode}${reply || `: ${error.message}`}` : `${error.code ? `${error.code}: ` : ''}${error.message}`;
  // A server may echo what it was sent; the credentials never go into the log.
  for (const secret of secrets) text = text.split(secret).join('***');
  return { ok: false, ...(error.responseCode === undefined ? {} : { responseCode: error.responseCode }), error: redactUrlsIn(text) };
}
