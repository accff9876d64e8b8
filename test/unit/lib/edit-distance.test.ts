import { describe, expect, it } from 'vitest';
import { boundedEditDistance } from '../../../src/lib/edit-distance.ts';

const distance = (a: string, b: string, max: number) => boundedEditDistance(Array.from(a), Array.from(b), max);
/** With transpositions: the optimal string alignment distance. */
const osa = (a: string, b: string, max: number) => boundedEditDistance(Array.from(a), Array.from(b), max, { transpositions: true });

describe('boundedEditDistance', () => {
  it.each([
    ['latency', 'latency', 0, 0],
    ['latency', 'latncy', 1, 1],
    ['latency', 'latenyc', 2, 1],
    ['statistics', 'statistcs', 1, 1],
    ['transparency', 'trnasparency', 2, 1],
    ['seller', 'sellers', 1, 1],
    ['', 'abc', 3, 3],
    ['heading', 'hedaing', 2, 1],
    ['subheading', 'subheadng', 1, 1],
    ['ab', 'ba', 2, 1],
    // Optimal string alignment edits no substring twice: "ca" to "abc" stays 3, not 2.
    ['ca', 'abc', 3, 3],
  ])('counts %j to %j as %i edits, %i when a swap of neighbours is one', (a, b, edits, withSwaps) => {
    expect([distance(a, b, 5), distance(b, a, 5)]).toEqual([edits, edits]);
    expect([osa(a, b, 5), osa(b, a, 5)]).toEqual([withSwaps, withSwaps]);
  });

  it('answers max + 1 as soon as the distance is larger than max', () => {
    expect(distance('transparency', 'trnasparency', 1)).toBe(2);
    expect(distance('statistics', 'singapore', 2)).toBe(3);
    expect(distance('a', 'abcdef', 2)).toBe(3);
    expect(osa('statistics', 'singapore', 2)).toBe(3);
    expect(osa('abcdef', 'badcfe', 2)).toBe(3);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(distance('caf😀', 'cafe', 1)).toBe(1);
  });
});
