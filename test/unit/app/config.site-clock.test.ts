import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/app/config.ts';

describe('SITE_CLOCK_OFFSET_MS', () => {
  it('moves the publishing clock outside production, and is 0 by default', () => {
    expect(loadConfig({ NODE_ENV: 'test', SITE_CLOCK_OFFSET_MS: '-86400000' }).SITE_CLOCK_OFFSET_MS).toBe(-86_400_000);
    expect(loadConfig({}).SITE_CLOCK_OFFSET_MS).toBe(0);
  });

  it('is refused in production, and when it is not a whole number', () => {
    expect(() => loadConfig({ SITE_CLOCK_OFFSET_MS: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ SITE_CLOCK_OFFSET_MS: '1000' })).toThrow(/SITE_CLOCK_OFFSET_MS: only for tests/);
    expect(() => loadConfig({ NODE_ENV: 'test', SITE_CLOCK_OFFSET_MS: '1.5' })).toThrow(/SITE_CLOCK_OFFSET_MS: must be a whole number of milliseconds/);
  });
});
