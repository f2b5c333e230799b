/**
 * The order of results: the plan's keys — `sort_fields` (missing values last in both orders), relevance
 * (where `_score` stands, else after them), the tie-breakers — then doc id (insertion order). Pure;
 * the same comparator selects the top-k inside a range and merges the ranges of the pool, so inline
 * and pooled execution agree exactly.
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { firstCode } from '../catalog/columns/text-column.js';
import { numericValues, type NumericValues } from '../catalog/columns/numeric-column.js';
import type { PlanSortKey } from './search-plan.js';
import type { DocComparator } from './top-k.js';

// Text sort keys per catalog version and field: per code the rank of its lower-cased value (NaN at 0:
// no code) and per doc its code — the column's own single codes, or for a multi-valued column each doc's
// first code. Cached because a key table is linear in the dictionary (and first codes in the catalog);
// a new version of a catalog drops the old version's keys, and the cache is bounded.
const textKeyCache = new Map<string, NumericValues>();
const TEXT_KEY_CACHE_LIMIT = 16;

/** Text sort keys of `field`: doc `d`'s is `byCode[codes[d] + 1]` (NaN for docs without a text value). */
export function textSortKeys(index: CatalogIndex, field: number): NumericValues {
  const cacheKey = `${index.catalogId}:${index.version}:${field}`;
  let keys = textKeyCache.get(cacheKey);
  if (keys) return keys;
  const column = index.fields[field].text!;
  const sortRank = column.sortRank!; // filled in by the plan compiler (ensureTextSortRanks)
  const byCode = new Float64Array(column.dictSize + 1);
  byCode[0] = NaN;
  for (let c = 0; c < column.dictSize; c++) byCode[c + 1] = sortRank[c];
  let codes: NumericValues['codes'];
  if (column.single) codes = column.single;
  else {
    codes = new Int32Array(index.docCount);
    for (let d = 0; d < index.docCount; d++) codes[d] = firstCode(column, d);
  }
  keys = { byCode, codes };
  const catalogPrefix = `${index.catalogId}:`;
  const versionPrefix = `${index.catalogId}:${index.version}:`;
  for (const k of textKeyCache.keys()) if (k.startsWith(catalogPrefix) && !k.startsWith(versionPrefix)) textKeyCache.delete(k);
  if (textKeyCache.size >= TEXT_KEY_CACHE_LIMIT) textKeyCache.delete(textKeyCache.keys().next().value!);
  textKeyCache.set(cacheKey, keys);
  return keys;
}

/**
 * The sort keys of the plan's sort keys, each read through codes (`byCode[codes[doc] + 1]`, NaN =
 * missing; see numeric-column.ts); `null` for the relevance key.
 */
export function sortKeyArrays(index: CatalogIndex, sort: readonly PlanSortKey[]): (NumericValues | null)[] {
  return sort.map((k) => {
    if (k.type === 'score') return null;
    if (k.type === 'derived') return k.values!;
    return k.type === 'number' ? numericValues(index.fields[k.field]) : textSortKeys(index, k.field);
  });
}

/**
 * The comparator of result order over items `a`, `b`: an item stands for doc `docs[item]` (or the
 * item itself without `docs`). Keys in order: a field key's value of the doc (missing = NaN last, both
 * orders), the relevance key (`keys[i]` null) compares `scores[item - scoreBase]`; then doc id ascending
 * (insertion order).
 */
export function makeDocComparator(
  keys: readonly (NumericValues | null)[], desc: readonly boolean[], scores?: Float64Array, scoreBase = 0, docs?: Int32Array,
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
      const key = keys[i];
      if (key === null) {
        if (!scores) continue;
        const sa = scores[a - scoreBase];
        const sb = scores[b - scoreBase];
        if (sa !== sb) return desc[i] ? (sa > sb ? -1 : 1) : (sa < sb ? -1 : 1);
        continue;
      }
      const { byCode, codes } = key;
      const va = byCode[codes[da] + 1];
      const vb = byCode[codes[db] + 1];
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
