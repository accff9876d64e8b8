/**
 * Scheduled articles in the assistant's index (src/features/news/schedule.ts): the build indexes
 * them with their instant (index-writer.ts, table `embargo`), and the index leaves their passages
 * and latest-news rows out until its clock reaches it. A few rows, read once when the index opens.
 */
import type Database from 'better-sqlite3';

export type EmbargoKind = 'passage' | 'latest';

export class Embargoes {
  readonly #at: Record<EmbargoKind, Map<number, number>> = { passage: new Map(), latest: new Map() };
  readonly #now: () => number;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    for (const [kind, n, at] of db.prepare<[], [EmbargoKind, number, number]>('SELECT kind, n, at FROM embargo').raw().all()) this.#at[kind].set(n, at);
  }

  /** The numbers of `kind` (passage or latest-news row) whose instant has not come yet. */
  hidden(kind: EmbargoKind): Set<number> {
    const hidden = new Set<number>();
    if (this.#at[kind].size === 0) return hidden;
    const now = this.#now();
    for (const [n, at] of this.#at[kind]) if (at > now) hidden.add(n);
    return hidden;
  }
}
