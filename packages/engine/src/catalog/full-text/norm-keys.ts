/**
 * Norm keys: a posting's BM25F normalised frequency depends only on its field, its term frequency and
 * the field's length in its doc (and on the mean lengths, which appends and deletes move). A full-text
 * index keeps the distinct (field, tf, length) triples of its postings in a small table and each
 * posting the triple's key, 2 bytes while the table has at most 65,536 triples (4 beyond): searches
 * read a norm per key from a table derived once per set of means (`normsOf`), so neither a float per
 * posting (4 bytes) nor a field length per posting (a cache miss each, measured 2-3x slower text
 * queries at 1M) is needed. The table is append-only: appends add the triples their docs bring.
 * @module
 */
import { postingNorm } from './length-norms.js';
import { sharedArray } from '../columns/shared-arrays.js';

/** The distinct (field, term frequency, field length) triples of an index's postings, by key. */
export interface NormKeyTable {
  keyFields: Uint8Array;
  keyTfs: Uint16Array;
  keyLengths: Uint16Array;
}

/** A posting's key: 16-bit while the table's keys fit. */
export type PostKeys = Uint16Array | Uint32Array;

/** Keys below this fit a {@link PostKeys} of 16 bits. */
const NARROW_KEYS = 65536;
/** Lengths below this find the key of a term frequency of 1 (most postings) in an array, not the map. */
const UNIT_LENGTHS = 1024;

/** Collects the triples of postings as they are written and gives each its key. */
export class NormKeyBuilder {
  private readonly keys = new Map<number, number>();
  private readonly unitKeys: Int32Array[] = [];
  private readonly fields: number[] = [];
  private readonly tfs: number[] = [];
  private readonly lengths: number[] = [];

  /** A builder continuing `table` (an append): its keys keep their numbers. */
  static from(table: NormKeyTable | undefined): NormKeyBuilder {
    const builder = new NormKeyBuilder();
    if (table) for (let k = 0; k < table.keyFields.length; k++) builder.keyOf(table.keyFields[k], table.keyTfs[k], table.keyLengths[k]);
    return builder;
  }

  get count(): number {
    return this.fields.length;
  }

  /** The key of (full-text field `f`, term frequency `tf`, field length `length`), added when new. */
  keyOf(f: number, tf: number, length: number): number {
    if (tf === 1 && length < UNIT_LENGTHS) {
      const unit = (this.unitKeys[f] ??= new Int32Array(UNIT_LENGTHS).fill(-1));
      const key = unit[length];
      return key >= 0 ? key : (unit[length] = this.add(f, tf, length));
    }
    return this.keys.get((f * 65536 + tf) * 65536 + length) ?? this.add(f, tf, length);
  }

  private add(f: number, tf: number, length: number): number {
    const key = this.fields.length;
    if (tf !== 1 || length >= UNIT_LENGTHS) this.keys.set((f * 65536 + tf) * 65536 + length, key);
    this.fields.push(f);
    this.tfs.push(tf);
    this.lengths.push(length);
    return key;
  }

  /** The table, on shared memory (search workers read it). */
  table(): NormKeyTable {
    const keyFields = sharedArray(Uint8Array, this.count);
    const keyTfs = sharedArray(Uint16Array, this.count);
    const keyLengths = sharedArray(Uint16Array, this.count);
    keyFields.set(this.fields);
    keyTfs.set(this.tfs);
    keyLengths.set(this.lengths);
    return { keyFields, keyTfs, keyLengths };
  }
}

/** An array of `entries` posting keys on shared memory, as wide as `keyCount` keys need. */
export function postKeysArray(entries: number, keyCount: number): PostKeys {
  return keyCount <= NARROW_KEYS ? sharedArray(Uint16Array, entries) : sharedArray(Uint32Array, entries);
}

// Per table, the norms of the last means asked for: a version's searches share their means (the
// build's, or the live ones, which only a new version moves), on the main thread and in each worker.
const lastNorms = new WeakMap<NormKeyTable, { averages: readonly number[]; norms: Float64Array }>();

/** Per key of `table`, the posting norm with the mean lengths `averages` (`postingNorm`). */
export function normsOf(table: NormKeyTable, averages: readonly number[]): Float64Array {
  const last = lastNorms.get(table);
  if (last && last.averages.length === averages.length && last.averages.every((a, f) => a === averages[f])) return last.norms;
  const { keyFields, keyTfs, keyLengths } = table;
  const norms = new Float64Array(keyFields.length);
  for (let k = 0; k < norms.length; k++) norms[k] = postingNorm(keyTfs[k], keyLengths[k], averages[keyFields[k]]);
  lastNorms.set(table, { averages: averages.slice(), norms });
  return norms;
}
