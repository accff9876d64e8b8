/**
 * Levenshtein distance with a ceiling, for the assistant's typo allowance. Hand-written rather
 * than a package: the search needs the early exit (stop as soon as a row's minimum exceeds the
 * allowance, so comparing a question word with a few hundred candidates stays in microseconds),
 * which general-purpose distance packages do not offer, and it is a dozen lines.
 */

/**
 * The edit distance (insertions, deletions, substitutions) between two words given as arrays of
 * code points, or `max + 1` when it is larger than `max`.
 */
export function boundedEditDistance(a: readonly string[], b: readonly string[], max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return Math.min(previous[b.length]!, max + 1);
}
