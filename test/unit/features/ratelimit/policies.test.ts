import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import { policiesFromConfig, RATE_LIMIT_DEFAULTS } from '../../../../src/features/ratelimit/policies.ts';

describe('policies', () => {
  it('use the documented defaults', () => {
    const p = policiesFromConfig(loadConfig({}));
    const summary = Object.fromEntries(Object.entries(p).map(([k, ws]) => [k, ws.map((w) => `${w.name} ${w.limit}/${w.periodSeconds}s ${w.kind}`)]));
    expect(summary).toMatchInlineSnapshot(`
      {
        "chat": [
          "site-minute 300/60s bucket",
          "chat-minute 10/60s bucket",
          "chat-day 200/86400s utc-day",
        ],
        "contact": [
          "site-minute 300/60s bucket",
          "contact-hour 20/3600s bucket",
          "contact-day 100/86400s utc-day",
        ],
        "data": [
          "data-minute 60/60s bucket",
          "data-day 5000/86400s utc-day",
        ],
        "page": [
          "page-minute 240/60s bucket",
        ],
        "sign-in": [
          "site-minute 300/60s bucket",
          "sign-in-hour 60/3600s bucket",
        ],
        "site": [
          "site-minute 300/60s bucket",
        ],
      }
    `);
  });

  it('take every limit from RATE_LIMIT_* configuration', () => {
    const p = policiesFromConfig(
      loadConfig({
        RATE_LIMIT_SITE_MINUTE: '1',
        RATE_LIMIT_CHAT_MINUTE: '2',
        RATE_LIMIT_CHAT_DAY: '3',
        RATE_LIMIT_CONTACT_HOUR: '4',
        RATE_LIMIT_CONTACT_DAY: '5',
        RATE_LIMIT_DATA_MINUTE: '6',
        RATE_LIMIT_DATA_DAY: '7',
      }),
    );
    expect([...p.chat, ...p.contact, ...p.data].map((w) => w.limit)).toEqual([1, 2, 3, 1, 4, 5, 6, 7]);
  });

  it('name the configuration defaults in RATE_LIMIT_DEFAULTS', () => {
    const config = loadConfig({});
    const defaults = Object.fromEntries(Object.keys(RATE_LIMIT_DEFAULTS).map((name) => [name, config[name as keyof typeof RATE_LIMIT_DEFAULTS]]));
    expect(defaults).toEqual(RATE_LIMIT_DEFAULTS);
  });
});
