import { describe, expect, it } from 'vitest';
import type { NewsEntry } from '../../../../src/features/news/news-list.ts';
import { buildInstant, editionsAfter, publishedAt, scheduleOf } from '../../../../src/features/news/schedule.ts';

const entry = (id: string, createdAt: string, draft = false): NewsEntry => ({ id, data: { heading: id, createdAt, draft } as NewsEntry['data'] });
const BUILT = Date.parse('2026-06-01T12:00:00Z');
const ENTRIES = [
  entry('old', '2026-01-01T00:00:00Z'),
  entry('draft', '2026-02-01T00:00:00Z', true),
  entry('soon', '2026-06-02T09:00:00+02:00'),
  entry('soon-too', '2026-06-02T07:00:00Z'),
  entry('later', '2026-07-01T00:00:00Z'),
  entry('future-draft', '2026-08-01T00:00:00Z', true),
];

describe('scheduled publishing', () => {
  it('publishes at an instant the articles not drafts whose createdAt has come, newest first', () => {
    expect(publishedAt(ENTRIES, BUILT).map((e) => e.id)).toEqual(['old']);
    expect(publishedAt(ENTRIES, Date.parse('2026-06-02T07:00:00Z')).map((e) => e.id)).toEqual(['soon', 'soon-too', 'old']);
  });

  it('makes one edition per publication instant after the build, earliest first, with the list length at each', () => {
    expect(editionsAfter(ENTRIES, BUILT)).toEqual([
      { at: Date.parse('2026-06-02T07:00:00Z'), ids: ['soon', 'soon-too'], published: 3 },
      { at: Date.parse('2026-07-01T00:00:00Z'), ids: ['later'], published: 4 },
    ]);
  });

  it('describes the build: what was published at its instant and the newest of it', () => {
    expect(scheduleOf(ENTRIES, BUILT)).toMatchObject({ builtAt: BUILT, published: 1, newest: Date.parse('2026-01-01T00:00:00Z') });
    expect(scheduleOf([], BUILT)).toEqual({ builtAt: BUILT, published: 0, newest: null, editions: [] });
  });

  it("decides from the build's instant when one is set, and from now otherwise", () => {
    expect(buildInstant({ NEWS_BUILD_INSTANT: String(BUILT) })).toBe(BUILT);
    const before = Date.now();
    expect(buildInstant({ NEWS_BUILD_INSTANT: 'soon' })).toBeGreaterThanOrEqual(before);
  });
});
