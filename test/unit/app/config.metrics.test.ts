import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretValues } from '../../../src/app/config.ts';

const TOKEN = '0123456789abcdef0123456789abcdef';

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('METRICS_TOKEN', () => {
  it('is off unless set, and a secret of the logger once set', () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    const config = loadConfig({ METRICS_TOKEN: TOKEN });
    expect(config.METRICS_TOKEN).toBe(TOKEN);
    expect(secretValues(config)).toContain(TOKEN);
  });

  it('refuses a short token or one that cannot travel in a Bearer header, never echoing it', () => {
    const short = problemOf({ METRICS_TOKEN: 'short-secret' });
    expect(short).toMatchInlineSnapshot(`"Invalid configuration: METRICS_TOKEN: must be at least 32 characters, e.g. the output of \`openssl rand -hex 32\`"`);
    const spaced = problemOf({ METRICS_TOKEN: `${TOKEN} ${TOKEN}` });
    expect(spaced).toContain('METRICS_TOKEN: must be a bearer token of letters, digits and - . _ ~ + / (RFC 6750 b64token)');
    expect(spaced).not.toContain(TOKEN);
  });
});
