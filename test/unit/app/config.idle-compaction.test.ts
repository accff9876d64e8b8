import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { configProblems } from '../../helpers/config.ts';

describe('IDLE_COMPACTION_MB', () => {
  it('gives an idle server 16 MiB of growth before it compacts, and 0 turns compaction off', () => {
    expect(loadConfig({}).IDLE_COMPACTION_MB).toBe(16);
    expect(loadConfig({ IDLE_COMPACTION_MB: '0' }).IDLE_COMPACTION_MB).toBe(0);
    expect(loadConfig({ IDLE_COMPACTION_MB: '64' }).IDLE_COMPACTION_MB).toBe(64);
  });

  it('refuses what is not a whole number from 0 to 4096', () => {
    expect(configProblems({ IDLE_COMPACTION_MB: '-1' })).toEqual(['IDLE_COMPACTION_MB: must be 0 (off) or more (got "-1")']);
    expect(configProblems({ IDLE_COMPACTION_MB: '1.5' })).toEqual(['IDLE_COMPACTION_MB: must be a whole number (got "1.5")']);
    expect(configProblems({ IDLE_COMPACTION_MB: 'lots' })).toEqual(['IDLE_COMPACTION_MB: must be a whole number (got "lots")']);
    expect(configProblems({ IDLE_COMPACTION_MB: '5000' })).toEqual(['IDLE_COMPACTION_MB: must be at most 4096 (got "5000")']);
  });
});
