/**
 * The fast path of a catalog change. Most of a shop's daily catalog traffic is price, stock and
 * rating updates of products it already has: upserts whose only differences are the values of
 * numeric fields. Such a batch does not need the full rebuild of catalog.ts (linear in the whole
 * catalog, every column and the full-text index, seconds of CPU at 1M products): the new version
 * shares every column the batch does not touch with the previous one and gets patched copies of the
 * few it does (the numeric column, the field's text column and inverted column, its value order).
 *
 * Numeric fields are never in the full-text index (only text fields are), so text relevance, the
 * vocabulary and every other field are exactly as a rebuild would make them. The one difference is
 * inside the patched field's dictionary: new values are appended, and values no product has any more
 * stay as codes without docs (facets, scopes and sorts never show a value without docs, so results are
 * identical; the property test checks it against a rebuild). Dead codes are bounded: when they would
 * outnumber the live ones the patch is refused and the change takes the full rebuild, which compacts.
 *
 * Versions stay immutable: nothing of the previous version is written, so searches still running on
 * it (and workers holding its SharedArrayBuffers) are unaffected.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type { Product } from '../../types.js';
import type { CatalogState, FieldIndex, SingleCodes, SingleValuedColumn, TextColumn } from '../catalog-index.js';
import { copySingleCodes, foldedInverted, invertedEntries } from '../columns/text-column.js';
import { numericValue, textValues } from '../field-values.js';
import { STEP, type Steps } from '../steps.js';
import { sharedArray } from '../columns/shared-arrays.js';
import { knownNumericOrder, numericValues, patchedNumericColumn, type NumericValues } from '../columns/numeric-column.js';
import { carryDerivedSteps } from '../columns/derived-carry.js';
import { extendedSortRanksSteps } from '../columns/text-column-lookups.js';
import type { Dictionary } from '../columns/dictionary.js';

/** Which products a value patch replaces, and which docs of which numeric fields change. */
export interface ValuePatchPlan {
  /** doc id → the product that replaces it (the last of its refId in the batch). */
  readonly products: ReadonlyMap<number, Product>;
  /** field id → the docs whose value of that field changes, ascending. */
  readonly fields: ReadonlyMap<number, Int32Array>;
}

const STEP_MASK = STEP - 1;

/** An inverted column (docs per code) and its number of codes having docs. */
interface InvertedColumn { valueOffsets: Uint32Array; valueDocs: Uint32Array; live: number }

/** Products compared between two yields of a plan. */
const PLAN_STEP_MASK = 255;

/**
 * Above one changed doc in this many, the order and the inverted column are rebuilt in one linear
 * pass: cheaper than binary searches and per-code list edits for that many changes.
 */
export const LINEAR_PATCH_RATIO = 64;

/** Dead dictionary codes tolerated beyond twice the live ones, before a patch defers to a rebuild. */
const DEAD_CODE_SLACK = 4096;

/** Numeric value and text form of a field value fit for a numeric column, or undefined. */
function numericScalar(value: unknown): { x: number; text: string } | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  const x = numericValue(value);
  if (Number.isNaN(x)) return undefined;
  const texts = textValues(value);
  return texts.length === 1 ? { x, text: texts[0] } : undefined;
}

/**
 * The fields of `next` whose values differ from `old`'s, or undefined when the two products differ in
 * anything a value patch cannot take (a field added or removed, a non-numeric value changed). Pure.
 */
function changedNumericFields(state: CatalogState, old: Product, next: Product): number[] | undefined {
  const oldKeys = Object.keys(old);
  const nextKeys = Object.keys(next);
  if (oldKeys.length !== nextKeys.length) return undefined;
  const changed: number[] = [];
  for (const key of nextKeys) {
    if (!Object.prototype.hasOwnProperty.call(old, key)) return undefined;
    const a = old[key];
    const b = next[key];
    if (a === b || (typeof a === 'object' && a !== null && isDeepStrictEqual(a, b))) continue;
    const fid = state.fieldByName.get(key);
    if (fid === undefined) return undefined;
    const field = state.index.fields[fid];
    if (field.kind !== 'numeric' || !field.numeric || !field.text?.single) return undefined;
    if (numericScalar(a) === undefined || numericScalar(b) === undefined) return undefined;
    changed.push(fid);
  }
  return changed;
}

/**
 * Plans a value patch for upsert batches (applied in order) on `base`, or returns undefined when any
 * product is new or differs in more than numeric values: then the change needs a full rebuild. Pure;
 * in steps (comparing products field by field costs microseconds each).
 */
