/**
 * A string-keyed map split over {@link SHARDS} JS Maps by a cheap hash of the key. A JS Map grows by
 * rehashing every entry in one go: at a million entries one `set` then blocks the thread for
 * 100–400 ms (measured on the 2-core machine), which a time-sliced catalog build cannot interrupt.
 * Split, the largest rehash is a shard's. Iteration order is by shard, not insertion order.
 * @module
 */

/** Number of shards (a power of two). */
export const SHARDS = 64;

/** Shard of a key: a 31-multiplier hash of its first and last 12 characters and its length. */
function shardOf(key: string): number {
  const n = key.length;
  let h = n;
  if (n <= 24) {
    for (let i = 0; i < n; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  } else {
    for (let i = 0; i < 12; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
    for (let i = n - 12; i < n; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h & (SHARDS - 1);
}

/** The read side of a {@link StringMap} (or of a Map). */
export interface StringLookup<V> {
  get(key: string): V | undefined;
  has(key: string): boolean;
  readonly size: number;
}

/** A Map<string, V> whose growth never rehashes more than one shard at a time. */
export class StringMap<V> implements StringLookup<V> {
  private readonly shards: Map<string, V>[] = Array.from({ length: SHARDS }, () => new Map<string, V>());
  private count = 0;
  /** The entries of a map made by {@link StringMap.positions} not set yet: keys `keyAt(next) .. keyAt(end - 1)`. */
  private pending: { keyAt: (i: number) => string; next: number; end: number } | undefined;

  /**
   * key → position of `count` keys (`keyAt(i)` → i; a key given twice keeps its last position), filled
   * on demand: by {@link fillSteps} (a time-sliced caller fills it in the background), or at once by the
   * first call that reads or changes the map. A restored catalog's refId → doc map (a million entries,
   * most of a second) is so off the path of its first searches, which do not read it.
   */
  static positions(count: number, keyAt: (i: number) => string): StringMap<number> {
    const map = new StringMap<number>();
    if (count > 0) map.pending = { keyAt, next: 0, end: count };
    return map;
  }

  /** Sets up to `limit` pending entries (all when absent). */
  private fill(limit = Infinity): void {
    const p = this.pending;
    if (p === undefined) return;
    const end = Math.min(p.end, p.next + limit);
    // The pending state is cleared first: set() below must not fill again.
    this.pending = undefined;
    for (let i = p.next; i < end; i++) this.set(p.keyAt(i), i as unknown as V);
    if (end < p.end) this.pending = { ...p, next: end };
  }

  /** Fills the pending entries (see {@link positions}) `step` at a time, yielding between. */
  *fillSteps(step: number): Generator<void, void, void> {
    while (this.pending !== undefined) {
      this.fill(step);
      yield;
    }
  }

  get size(): number {
    if (this.pending) this.fill();
    return this.count;
  }

  get(key: string): V | undefined {
    if (this.pending) this.fill();
    return this.shards[shardOf(key)].get(key);
  }

  has(key: string): boolean {
    if (this.pending) this.fill();
    return this.shards[shardOf(key)].has(key);
  }

  set(key: string, value: V): this {
    if (this.pending) this.fill();
    const shard = this.shards[shardOf(key)];
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  /**
   * A copy without `keys` that shares every shard none of them is in (a delete of a few refIds of a
   * million copies one or two shards, not the map).
   */
  without(keys: Iterable<string>): StringMap<V> {
    if (this.pending) this.fill();
    const copy = new StringMap<V>();
    copy.shards.splice(0, SHARDS, ...this.shards);
    copy.count = this.count;
    const copied = new Set<number>();
    for (const key of keys) {
      const s = shardOf(key);
      if (!copy.shards[s].has(key)) continue;
      if (!copied.has(s)) { copy.shards[s] = new Map(copy.shards[s]); copied.add(s); }
      copy.shards[s].delete(key);
      copy.count--;
    }
    return copy;
  }

  /** A copy with `entries` set that shares every shard none of them is in (an append of a few refIds). */
  with(entries: Iterable<[string, V]>): StringMap<V> {
    if (this.pending) this.fill();
    const copy = new StringMap<V>();
    copy.shards.splice(0, SHARDS, ...this.shards);
    copy.count = this.count;
    const copied = new Set<number>();
    for (const [key, value] of entries) {
      const s = shardOf(key);
      if (!copied.has(s)) { copy.shards[s] = new Map(copy.shards[s]); copied.add(s); }
      const before = copy.shards[s].size;
      copy.shards[s].set(key, value);
      copy.count += copy.shards[s].size - before;
    }
    return copy;
  }

  /** Entries, shard by shard. */
  *entries(): IterableIterator<[string, V]> {
    if (this.pending) this.fill();
    for (const shard of this.shards) yield* shard.entries();
  }
}

/** A copy of `source`, pausing (yielding) every `step` entries so a time-sliced caller can interleave. */
export function* copyInSteps<V>(source: StringMap<V>, step: number): Generator<void, StringMap<V>, void> {
  const copy = new StringMap<V>();
  let i = 0;
  for (const [key, value] of source.entries()) {
    copy.set(key, value);
    if (++i % step === 0) yield;
  }
  return copy;
}
