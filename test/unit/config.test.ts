import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(4321);
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.DATABASE_URL).toBe('./data/site.db');
    expect(config.SITE_URL).toBe('http://127.0.0.1:4321');
    expect(config.ALLOWED_ORIGINS).toEqual(['http://127.0.0.1:4321', 'http://localhost:4321']);
    expect(config.TRUST_PROXY).toEqual({ kind: 'none' });
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.RATE_LIMIT_DATA_DAY).toBe(5000);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' }).PORT).toBe(4321);
  });

  it('names each bad variable and what it expects', () => {
    expect(problemsOf({ PORT: 'eighty', REDIS_URL: 'http://x', RATE_LIMIT_CHAT_DAY: '-3', CHAT_ALLOW_NO_ORIGIN: 'maybe' })).toMatchInlineSnapshot(`
      [
        "PORT: must be a port number (got "eighty")",
        "REDIS_URL: must be a redis:// or rediss:// URL (got "http://x")",
        "CHAT_ALLOW_NO_ORIGIN: CHAT_ALLOW_NO_ORIGIN must be true or false (got "maybe")",
        "RATE_LIMIT_CHAT_DAY: must be greater than 0 (got "-3")",
      ]
    `);
  });

  it('refuses TRUST_PROXY=true because it would let clients spoof their address', () => {
    expect(problemsOf({ TRUST_PROXY: 'true' })[0]).toMatch(/^TRUST_PROXY: use a hop count/);
  });

  it('parses TRUST_PROXY as a hop count or a list of proxies', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toEqual({ kind: 'hops', hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).TRUST_PROXY).toEqual({ kind: 'list', cidrs: ['127.0.0.1', '10.0.0.0/8'] });
    expect(problemsOf({ TRUST_PROXY: 'proxy.example' })[0]).toContain('is not an IP address or CIDR');
  });

  it('derives allowed origins from SITE_URL, and takes an explicit list as origins', () => {
    expect(loadConfig({ SITE_URL: 'https://ads.example.com/' }).ALLOWED_ORIGINS).toEqual(['https://ads.example.com']);
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example, https://b.example/path' }).ALLOWED_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
    expect(problemsOf({ ALLOWED_ORIGINS: 'a.example' })[0]).toMatch(/^ALLOWED_ORIGINS\.?0?: must be an http\(s\) origin/);
  });

  it('requires LLM_BASE_URL and LLM_MODEL together', () => {
    expect(problemsOf({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })[0]).toContain('set both');
    expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3' }).LLM_MODEL).toBe('llama3');
  });
});
