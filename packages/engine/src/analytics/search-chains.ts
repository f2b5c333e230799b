/**
 * Search-as-you-type chains: a session's searches whose query is a prefix of a later one within
 * {@link CHAIN_WINDOW_MS} count only as the last (`w`, `wa`, … `wardrobe` is one search for `wardrobe`).
 * The rule is {@link continuesChain}; {@link ChainBuffer} applies it to a stream (searches are held
 * until no later search can absorb them) and {@link collapseChains} to a list. No I/O, no clock.
 * @module
 */

/** How long after a search a later one of the same session may still absorb it. */
export const CHAIN_WINDOW_MS = 10_000;

/** A search as chains see it. */
export interface ChainSearch {
  /** The session (the request's `session_id`, else its `customer_id`); none: the search is never chained. */
  session: string | undefined;
  /** When it was made (ms). */
  at: number;
  /** The normalised query. */
  query: string;
}

/**
 * True when `later` absorbs `earlier`: same session, made within {@link CHAIN_WINDOW_MS} after it, and
 * `earlier`'s query is a prefix of `later`'s (the same query repeated counts as one search too: a
 * facet or sort change re-sends it).
 */
export function continuesChain(earlier: ChainSearch, later: ChainSearch): boolean {
  return earlier.session !== undefined && earlier.session === later.session && later.at >= earlier.at
    && later.at - earlier.at <= CHAIN_WINDOW_MS && later.query.startsWith(earlier.query);
}

/** A search that ended its chain, with the searches it absorbed (earliest first). */
export interface FinishedChain<T extends ChainSearch> {
  search: T;
  absorbed: T[];
}

interface OpenSearch<T extends ChainSearch> {
  search: T;
  absorbed: T[];
}

/**
 * Searches held until their chain can no longer grow: {@link add} each search in time order, then
 * {@link finished} hands out those that no search within the window can absorb any more.
 */
export class ChainBuffer<T extends ChainSearch> {
  /** Open searches by session (searches without a session are finished at once). */
  private readonly open = new Map<string, OpenSearch<T>[]>();
  private ready: FinishedChain<T>[] = [];
  private count = 0;

  /** Searches held (open and finished but not yet taken). */
  get size(): number {
    return this.count + this.ready.length;
  }

  /** Adds a search; open searches of its session that it continues are absorbed into it. */
  add(search: T): void {
    if (search.session === undefined) {
      this.ready.push({ search, absorbed: [] });
      return;
    }
    const list = this.open.get(search.session) ?? [];
    const absorbed: T[] = [];
    const kept: OpenSearch<T>[] = [];
    for (const o of list) {
      if (continuesChain(o.search, search)) absorbed.push(...o.absorbed, o.search);
      else kept.push(o);
    }
    kept.push({ search, absorbed });
    this.count += kept.length - list.length;
    this.open.set(search.session, kept);
  }

  /** Takes the searches no later search can absorb at time `now` (all of them with `now` = Infinity). */
  finished(now: number): FinishedChain<T>[] {
    for (const [session, list] of this.open) {
      const kept = list.filter((o) => now - o.search.at <= CHAIN_WINDOW_MS);
      for (const o of list) if (!kept.includes(o)) this.ready.push(o);
      this.count -= list.length - kept.length;
      if (kept.length === 0) this.open.delete(session);
      else this.open.set(session, kept);
    }
    const out = this.ready.sort((a, b) => a.search.at - b.search.at);
    this.ready = [];
    return out;
  }
}

/**
 * The searches of a list (in time order) that count, each with those it absorbed. Pure: the same rule
 * as the stream ({@link ChainBuffer}).
 */
export function collapseChains<T extends ChainSearch>(searches: readonly T[]): FinishedChain<T>[] {
  const buffer = new ChainBuffer<T>();
  for (const s of searches) buffer.add(s);
  return buffer.finished(Infinity);
}
