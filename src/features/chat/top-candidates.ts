/** The final ranking of the assistant's search (assistant-index.ts): a passage's summed score and the query terms it matched. */
export interface Candidate {
  score: number;
  sources: string[];
}

/**
 * The `k` best candidates by final score, best first: the summed score times the number of
 * query terms matched (MiniSearch's "quality"), so a passage that matches more of the question
 * leads; equal scores in passage order. One pass keeping the k best (k is small), rather than a
 * sort of every candidate.
 */
export function best(candidates: ReadonlyMap<number, Candidate>, k: number): Array<[number, Candidate]> {
  const top: Array<[number, Candidate]> = [];
  const before = (score: number, passage: number, other: [number, Candidate]) => score > other[1].score || (score === other[1].score && passage < other[0]);
  for (const [passage, candidate] of candidates) {
    const score = candidate.score * candidate.sources.length;
    if (top.length === k) {
      if (!before(score, passage, top[k - 1]!)) continue;
      top.pop();
    }
    let at = top.length;
    while (at > 0 && before(score, passage, top[at - 1]!)) at--;
    top.splice(at, 0, [passage, { score, sources: candidate.sources }]);
  }
  return top;
}
