import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/app/config.ts';

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
  }
  throw new Error('expected a ConfigError');
}

describe('rate-limit settings for network operators', () => {
  it('keys IPv6 clients by /56 unless RATE_LIMIT_IPV6_PREFIX says otherwise', () => {
    expect(loadConfig({}).RATE_LIMIT_IPV6_PREFIX).toBe(56);
    expect(loadConfig({ RATE_LIMIT_IPV6_PREFIX: '64' }).RATE_LIMIT_IPV6_PREFIX).toBe(64);
    expect(loadConfig({ RATE_LIMIT_IPV6_PREFIX: '1' }).RATE_LIMIT_IPV6_PREFIX).toBe(1);
    expect(loadConfig({ RATE_LIMIT_IPV6_PREFIX: '128' }).RATE_LIMIT_IPV6_PREFIX).toBe(128);
  });

  it('refuses a prefix outside 1-128, naming the variable and the value', () => {
    expect(['0', '129', '56.5', '/56', 'wide'].map((v) => problemOf({ RATE_LIMIT_IPV6_PREFIX: v }))).toMatchInlineSnapshot(`
      [
        "Invalid configuration: RATE_LIMIT_IPV6_PREFIX: must be a prefix length from 1 to 128 (got "0")",
        "Invalid configuration: RATE_LIMIT_IPV6_PREFIX: must be a prefix length from 1 to 128 (got "129")",
        "Invalid configuration: RATE_LIMIT_IPV6_PREFIX: must be a prefix length from 1 to 128 (got "56.5")",
        "Invalid configuration: RATE_LIMIT_IPV6_PREFIX: must be a prefix length from 1 to 128 (got "/56")",
        "Invalid configuration: RATE_LIMIT_IPV6_PREFIX: must be a prefix length from 1 to 128 (got "wide")",
      ]
    `);
  });

  it('sends the draft header pair only when asked', () => {
    expect(loadConfig({}).RATE_LIMIT_DRAFT_HEADERS).toBe(false);
    expect(loadConfig({ RATE_LIMIT_DRAFT_HEADERS: 'true' }).RATE_LIMIT_DRAFT_HEADERS).toBe(true);
    expect(problemOf({ RATE_LIMIT_DRAFT_HEADERS: 'on' })).toContain('RATE_LIMIT_DRAFT_HEADERS must be true or false');
  });

  it('remembers key lookups 30 s by default, at most an hour', () => {
    expect(loadConfig({}).API_KEY_CACHE_SECONDS).toBe(30);
    expect(problemOf({ API_KEY_CACHE_SECONDS: '0' })).toContain('API_KEY_CACHE_SECONDS: must be greater than 0');
    expect(problemOf({ API_KEY_CACHE_SECONDS: '3601' })).toContain('API_KEY_CACHE_SECONDS: must be at most 3600');
  });
});
