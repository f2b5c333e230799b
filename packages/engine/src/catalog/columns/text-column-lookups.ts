/**
 * Structures derived from columns on first use, so that building a catalog never sorts what no
 * request needs: lower-cased sort ranks (text sort), key order (facet buckets), numeric order (browse
 * ranges and number sorts); and the value → code lookup (text scopes), which the dictionaries keep. All are pure functions of an
 * immutable catalog version, computed at most once per version.
 * @module
 */
import type { CatalogState } from '../catalog-index.js';
import { sharedArray } from './shared-arrays.js';
import { runSteps, type Steps } from '../steps.js';
import type { StringLookup } from './string-map.js';
import { knownNumericOrder, numericOrderSteps, numericValues } from './numeric-column.js';

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

/**
 * Makes sure field `field` has its numeric order (docs with a value by (value, doc) ascending, on a
 * SharedArrayBuffer so workers get it with the task). Derived and deterministic, like the sort ranks.
 */
export function ensureNumericOrder(state: CatalogState, field: number): void {
  const f = state.index.fields[field];
  if (!f.numeric || f.order) return;
  // An earlier version's order with the docs appended since merged in (a copy), else a sort.
  f.order = knownNumericOrder(f, state.index.docCount) ?? runSteps(numericOrderSteps(numericValues(f), state.index.docCount));
}

/**
 * {@link ensureNumericOrder} of every numeric field, in steps (the snapshot writer stores the orders, so
 * the first browse or range after a restart does not sort a million values).
 */
export function* ensureNumericOrdersSteps(state: CatalogState): Steps<void> {
  for (const f of state.index.fields) {
    if (!f.numeric || f.order) continue;
    const order = knownNumericOrder(f, state.index.docCount) ?? (yield* numericOrderSteps(numericValues(f), state.index.docCount));
    yield;
    // Another caller may have derived it in between (ensureNumericOrder, in a search): the same array.
    f.order ??= order;
  }
}