export function* planValuePatch(base: CatalogState, batches: readonly (readonly Product[])[]): Steps<ValuePatchPlan | undefined> {
  const last = new Map<number, Product>();
  for (const batch of batches) {
    for (let i = 0; i < batch.length; i++) {
      const doc = base.docByRefId.get(batch[i].refId);
      if (doc === undefined) return undefined;
      last.set(doc, batch[i]);
      if ((i & PLAN_STEP_MASK) === PLAN_STEP_MASK) yield;
    }
  }
  const docsByField = new Map<number, number[]>();
  let i = 0;
  for (const [doc, product] of last) {
    const changed = changedNumericFields(base, base.store.decode(doc), product);
    if (changed === undefined) return undefined;
    for (const fid of changed) {
      let docs = docsByField.get(fid);
      if (!docs) docsByField.set(fid, (docs = []));
      docs.push(doc);
    }
    if ((++i & PLAN_STEP_MASK) === 0) yield;
  }
  const fields = new Map<number, Int32Array>();
  for (const [fid, docs] of docsByField) fields.set(fid, Int32Array.from(docs).sort());
  return { products: last, fields };
}

/** Position of doc `d` with value `v` in an order sorted by (value, doc): the first entry not before it. */
function positionInOrder(order: Uint32Array, { byCode, codes }: NumericValues, v: number, d: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = order[mid];
    const ve = byCode[codes[e] + 1];
    if (ve < v || (ve === v && e < d)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The numeric order (docs with a value, by (value, doc) ascending) after the `changed` docs
 * (ascending, each with a value before and after) went from `before` to `after`: the unchanged docs
 * keep their relative order, the changed ones are taken out and put back where their new values go.
 * Binary searches for the edits and block copies in between, so a few changed prices of a big catalog
 * cost microseconds of script and one copy of the array, not a new sort. Pure.
 */
export function mergeNumericOrder(order: Uint32Array, before: NumericValues, after: NumericValues, changed: Int32Array): Uint32Array {
  const valueBefore = (d: number): number => before.byCode[before.codes[d] + 1];
  const valueAfter = (d: number): number => after.byCode[after.codes[d] + 1];
  // An edit's position is in the old order: a removal drops the entry there; an insert goes before
  // the old entry there (found by its new value among the old values: entries being removed are
  // skipped anyway, so they do not shift it).
  const removals = Array.from(changed, (d) => positionInOrder(order, before, valueBefore(d), d)).sort((a, b) => a - b);
  const moved = Array.from(changed).sort((a, b) => valueAfter(a) - valueAfter(b) || a - b);
  const inserts = moved.map((d) => positionInOrder(order, before, valueAfter(d), d));
  const out = sharedArray(Uint32Array, order.length);
  let from = 0; // next old entry to copy
  let k = 0; // next free slot of out
  let r = 0;
  let i = 0;
  while (r < removals.length || i < inserts.length) {
    const next = Math.min(r < removals.length ? removals[r] : order.length, i < inserts.length ? inserts[i] : order.length);
    out.set(order.subarray(from, next), k);
    k += next - from;
    from = next;
    // At one position: inserts first (they come before the old entry there), then its removal.
    while (i < inserts.length && inserts[i] === next) out[k++] = moved[i++];
    if (r < removals.length && removals[r] === next) { from++; r++; }
  }
  out.set(order.subarray(from), k);
  return out;
}

/**
 * {@link mergeNumericOrder} in one linear pass over the old order (for many changed docs): the
 * unchanged entries in their order, the changed ones sorted by their new values and merged in. Pure.
 */
export function* mergeNumericOrderLinear(order: Uint32Array, after: NumericValues, changed: Int32Array): Steps<Uint32Array> {
  const { byCode, codes } = after;
  const isChanged = new Uint8Array(codes.length);
  for (const d of changed) isChanged[d] = 1;
  const moved = Array.from(changed).sort((a, b) => byCode[codes[a] + 1] - byCode[codes[b] + 1] || a - b);
  const out = sharedArray(Uint32Array, order.length);
  let k = 0;
  let m = 0;
  for (let i = 0; i < order.length; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    const d = order[i];
    if (isChanged[d] === 1) continue;
    const v = byCode[codes[d] + 1];
    let vm = m < moved.length ? byCode[codes[moved[m]] + 1] : NaN;
    while (m < moved.length && (vm < v || (vm === v && moved[m] < d))) {
      out[k++] = moved[m++];
      if (m < moved.length) vm = byCode[codes[moved[m]] + 1];
    }
    out[k++] = d;
  }
  while (m < moved.length) out[k++] = moved[m++];
  return out;
}

/** The inverted column of a single-valued column (code per doc, -1 = none), in one counting pass. Pure. */
function* invertedColumnOf(single: SingleCodes, dictSize: number, entries: number): Steps<InvertedColumn> {
  const valueOffsets = sharedArray(Uint32Array, dictSize + 1);
  const n = single.length;
  for (let d = 0; d < n; d++) {
    if (single[d] >= 0) valueOffsets[single[d] + 1]++;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  let live = 0;
  for (let c = 0; c < dictSize; c++) {
    if (valueOffsets[c + 1] > 0) live++;
    valueOffsets[c + 1] += valueOffsets[c];
  }
  const cursor = valueOffsets.slice(0, dictSize);
  const valueDocs = sharedArray(Uint32Array, entries);
  for (let d = 0; d < n; d++) {
    if (single[d] >= 0) valueDocs[cursor[single[d]]++] = d;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return { valueOffsets, valueDocs, live };
}

/**
 * The inverted column (docs per code, ascending) after the `changed` docs moved from their codes in
 * `before` to those in `after` (single-valued columns): segments of codes no change touches are
 * copied as blocks, the lists of touched codes are rebuilt (or, when those lists hold more than one
 * entry in `linearRatio` of the column, the whole column in one pass). Pure.
 */
function* patchInvertedColumn(
  column: TextColumn, before: SingleCodes, after: SingleCodes, changed: Int32Array, dictSize: number, linearRatio: number,
): Steps<InvertedColumn> {
  const removed = new Map<number, Set<number>>();
  const added = new Map<number, number[]>();
  for (const d of changed) {
    if (before[d] === after[d]) continue;
    let gone = removed.get(before[d]);
    if (!gone) removed.set(before[d], (gone = new Set()));
    gone.add(d);
    let come = added.get(after[d]);
    if (!come) added.set(after[d], (come = []));
    come.push(d);
  }
  const oldSize = column.dictSize;
  const touched = [...new Set([...removed.keys(), ...added.keys()])].sort((a, b) => a - b);
  // Touched lists are edited entry by entry: when they hold much of the column, one pass is cheaper.
  let edited = 0;
  for (const t of touched) if (t < oldSize) edited += column.valueOffsets[t + 1] - column.valueOffsets[t];
  if (edited * linearRatio > before.length) return yield* invertedColumnOf(after, dictSize, column.valueDocs.length);
  const valueOffsets = sharedArray(Uint32Array, dictSize + 1);
  let live = 0;
  for (let c = 0; c < dictSize; c++) {
    const count = (c < oldSize ? column.valueOffsets[c + 1] - column.valueOffsets[c] : 0) - (removed.get(c)?.size ?? 0) + (added.get(c)?.length ?? 0);
    if (count > 0) live++;
    valueOffsets[c + 1] = valueOffsets[c] + count;
  }
  const valueDocs = sharedArray(Uint32Array, column.valueDocs.length);
  let c = 0;
  for (const t of touched) {
    // Codes c .. t-1 are untouched: one block (their old lists, shifted).
    if (t > c && c < oldSize) {
      const end = Math.min(t, oldSize);
      valueDocs.set(column.valueDocs.subarray(column.valueOffsets[c], column.valueOffsets[end]), valueOffsets[c]);
    }
    const gone = removed.get(t);
    const list: number[] = [];
    if (t < oldSize) {
      for (let p = column.valueOffsets[t]; p < column.valueOffsets[t + 1]; p++) {
        const d = column.valueDocs[p];
        if (!gone?.has(d)) list.push(d);
      }
    }
    const come = added.get(t);
    if (come) { for (const d of come) list.push(d); list.sort((a, b) => a - b); }
    valueDocs.set(list, valueOffsets[t]);
    c = t + 1;
  }
  if (c < oldSize) valueDocs.set(column.valueDocs.subarray(column.valueOffsets[c], column.valueOffsets[oldSize]), valueOffsets[c]);
  return { valueOffsets, valueDocs, live };
}

/**
 * One numeric field patched: its numeric column, text column (single codes, inverted column) and
 * dictionary, and its order when the previous version had derived one (or an earlier one, appended to
 * since: see `FieldIndex.orderBase`). Undefined when the dictionary
 * would hold more dead codes than the patch tolerates.
 */
function* patchField(
  base: CatalogState, fid: number, docs: Int32Array, products: ReadonlyMap<number, Product>, linearRatio: number,
): Steps<{ field: FieldIndex; dictionary: Dictionary } | undefined> {
  const field = base.index.fields[fid];
  const text = field.text as SingleValuedColumn; // planValuePatch takes single-valued columns only
  const single = text.single;
  // New values are appended to the dictionary's store (in place, see dictionary.ts), its table finding old ones.
  const values = base.dictionaries[fid].writer();
  yield* values.reserveSteps(docs.length);
  const codes = new Int32Array(docs.length);
  const numbers = new Float64Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    const { x, text: value } = numericScalar(products.get(docs[i])![field.name])!;
    numbers[i] = x;
    codes[i] = values.codeFor(value);
  }
  const dictionary = values.dictionary();
  const dictSize = dictionary.size;
  // Copied as wide as the grown dictionary needs.
  const newSingle = copySingleCodes(single, dictSize, single.length);
  for (let i = 0; i < docs.length; i++) newSingle[docs[i]] = codes[i];
  // A new price is a new code: the numbers follow the codes (numeric-column.ts), no per-doc copy.
  const numeric = patchedNumericColumn(field, docs, numbers, dictionary, dictSize);
  const linear = docs.length * linearRatio > single.length;
  yield;
  // The patch rewrites the inverted column whole: docs appended since the build (its tail) are folded in.
  const { valueOffsets, valueDocs, live } = linear
    ? yield* invertedColumnOf(newSingle, dictSize, invertedEntries(text))
    : yield* patchInvertedColumn({ ...text, ...foldedInverted(text), valueTail: undefined }, single, newSingle, docs, dictSize, linearRatio);
  if (dictSize > 2 * live + DEAD_CODE_SLACK) return undefined;
  // A text sort's ranks, the new values placed among the old ones.
  const sortRank = text.sortRank && (yield* extendedSortRanksSteps(text.sortRank, dictionary));
  const column: TextColumn = { single: newSingle, dictSize, valueOffsets, valueDocs, sortRank };
  const after = numericValues({ ...field, text: column, numeric });
  // An order still to be merged with appended docs is merged first (the patch moves their numbers too).
  const before = knownNumericOrder(field, base.index.docCount);
  const order = !before ? undefined
    : linear ? yield* mergeNumericOrderLinear(before, after, docs) : mergeNumericOrder(before, numericValues(field), after, docs);
  // Numbers replaced by numbers: the counts behind the field's kind stay as they were.
  return { field: { name: field.name, kind: field.kind, text: column, numeric, order, valueCounts: field.valueCounts }, dictionary };
}

/**
 * The version `version` of the catalog: `base` with the plan's products and values, sharing every
 * untouched column. Undefined when a field's dictionary has collected too many dead values (the caller
 * then rebuilds). Yields between fields (each costs a few copies of its columns). `linearRatio`
 * (tests): above one changed doc in that many, a field's order and inverted column are rebuilt linearly.
 */
export function* applyValuePatch(
  base: CatalogState, plan: ValuePatchPlan, version: number, linearRatio = LINEAR_PATCH_RATIO,
): Steps<CatalogState | undefined> {
  const fields = base.index.fields.slice();
  const dictionaries = base.dictionaries.slice();
  for (const [fid, docs] of plan.fields) {
    const patched = yield* patchField(base, fid, docs, plan.products, linearRatio);
    if (!patched) return undefined;
    fields[fid] = patched.field;
    dictionaries[fid] = patched.dictionary;
    yield;
  }
  const store = yield* base.store.replaced(plan.products, { fields, fieldByName: base.fieldByName, dictionaries, vectors: base.vectors });
  const patchedFields = new Set(base.patchedSince?.fields);
  for (const fid of plan.fields.keys()) patchedFields.add(base.index.fields[fid].name);
  const state: CatalogState = {
    ...base,
    index: { ...base.index, version, fields },
    store,
    dictionaries,
    patchedSince: { version: base.patchedSince?.version ?? base.index.version, fields: patchedFields },
  };
  // Dictionaries only grew (patched ones) or are the same: key orders and hierarchies carry over.
  yield* carryDerivedSteps(base, state, (fid) => plan.fields.has(fid));
  return state;
}
