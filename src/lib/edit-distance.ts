/**
 * Edit distance with a ceiling, for the assistant's typo allowance and the "did you mean" of a
 * misspelt frontmatter field. Hand-written rather than a package: the search needs the early exit
 * (stop as soon as a row's minimum exceeds the allowance, so comparing a question word with a few
 * hundred candidates stays in microseconds), which general-purpose distance packages do not
 * offer, and it is a dozen lines.
 */

export interface EditDistanceOptions {
  /**
   * Count swapping two neighbours ("hedaing" for "heading") as one edit, not two: the optimal
   * string alignment form of the Damerau-Levenshtein distance. Off by default (plain Levenshtein).
   */
  transpositions?: boolean;
}

/**
 * The edit distance (insertions, deletions, substitutions, and with `transpositions` swaps of
 * neighbours) between two words given as arrays of code points, or `max + 1` when it is larger
 * than `max`. The early exit holds with swaps too: a swap reaches back two rows, and the row
 * between can be no more than one edit dearer.
 */
export function boundedEditDistance(a: readonly string[], b: readonly string[], max: number, options: EditDistanceOptions = {}): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (options.transpositions && swapped) value = Math.min(value, beforePrevious[j - 2]! + 1);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    beforePrevious = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, max + 1);
}
