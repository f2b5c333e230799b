/**
 * Range buckets (`range_buckets` in the request): per numeric field, the matches counted per band
 * between ascending bounds — price sliders and histograms. Bucket `i` holds the values `v` with
 * `bounds[i-1] <= v < bounds[i]` (the first has no lower bound, the last no upper one), so a value is
 * in bucket "number of bounds <= v". Every bucket is listed, empty ones too; products without a number
 * in the field are in none.
 *
 * Counted in the same pass as facets: each doc range counts its candidates (run-partial.ts) and the
 * calling thread adds the ranges' counts (so inline and pooled runs agree by construction). When the
 * field is in `disjunctive_facets` its own scope condition is held back, and its near misses (the
 * products failing only that condition) are counted too, exactly as the field's facet counts them.
 * @module
 */
import type { CatalogIndex, CatalogState, FieldKind } from '../catalog/catalog-index.js';
import { numericAt, numericValues } from '../catalog/columns/numeric-column.js';
import type { RangeBucket } from '../contract/schemas.js';
import { fieldError } from '../errors.js';

/** One requested field's buckets, resolved. */
export interface PlanBuckets {
  /** The numeric field (-1: no product has a number there; every count is 0). */
  field: number;
  /** The bounds as requested (strictly ascending; checked by the request validation). */
  bounds: number[];
  /**
   * When the field's scope condition is held back (disjunctive facets): the aggregation whose near
   * misses are this field's, which the buckets count too (see disjunctive-facets.ts). Absent otherwise.
   */
  nearMissAggregation?: number;
}

/**
 * Why a request cannot sort, band or search the values of field `name` (a `SEARCH_BAD_REQUEST` problem):
 * no product has it, or those that have it hold no value — an object, an empty list, `null`, an image
 * vector —, which the message says rather than "no product has" of a field every product has. The one
 * wording of sort keys, range buckets and facet search.
 */
export function noValuesProblem(state: CatalogState, name: string): string {
  return state.fieldByName.has(name)
    ? `names "${name}", which no product has a value of (objects, empty lists, null and image vectors are not values)`
    : `names "${name}", which no product has`;
}

/**
 * Resolves `range_buckets` (field → bounds) against a catalog version; `kindOf` gives a field's kind as
 * the request sees it (pins applied), `isPinned` whether the website pinned the field's type. A text
 * field, or a field no product has a value of that is not pinned (a misspelling, as for sort keys), is
 * a `SEARCH_BAD_REQUEST` naming it; a pinned field without values gets zero counts.
 */
export function compileRangeBuckets(
  state: CatalogState, requested: Readonly<Record<string, number[]>>, kindOf: (fid: number) => FieldKind, isPinned: (name: string) => boolean,
): PlanBuckets[] {
  return Object.entries(requested).map(([name, bounds]) => {
    const fid = state.fieldByName.get(name);
    const kind = fid === undefined ? 'none' : kindOf(fid);
    const at = `range_buckets.${name}`;
    if (kind === 'text') throw fieldError('SEARCH_BAD_REQUEST', at, `names "${name}", which is not a numeric field`);
    if (kind === 'none' && !isPinned(name)) throw fieldError('SEARCH_BAD_REQUEST', at, noValuesProblem(state, name));
    return { field: kind === 'numeric' ? fid! : -1, bounds };
  });
}

/** The bucket of value `v`: how many bounds are <= v (binary search). NaN (no value): -1. */
export function bucketOf(bounds: readonly number[], v: number): number {
  if (v !== v) return -1;
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Zeroed counts for each requested field (one more bucket than bounds). */
export function emptyBucketCounts(buckets: readonly PlanBuckets[]): Uint32Array[] {
  return buckets.map((b) => new Uint32Array(b.bounds.length + 1));
}

/**
 * Per value code of bucket `b`'s field (`byCode` index: code + 1), its bucket (-1: no number): one
 * search per distinct value instead of one per doc, and one read per doc in the loops below.
 */
export function bucketsByCode(byCode: Float64Array, bounds: readonly number[]): Int32Array {
  const out = new Int32Array(byCode.length);
  for (let c = 0; c < byCode.length; c++) out[c] = bucketOf(bounds, byCode[c]!);
  return out;
}

/** Adds the docs of `bits` (a bitset over docs [lo, lo + 32·bits.length)) to bucket `b`'s counts. */
export function countBucketsOfBitset(index: CatalogIndex, b: PlanBuckets, bits: Uint32Array, lo: number, counts: Uint32Array): void {
  if (b.field < 0) return;
  const { byCode, codes } = numericValues(index.fields[b.field]);
  const bucketAt = bucketsByCode(byCode, b.bounds);
  for (let wi = 0; wi < bits.length; wi++) {
    let word = bits[wi];
    while (word !== 0) {
      const low = word & -word;
      word ^= low;
      const k = bucketAt[codes[lo + (wi << 5) + 31 - Math.clz32(low)]! + 1]!;
      if (k >= 0) counts[k]++;
    }
  }
}

/** Adds docs `docs[0, length)` to bucket `b`'s counts. */
export function countBucketsOfDocs(index: CatalogIndex, b: PlanBuckets, docs: ArrayLike<number>, length: number, counts: Uint32Array): void {
  if (b.field < 0) return;
  const { byCode, codes } = numericValues(index.fields[b.field]);
  // A few text matches against many distinct values: a search per doc costs less than the table.
  if (length * 4 < byCode.length) {
    for (let i = 0; i < length; i++) {
      const k = bucketOf(b.bounds, byCode[codes[docs[i]!]! + 1]!);
      if (k >= 0) counts[k]++;
    }
    return;
  }
  const bucketAt = bucketsByCode(byCode, b.bounds);
  for (let i = 0; i < length; i++) {
    const k = bucketAt[codes[docs[i]!]! + 1]!;
    if (k >= 0) counts[k]++;
  }
}

/** Adds one doc to bucket `b`'s counts (a pinned product joining the results). */
export function addDocToBuckets(index: CatalogIndex, b: PlanBuckets, doc: number, counts: Uint32Array): void {
  if (b.field < 0) return;
  const k = bucketOf(b.bounds, numericAt(index.fields[b.field], doc));
  if (k >= 0) counts[k]++;
}

/** The sum of the ranges' counts of bucket field `i`. */
export function mergedBucketCounts(partials: readonly { bucketCounts: Uint32Array[] }[], i: number): Uint32Array {
  const counts = new Uint32Array(partials[0]!.bucketCounts[i]!.length);
  for (const p of partials) for (let k = 0; k < counts.length; k++) counts[k] += p.bucketCounts[i]![k]!;
  return counts;
}

/** The wire form of one field's counts: every bucket, `from` inclusive, `to` exclusive. Pure. */
export function bucketsPayload(bounds: readonly number[], counts: Uint32Array): RangeBucket[] {
  return Array.from(counts, (count, k): RangeBucket => ({
    ...(k > 0 ? { from: bounds[k - 1]! } : {}),
    ...(k < bounds.length ? { to: bounds[k]! } : {}),
    count,
  }));
}
