import { describe, expect, it } from 'vitest';
import { extractRawFrontmatter, rawTopLevelScalar, restoreYamlTimestamps } from '../../../../src/features/news/frontmatter.ts';

describe('rawTopLevelScalar', () => {
  const yaml = [
    'heading: "Hi: there"',
    'createdAt: 2026-01-05T10:00:00 # local',
    "quoted: '2026-01-05'",
    'nested:',
    '  createdAt: 1999-01-01',
    '# createdAt: 1990-01-01',
  ].join('\n');

  it('returns the value as written, without quotes or a trailing comment', () => {
    expect(rawTopLevelScalar(yaml, 'createdAt')).toBe('2026-01-05T10:00:00');
    expect(rawTopLevelScalar(yaml, 'quoted')).toBe('2026-01-05');
    expect(rawTopLevelScalar(yaml, 'heading')).toBe('Hi: there');
  });

  it('ignores indented and commented lines and missing keys', () => {
    expect(rawTopLevelScalar('  createdAt: x\n# createdAt: y', 'createdAt')).toBeUndefined();
  });
});

describe('restoreYamlTimestamps', () => {
  it('replaces Date values with their source text and leaves everything else alone', () => {
    const data = { createdAt: new Date('2026-01-05T10:00:00Z'), heading: 'Hi', draft: false };
    expect(restoreYamlTimestamps(data, 'heading: Hi\ncreatedAt: 2026-01-05T10:00:00\ndraft: false')).toEqual({
      createdAt: '2026-01-05T10:00:00',
      heading: 'Hi',
      draft: false,
    });
  });

  it('returns the same object when nothing is a Date', () => {
    const data = { createdAt: '2026-01-05T10:00:00Z' };
    expect(restoreYamlTimestamps(data, 'createdAt: "2026-01-05T10:00:00Z"')).toBe(data);
  });
});

describe('extractRawFrontmatter', () => {
  it('returns the YAML between the fences, or "" without frontmatter', () => {
    expect(extractRawFrontmatter('---\na: 1\nb: 2\n---\nBody')).toBe('a: 1\nb: 2');
    expect(extractRawFrontmatter('\uFEFF---\r\na: 1\r\n---\r\n')).toBe('a: 1');
    expect(extractRawFrontmatter('No frontmatter\n---\na: 1\n---')).toBe('');
  });
});
