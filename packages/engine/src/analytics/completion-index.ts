/**
 * The completions a website's search log can offer: per normalised query, the distinct sessions
 * (hashed) that searched it and found something, kept up to {@link SUGGESTION_LIMITS}.minSessions (past
 * the largest threshold more sessions change nothing), with the queries in code-unit order for prefix
 * look-ups. One session repeating a query counts once; a search without a session never counts.
 * @module
 */
import { lowerBound } from '../catalog/catalog-index.js';
import { SUGGESTION_LIMITS } from '../contract/limits.js';

/** Most distinct queries kept per website. */
export const MAX_INDEXED_QUERIES = 20_000;

/** One website's completion evidence. */
export class CompletionIndex {
  private readonly sessions = new Map<string, Set<string>>();
  /** The queries in code-unit order (a new one is inserted in place: a memmove of at most 20 000 slots). */
  private sorted: string[] = [];

  /** Queries held. */
  get size(): number {
    return this.sessions.size;
  }

  /** Distinct sessions counted for `query` (at most {@link SUGGESTION_LIMITS}.minSessions). */
  sessionsOf(query: string): number {
    return this.sessions.get(query)?.size ?? 0;
  }

  /** Counts `session` for `query`; false when it changed nothing (already counted, or the query has enough sessions). */
  add(query: string, session: string): boolean {
    let seen = this.sessions.get(query);
    if (seen === undefined) {
      if (this.sessions.size >= MAX_INDEXED_QUERIES) this.evictRare();
      this.sessions.set(query, (seen = new Set()));
      this.sorted.splice(lowerBound(this.sorted, query), 0, query);
    }
    if (seen.has(session) || seen.size >= SUGGESTION_LIMITS.minSessions) return false;
    seen.add(session);
    return true;
  }

  /** Drops the queries of one session (the long tail) to make room; then, if still full, keeps the better half. */
  private evictRare(): void {
    for (const [q, s] of this.sessions) if (s.size <= 1) this.sessions.delete(q);
    if (this.sessions.size >= MAX_INDEXED_QUERIES) {
      const keep = [...this.sessions].sort((a, b) => b[1].size - a[1].size).slice(0, MAX_INDEXED_QUERIES / 2);
      this.sessions.clear();
      for (const [q, s] of keep) this.sessions.set(q, s);
    }
    this.sorted = [...this.sessions.keys()].sort();
  }

  /**
   * Up to `limit` queries longer than `prefix` that start with it, searched in at least `minSessions`
   * sessions and accepted by `accept`: most sessions first, then in code-unit order.
   */
  complete(prefix: string, minSessions: number, limit: number, accept: (query: string) => boolean): string[] {
    const found: [string, number][] = [];
    for (let i = lowerBound(this.sorted, prefix); i < this.sorted.length && this.sorted[i]!.startsWith(prefix); i++) {
      const q = this.sorted[i]!;
      const n = this.sessions.get(q)?.size ?? 0;
      if (q !== prefix && n >= minSessions && accept(q)) found.push([q, n]);
    }
    return found.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit).map(([q]) => q);
  }
}
