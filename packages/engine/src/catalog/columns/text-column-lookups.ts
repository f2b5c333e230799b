/**
 * Structures derived from columns on first use, so that building a catalog never sorts what no
 * request needs: lower-cased sort ranks (text sort), key order (facet buckets), numeric order (browse
 * ranges and number sorts); and the value → code lookup (text scopes), which the dictionaries keep. All are pure functions of an
 * immutable catalog version, computed at most once per version. A version made by a fast path gets
 * them from the version before at the cost of the change: dictionaries only grow there (codes keep
 * their values), so new codes are placed among the old ones by a binary search and a linear pass
 * ({@link extendedSortRanksSteps}, {@link extendedKeyOrderSteps}), never by sorting every value again.
 * @module
 */
import type { CatalogState } from '../catalog-index.js';
import { sharedArray } from './shared-arrays.js';
import { runSteps, sortStrings, STEP, type Steps } from '../steps.js';
import type { StringLookup } from './string-map.js';
import { knownNumericOrder, numericOrderSteps, numericValues } from './numeric-column.js';

/** Values by code: a field's dictionary. */
interface Values {
  readonly size: number;
  at(code: number): string;
}

/**
 * Gives `to`, a version whose dictionaries extend `from`'s (the same codes for the same values, maybe
 * more after them), the key orders `from` has derived: the same ones where a dictionary did not grow,
 * extended by the new codes where it did.
 */
export function* carryKeyOrdersSteps(from: CatalogState, to: CatalogState): Steps<void> {
  const orders = keyOrders.get(from);
  if (!orders) return;
  const carried = new Map<number, KeyOrder>();
  for (const [field, order] of orders) {
    const dictionary = to.dictionaries[field];
    if (!dictionary) continue;
    carried.set(field, dictionary.size === order.codeOfRank.length ? order : yield* extendedKeyOrderSteps(order, dictionary));
  }
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

/** Per sort-rank array, per rank the lowest code holding it: new codes are ranked against these. */
const codeOfSortRank = new WeakMap<Uint32Array, Uint32Array>();

function* codesOfSortRanksSteps(sortRank: Uint32Array): Steps<Uint32Array> {
  let out = codeOfSortRank.get(sortRank);
  if (out) return out;
  let ranks = 0;
  for (let c = 0; c < sortRank.length; c++) ranks = Math.max(ranks, sortRank[c] + 1);
  yield;
  out = new Uint32Array(ranks);
  for (let c = sortRank.length - 1; c >= 0; c--) out[sortRank[c]] = c;
  codeOfSortRank.set(sortRank, out);
  return out;
}

/** Index of the first of `count` sorted keys (`keyAt(i)`) that is >= `key`. */
function lowerBoundBy(count: number, keyAt: (i: number) => string, key: string): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * {@link textSortRanks} of `dictionary`, whose first `sortRank.length` codes `sortRank` ranks: the new
 * codes placed by a binary search among the old ranks, the old ranks shifted past the new lower-cased
 * values below them. Linear in the dictionary (in steps), no sort of it. Pure.
 */
export function* extendedSortRanksSteps(sortRank: Uint32Array, dictionary: Values): Steps<Uint32Array> {
  const oldSize = sortRank.length;
  const size = dictionary.size;
  if (size === oldSize) return sortRank;
  const codeOfRank = yield* codesOfSortRanksSteps(sortRank);
  const ranks = codeOfRank.length;
  const lowerOfRank = (r: number) => dictionary.at(codeOfRank[r]).toLowerCase();
  // Per new code: the old rank of its lower-cased value, or (-1) a value new to the ranks, placed in
  // `fresh` (the old rank it goes before) with the first (lowest) code holding it.
  const placed = new Int32Array(size - oldSize);
  const fresh = new Map<string, { at: number; code: number }>();
  for (let c = oldSize; c < size; c++) {
    if (((c - oldSize) & (STEP - 1)) === STEP - 1) yield;
    const lower = dictionary.at(c).toLowerCase();
    const at = lowerBoundBy(ranks, lowerOfRank, lower);
    if (at < ranks && lowerOfRank(at) === lower) placed[c - oldSize] = at;
    else {
      placed[c - oldSize] = -1;
      if (!fresh.has(lower)) fresh.set(lower, { at, code: c });
    }
  }
  // New ranks: the new values, in order, before the old rank they were placed at.
  const freshValues = [...fresh].map(([lower, { at, code }]) => ({ lower, at, code })).sort((x, y) => (x.lower < y.lower ? -1 : 1));
  const freshRank = new Map<string, number>();
  const oldToNew = new Uint32Array(ranks);
  const nextCodeOfRank = new Uint32Array(ranks + freshValues.length);
  let next = 0;
  let i = 0;
  const placeFresh = (r: number): void => {
    for (; i < freshValues.length && freshValues[i].at === r; i++) {
      nextCodeOfRank[next] = freshValues[i].code;
      freshRank.set(freshValues[i].lower, next++);
    }
  };
  for (let r = 0; r < ranks; r++) {
    if ((r & (STEP - 1)) === STEP - 1) yield;
    if (i < freshValues.length && freshValues[i].at === r) placeFresh(r);
    nextCodeOfRank[next] = codeOfRank[r];
    oldToNew[r] = next++;
  }
  placeFresh(ranks);
  const out = sharedArray(Uint32Array, size);
  for (let c = 0; c < oldSize; c++) {
    if ((c & (STEP - 1)) === STEP - 1) yield;
    out[c] = oldToNew[sortRank[c]];
  }
  for (let c = oldSize; c < size; c++) {
    const at = placed[c - oldSize];
    out[c] = at >= 0 ? oldToNew[at] : freshRank.get(dictionary.at(c).toLowerCase())!;
  }
  codeOfSortRank.set(out, nextCodeOfRank);
  return out;
}

/**
 * {@link textSortRanks} in steps (the lower-cased values sorted by `sortStrings`): for versions built
 * in one go, which derive before they are published the ranks the version before them had.
 */
export function* textSortRanksSteps(dictionary: readonly string[]): Steps<Uint32Array> {
  const lower: string[] = [];
  for (let c = 0; c < dictionary.length; c++) {
    if ((c & (STEP - 1)) === STEP - 1) yield;
    lower.push(dictionary[c].toLowerCase());
  }
  const sorted = yield* sortStrings(lower);
  const rankOf = new Map<string, number>();
  for (let i = 0; i < sorted.length; i++) {
    if ((i & (STEP - 1)) === STEP - 1) yield;
    if (!rankOf.has(sorted[i])) rankOf.set(sorted[i], rankOf.size);
  }
  const sortRank = sharedArray(Uint32Array, dictionary.length);
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
    order = keyOrderOfSorted(state.dictionaries[field].values().sort(), codeLookup(state, field));
    perField.set(field, order);
  }
  return order;
}

