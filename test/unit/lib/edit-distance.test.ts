import { describe, expect, it } from 'vitest';
import { boundedEditDistance } from '../../../src/lib/edit-distance.ts';

const distance = (a: string, b: string, max: number) => boundedEditDistance(Array.from(a), Array.from(b), max);

describe('boundedEditDistance', () => {
  it.each([
    ['latency', 'latency', 0],
    ['latency', 'latncy', 1],
    ['latency', 'latenyc', 2],
    ['statistics', 'statistcs', 1],
    ['transparency', 'trnasparency', 2],
    ['seller', 'sellers', 1],
    ['', 'abc', 3],
  ])('counts %j to %j as %i edits', (a, b, edits) => {
    expect(distance(a, b, 5)).toBe(edits);
    expect(distance(b, a, 5)).toBe(edits);
  });

  it('answers max + 1 as soon as the distance is larger than max', () => {
    expect(distance('transparency', 'trnasparency', 1)).toBe(2);
    expect(distance('statistics', 'singapore', 2)).toBe(3);
    expect(distance('a', 'abcdef', 2)).toBe(3);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(distance('caf😀', 'cafe', 1)).toBe(1);
  });

  describe('with transpositions (optimal string alignment)', () => {
    const osa = (a: string, b: string, max: number) => boundedEditDistance(Array.from(a), Array.from(b), max, { transpositions: true });

    it.each([
      ['heading', 'hedaing', 1],
      ['latency', 'latenyc', 1],
      ['transparency', 'trnasparency', 1],
      ['subheading', 'subheadng', 1],
      ['ab', 'ba', 1],
      // Optimal string alignment edits no substring twice: "ca" to "abc" is 3, not 2.
      ['ca', 'abc', 3],
      ['statistics', 'statistcs', 1],
    ])('counts %j to %j as %i edits', (a, b, edits) => {
      expect(osa(a, b, 5)).toBe(edits);
      expect(osa(b, a, 5)).toBe(edits);
    });

    it('still answers max + 1 as soon as the distance is larger than max', () => {
      expect(osa('statistics', 'singapore', 2)).toBe(3);
      expect(osa('abcdef', 'badcfe', 2)).toBe(3);
    });
  });
});
