import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretValues } from '../../../src/app/config.ts';
import { DEFAULT_SCHEDULE } from '../../../src/features/contact/retry-schedule.ts';
import { configProblems } from '../../helpers/config.ts';

describe('contact e-mail and delivery settings', () => {
  it('reads the SMTP server, the team and the sender', () => {
    const config = loadConfig({ CONTACT_NOTIFY_SMTP_URL: 'smtps://mailer:pw@mail.example.com:465', CONTACT_NOTIFY_TO: 'team@example.com, sales@example.com', CONTACT_NOTIFY_FROM: 'form@example.com' });
    expect(config).toMatchObject({ CONTACT_NOTIFY_TO: ['team@example.com', 'sales@example.com'], CONTACT_NOTIFY_FROM: 'form@example.com', CONTACT_OUTBOX_INTERVAL_MS: 5_000 });
    expect(secretValues(config)).toContain('pw');
  });

  it('reads the attempts and the schedule', () => {
    expect(loadConfig({ CONTACT_DELIVERY_ATTEMPTS: '3', CONTACT_DELIVERY_SCHEDULE: '100ms,1s' })).toMatchObject({ CONTACT_DELIVERY_ATTEMPTS: 3, CONTACT_DELIVERY_SCHEDULE: [100, 1_000] });
    expect(loadConfig({}).CONTACT_DELIVERY_SCHEDULE).toBeUndefined();
    expect(DEFAULT_SCHEDULE.attempts).toBe(10);
  });

  it.each([
    ['CONTACT_NOTIFY_SMTP_URL', 'http://mail.example.com'],
    ['CONTACT_NOTIFY_SMTP_URL', 'smtp://mail.example.com/path'],
    ['CONTACT_NOTIFY_SMTP_URL', 'smtp://mail.example.com?pool=true'],
    ['CONTACT_NOTIFY_SMTP_URL', 'smtp://:secret@mail.example.com'],
  ])('refuses %s=%s in one line', (name, value) => {
    expect(configProblems({ [name]: value, CONTACT_NOTIFY_TO: 'team@example.com' })).toEqual([expect.stringMatching(new RegExp(`^${name}: must be smtp://`))]);
  });

  it('never prints the SMTP password of a refused URL', () => {
    const problems = configProblems({ CONTACT_NOTIFY_SMTP_URL: 'smtp://mailer:hunter2-secret@mail.example.com/x', CONTACT_NOTIFY_TO: 'team@example.com' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain('hunter2-secret');
    expect(problems[0]).toContain('***');
  });

  it.each([
    ['CONTACT_NOTIFY_TO', 'team@example.com, not an address', /^CONTACT_NOTIFY_TO: must be e-mail addresses separated by commas.*"not an address"/],
    ['CONTACT_NOTIFY_TO', 'team@example.com,', /^CONTACT_NOTIFY_TO: must be e-mail addresses/],
    ['CONTACT_NOTIFY_TO', 'Team <team@example.com>', /^CONTACT_NOTIFY_TO: must be e-mail addresses/],
    ['CONTACT_NOTIFY_FROM', 'Form <form@example.com>', /^CONTACT_NOTIFY_FROM: must be one e-mail address/],
  ])('refuses %s=%j', (name, value, message) => {
    expect(configProblems({ CONTACT_NOTIFY_SMTP_URL: 'smtp://127.0.0.1:2525', CONTACT_NOTIFY_TO: 'team@example.com', [name]: value })).toEqual([expect.stringMatching(message)]);
  });

  it.each([{ CONTACT_NOTIFY_SMTP_URL: 'smtp://127.0.0.1:2525' }, { CONTACT_NOTIFY_TO: 'team@example.com' }, { CONTACT_NOTIFY_FROM: 'form@example.com', CONTACT_NOTIFY_SMTP_URL: 'smtp://127.0.0.1:2525' }])('asks for the SMTP server and the team together (%j)', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(configProblems(env)).toEqual(['CONTACT_NOTIFY_SMTP_URL and CONTACT_NOTIFY_TO: set both to e-mail each submission to the team (CONTACT_NOTIFY_FROM optional), or neither']);
  });

  it.each([
    ['CONTACT_DELIVERY_SCHEDULE', '30s,soon'],
    ['CONTACT_DELIVERY_ATTEMPTS', '0'],
    ['CONTACT_DELIVERY_ATTEMPTS', '101'],
    ['CONTACT_OUTBOX_INTERVAL_MS', '0'],
  ])('refuses %s=%s', (name, value) => {
    expect(configProblems({ [name]: value })).toEqual([expect.stringMatching(new RegExp(`^${name}: `))]);
  });
});