/**
 * The key order of `dictionary`, whose first `order.codeOfRank.length` codes `order` orders: the new
 * codes (values new to the dictionary) merged in at the places a binary search finds. Linear in the
 * dictionary (in steps), no sort of it. Pure.
 */
export function* extendedKeyOrderSteps(order: KeyOrder, dictionary: Values): Steps<KeyOrder> {
  const oldSize = order.codeOfRank.length;
  const size = dictionary.size;
  const valueOfRank = (r: number) => dictionary.at(order.codeOfRank[r]);
  const fresh: { code: number; at: number; value: string }[] = [];
  for (let c = oldSize; c < size; c++) {
    if (((c - oldSize) & (STEP - 1)) === STEP - 1) yield;
    const value = dictionary.at(c);
    fresh.push({ code: c, at: lowerBoundBy(oldSize, valueOfRank, value), value });
  }
  fresh.sort((a, b) => a.at - b.at || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const codeOfRank = new Uint32Array(size);
  const rankOfCode = new Uint32Array(size);
  let next = 0;
  const place = (code: number) => { codeOfRank[next] = code; rankOfCode[code] = next++; };
  for (let r = 0, i = 0; r <= oldSize; r++) {
    if ((r & (STEP - 1)) === STEP - 1) yield;
    while (i < fresh.length && fresh[i].at === r) place(fresh[i++].code);
    if (r < oldSize) place(order.codeOfRank[r]);
  }
  return { rankOfCode, codeOfRank };
}

/** {@link keyOrder} of field `field` of `state`, in steps (not kept). */
function* keyOrderSteps(state: CatalogState, field: number): Steps<KeyOrder> {
  const sorted = yield* sortStrings(state.dictionaries[field].values());
  return keyOrderOfSorted(sorted, codeLookup(state, field));
}

/** The key order of a dictionary from its values sorted. */
function keyOrderOfSorted(sorted: readonly string[], lookup: StringLookup<number>): KeyOrder {
  const codeOfRank = new Uint32Array(sorted.length);
  const rankOfCode = new Uint32Array(sorted.length);
  for (let rank = 0; rank < sorted.length; rank++) {
    const code = lookup.get(sorted[rank])!;
    codeOfRank[rank] = code;
    rankOfCode[code] = rank;
  }
  return { rankOfCode, codeOfRank };
}

/**
 * Derives on `to`, a version built in one go, in steps, the lookups `from` (the version it replaces)
 * had derived — field by field name, as a build may number fields anew: sort ranks, key orders and
 * numeric orders. The first search that needs one then finds it rather than sorting the catalog's values.
 */
export function* deriveLookupsLikeSteps(from: CatalogState, to: CatalogState): Steps<void> {
  const fidOf = (field: number) => to.fieldByName.get(from.index.fields[field].name);
  for (const [field] of keyOrders.get(from) ?? []) {
    const fid = fidOf(field);
    if (fid === undefined || !to.index.fields[fid].text || keyOrders.get(to)?.has(fid)) continue;
    const order = yield* keyOrderSteps(to, fid);
    let perField = keyOrders.get(to);
    if (!perField) keyOrders.set(to, (perField = new Map()));
    perField.set(fid, order);
  }
  for (let field = 0; field < from.index.fields.length; field++) {
    const before = from.index.fields[field];
    const fid = fidOf(field);
    if (fid === undefined) continue;
    const f = to.index.fields[fid];
    if (before.text?.sortRank && f.text && !f.text.sortRank) {
      const ranks = yield* textSortRanksSteps(to.dictionaries[fid].values());
      f.text.sortRank ??= ranks;
    }
    // An order the version had, or had the base of (appended docs still to merge in): derived again.
    if ((before.order || before.orderBase) && f.numeric && !f.order) {
      const order = yield* numericOrderSteps(numericValues(f), to.index.docCount);
      f.order ??= order;
    }
  }
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
