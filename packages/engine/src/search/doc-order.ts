/**
 * The order of results: the plan's keys — `sort_fields` (missing values last in both orders), relevance
 * (where `_score` stands, else after them), the tie-breakers — then doc id (insertion order). Pure;
 * the same comparator selects the top-k inside a range and merges the ranges of the pool, so inline
 * and pooled execution agree exactly.
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { firstCode } from '../catalog/text-column.js';
import type { PlanSortKey } from './search-plan.js';
import type { DocComparator } from './top-k.js';

// Per-doc text sort keys (rank of the first value's lower-cased form; NaN = missing), per catalog
// version and field. Cached because building one is linear in the catalog; a new version of a catalog
// drops the old version's keys, and the cache is bounded (8 bytes per doc each).
const textKeyCache = new Map<string, Float64Array>();
const TEXT_KEY_CACHE_LIMIT = 16;

/** Per-doc text sort keys of `field` (NaN for docs without a text value). */
export function textSortKeys(index: CatalogIndex, field: number): Float64Array {
  const cacheKey = `${index.catalogId}:${index.version}:${field}`;
  let keys = textKeyCache.get(cacheKey);
  if (keys) return keys;
  const column = index.fields[field].text!;
  const sortRank = column.sortRank!; // filled in by the plan compiler (ensureTextSortRanks)
  keys = new Float64Array(index.docCount);
  for (let d = 0; d < index.docCount; d++) {
    const code = firstCode(column, d);
    keys[d] = code >= 0 ? sortRank[code] : NaN;
  }
  const catalogPrefix = `${index.catalogId}:`;
  const versionPrefix = `${index.catalogId}:${index.version}:`;
  for (const k of textKeyCache.keys()) if (k.startsWith(catalogPrefix) && !k.startsWith(versionPrefix)) textKeyCache.delete(k);
  if (textKeyCache.size >= TEXT_KEY_CACHE_LIMIT) textKeyCache.delete(textKeyCache.keys().next().value!);
  textKeyCache.set(cacheKey, keys);
  return keys;
}

/** The per-doc key arrays of the plan's sort keys (NaN = missing); `null` for the relevance key. */
export function sortKeyArrays(index: CatalogIndex, sort: readonly PlanSortKey[]): (Float64Array | null)[] {
  return sort.map((k) => (k.type === 'score' ? null : k.type === 'number' ? index.fields[k.field].numeric! : textSortKeys(index, k.field)));
}

/**
 * The comparator of result order over items `a`, `b`: an item stands for doc `docs[item]` (or the
 * item itself without `docs`). Keys in order: a field key `keys[i][doc]` (missing = NaN last, both
 * orders), the relevance key (`keys[i]` null) compares `scores[item - scoreBase]`; then doc id ascending
 * (insertion order).
 */
export function makeDocComparator(
  keys: readonly (Float64Array | null)[], desc: readonly boolean[], scores?: Float64Array, scoreBase = 0, docs?: Int32Array,
  ordinal?: Uint32Array,
): DocComparator {
  const k = keys.length;
  // Product order: the doc id, or the place a re-appended product keeps (CatalogIndex.ordinal).
  const place = ordinal ? (d: number) => ordinal[d] : (d: number) => d;
  if (k === 1 && keys[0] === null && desc[0] && scores && docs) {
    // Relevance only (the common text query): one read per side, product order for ties.
    return (a, b) => {
      const sa = scores[a - scoreBase];
      const sb = scores[b - scoreBase];
      return sa !== sb ? (sa > sb ? -1 : 1) : place(docs[a]) - place(docs[b]);
    };
  }
  return (a, b) => {
    const da = docs ? docs[a] : a;
    const db = docs ? docs[b] : b;
    for (let i = 0; i < k; i++) {
      const column = keys[i];
      if (column === null) {
        if (!scores) continue;
        const sa = scores[a - scoreBase];
        const sb = scores[b - scoreBase];
        if (sa !== sb) return desc[i] ? (sa > sb ? -1 : 1) : (sa < sb ? -1 : 1);
        continue;
      }
      const va = column[da];
      const vb = column[db];
      if (va !== vb) {
        if (va !== va) {
          if (vb !== vb) continue; // both missing: the next key decides
          return 1; // missing (NaN) goes last, in both orders
        }
        if (vb !== vb) return -1;
        return desc[i] ? (va < vb ? 1 : -1) : (va < vb ? -1 : 1);
      }
    }
    return place(da) - place(db);
  };
}
