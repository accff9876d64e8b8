import { describe, expect, it } from 'vitest';
import { notificationMessage, oneLine, subjectHeader } from '../../../../src/features/contact/notification-email.ts';

const submission = { id: 7, created_at: Date.UTC(2026, 0, 1), name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'standard' as const, message: null };
const settings = { to: ['team@example.com'], from: 'form@example.com' };

describe('the notification e-mail', () => {
  it('makes typed text one line: every control character and line separator a single space', () => {
    expect(oneLine(' Ada\r\n\tLovelace\u2028x\u0085y\u0000 ')).toBe('Ada Lovelace x y');
  });

  it('sends a plain ASCII subject as it is, and anything else as base64 encoded words only', () => {
    expect(subjectHeader('Contact form: Ada')).toBe('Contact form: Ada');
    for (const text of ['Contact form: Zoë', 'Contact form: =?UTF-8?B?QmNjOg==?=']) {
      const header = subjectHeader(text);
      expect(header).toMatch(/^(=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=\s?)+$/);
      const decoded = header
        .split(/\s+/)
        .map((word) => Buffer.from(/^=\?UTF-8\?B\?(.*)\?=$/.exec(word)![1]!, 'base64'))
        .reduce((all, part) => Buffer.concat([all, part]), Buffer.alloc(0))
        .toString('utf8');
      expect(decoded).toBe(text);
    }
  });

  it('sets the envelope and the recipients from the settings alone', () => {
    const message = notificationMessage({ ...submission, work_email: 'x@example.com' }, settings);
    expect(message.envelope).toEqual({ from: 'form@example.com', to: ['team@example.com'] });
    expect(message.to).toEqual([{ name: '', address: 'team@example.com' }]);
    expect(message.replyTo).toEqual({ name: '', address: 'x@example.com' });
    expect(message.priority).toBe('normal');
    expect(message.text).toContain('Job title:   (not given)');
    expect(message.text).toContain('Message:\n(none)');
  });
});
