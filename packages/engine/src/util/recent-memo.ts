/**
 * `RecentMemo`: values computed lately for keys that recur on the hot paths (the adapter's paths, query
 * strings, presented tokens and products' JSON; the engine's query completions), bounded one way.
 * @module
 */

/**
 * A memo of at most `limit` entries, all forgotten at once when it is full and remembered again as they
 * are asked: a hit costs one look-up and no bookkeeping (an LRU would move an entry on every request),
 * and keys that never recur (a flood of made-up tokens or paths) only reset it.
 */
export class RecentMemo<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** The value remembered for `key`, or undefined. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Remembers `value` for `key`, forgetting every entry first when the memo is full; returns `value`. */
  remember(key: K, value: V): V {
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /** How many entries are remembered. */
  get size(): number {
    return this.entries.size;
  }
}
