/**
 * Structures derived from columns on first use, so that building a catalog never sorts what no
 * request needs: lower-cased sort ranks (text sort), key order (facet buckets), numeric order (browse
 * ranges and number sorts); and the value → code lookup (text scopes), which the dictionaries keep. All are pure functions of an
 * immutable catalog version, computed at most once per version.
 * @module
 */
import type { CatalogState } from './catalog-index.js';
import { sharedArray } from './shared-arrays.js';
import { runSteps, STEP, type Steps } from './build-catalog-state.js';
import type { StringLookup } from './string-map.js';

/**
 * Gives `to` the key orders `from` has derived, for the fields `same` says have the same dictionary in
 * both versions (a version made from another one without rebuilding).
 */
export function carryDerivedLookups(from: CatalogState, to: CatalogState, same: (field: number) => boolean): void {
  const orders = keyOrders.get(from);
  if (!orders) return;
  const carried = new Map([...orders].filter(([field]) => same(field)));
  if (carried.size > 0) keyOrders.set(to, carried);
}

/**
 * The code of each value of field `field`: the field's dictionary, which keeps its value table with it
 * (dictionary.ts); for refId, whose codes are doc ids, the catalog's refId → doc map (live docs only).
 */
export function codeLookup(state: CatalogState, field: number): StringLookup<number> {
  return state.index.fields[field].name === 'refId' ? state.docByRefId : state.dictionaries[field];
}

/**
 * Per code, the rank of its lower-cased value in JS string order (equal lower-cased values tie).
 * Pure.
 */
export function textSortRanks(dictionary: readonly string[]): Uint32Array {
  const sortRank = sharedArray(Uint32Array, dictionary.length);
  const lower = dictionary.map((v) => v.toLowerCase());
  const distinct = [...new Set(lower)].sort();
  const rankOf = new Map<string, number>();
  distinct.forEach((v, rank) => rankOf.set(v, rank));
  for (let c = 0; c < dictionary.length; c++) sortRank[c] = rankOf.get(lower[c])!;
  return sortRank;
}

/**
 * Makes sure field `field` has its text sort ranks (on a SharedArrayBuffer, so workers get them with
 * the index). Filling in a derived, deterministic array does not change what the version means.
 */
export function ensureTextSortRanks(state: CatalogState, field: number): void {
  const column = state.index.fields[field].text;
  if (column && !column.sortRank) column.sortRank = textSortRanks(state.dictionaries[field].values());
}

/** A field's values in key order (JS string order): code → rank and rank → code. */
export interface KeyOrder {
  rankOfCode: Uint32Array;
  codeOfRank: Uint32Array;
}

const keyOrders = new WeakMap<CatalogState, Map<number, KeyOrder>>();

/**
 * The key order of field `field`'s dictionary, computed once per catalog version and field (a native
 * sort of the values), so facet buckets order ties by a number instead of comparing strings.
 */
export function keyOrder(state: CatalogState, field: number): KeyOrder {
  let perField = keyOrders.get(state);
  if (!perField) keyOrders.set(state, (perField = new Map()));
  let order = perField.get(field);
  if (!order) {
    const sorted = state.dictionaries[field].values().sort();
    const lookup = codeLookup(state, field);
    const codeOfRank = new Uint32Array(sorted.length);
    const rankOfCode = new Uint32Array(sorted.length);
    for (let rank = 0; rank < sorted.length; rank++) {
      const code = lookup.get(sorted[rank])!;
      codeOfRank[rank] = code;
      rankOfCode[code] = rank;
    }
    order = { rankOfCode, codeOfRank };
    perField.set(field, order);
  }
  return order;
}

/** Sorted runs this long are made by insertion sort before the merge passes of {@link numericOrderSteps}. */
const RUN = 32;

/**
 * The docs having a value in `values` (not NaN), by (value, doc) ascending, on a SharedArrayBuffer, in
 * steps: a stable bottom-up merge sort of the docs in doc order, yielding every {@link STEP} elements,
 * so a million-doc column can be ordered in time slices (a snapshot write, see snapshot.ts) as well as
 * in one go.
 */
export function* numericOrderSteps(values: Float64Array): Steps<Uint32Array> {
  let count = 0;
  for (let d = 0; d < values.length; d++) if (values[d] === values[d]) count++;
  let docs = new Uint32Array(count);
  let keys = new Float64Array(count);
  for (let d = 0, k = 0; d < values.length; d++) {
    if (values[d] === values[d]) { docs[k] = d; keys[k++] = values[d]; }
    if ((d & (STEP - 1)) === STEP - 1) yield;
  }
  // Runs by insertion sort: an element moves left past greater keys only, so equal keys keep doc order.
  for (let lo = 0; lo < count; lo += RUN) {
    const hi = Math.min(count, lo + RUN);
    for (let i = lo + 1; i < hi; i++) {
      const key = keys[i];
      const doc = docs[i];
      let j = i - 1;
      while (j >= lo && keys[j] > key) { keys[j + 1] = keys[j]; docs[j + 1] = docs[j]; j--; }
      keys[j + 1] = key;
      docs[j + 1] = doc;
    }
    if ((lo & (STEP - 1)) === 0) yield;
  }
  let outDocs = new Uint32Array(count);
  let outKeys = new Float64Array(count);
  for (let width = RUN; width < count; width *= 2) {
    let moved = 0;
    for (let lo = 0; lo < count; lo += 2 * width) {
      const mid = Math.min(count, lo + width);
      const hi = Math.min(count, lo + 2 * width);
      let i = lo;
      let j = mid;
      let o = lo;
      // Ties take the left run first: stable, so equal keys stay in doc order.
      while (i < mid && j < hi) {
        if (keys[j] < keys[i]) { outKeys[o] = keys[j]; outDocs[o++] = docs[j++]; }
        else { outKeys[o] = keys[i]; outDocs[o++] = docs[i++]; }
        if ((++moved & (STEP - 1)) === 0) yield;
      }
      while (i < mid) { outKeys[o] = keys[i]; outDocs[o++] = docs[i++]; }
      while (j < hi) { outKeys[o] = keys[j]; outDocs[o++] = docs[j++]; }
    }
    [docs, outDocs] = [outDocs, docs];
    [keys, outKeys] = [outKeys, keys];
    yield;
  }
  const order = sharedArray(Uint32Array, count);
  order.set(docs);
  return order;
}

/**
 * Makes sure field `field` has its numeric order (docs with a value by (value, doc) ascending, on a
 * SharedArrayBuffer so workers get it with the task). Derived and deterministic, like the sort ranks.
 */
export function ensureNumericOrder(state: CatalogState, field: number): void {
  const f = state.index.fields[field];
  if (!f.numeric || f.order) return;
  f.order = runSteps(numericOrderSteps(f.numeric));
}

/**
 * {@link ensureNumericOrder} of every numeric field, in steps (the snapshot writer stores the orders, so
 * the first browse or range after a restart does not sort a million values).
 */
export function* ensureNumericOrdersSteps(state: CatalogState): Steps<void> {
  for (const f of state.index.fields) {
    if (!f.numeric || f.order) continue;
    const order = yield* numericOrderSteps(f.numeric);
    // Another caller may have derived it in between (ensureNumericOrder, in a search): the same array.
    f.order ??= order;
  }
}
