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

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.shards[shardOf(key)].get(key);
  }

  has(key: string): boolean {
    return this.shards[shardOf(key)].has(key);
  }

  set(key: string, value: V): this {
    const shard = this.shards[shardOf(key)];
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  /** Removes `key`; whether it was there. */
  delete(key: string): boolean {
    const removed = this.shards[shardOf(key)].delete(key);
    if (removed) this.count--;
    return removed;
  }

  /** Entries, shard by shard. */
  *entries(): IterableIterator<[string, V]> {
    for (const shard of this.shards) yield* shard.entries();
  }
}

/** A copy of `source`, pausing (yielding) every `step` entries so a time-sliced caller can interleave. */
export function* copyInSteps<V>(source: { entries(): Iterable<[string, V]> }, step: number): Generator<void, StringMap<V>, void> {
  const copy = new StringMap<V>();
  let i = 0;
  for (const [key, value] of source.entries()) {
    copy.set(key, value);
    if (++i % step === 0) yield;
  }
  return copy;
}
