/**
 * A field's numbers read through codes: `numericAt(field, doc)` is `byCode[code(doc) + 1]`, where
 * `byCode` holds the number of each code once and the doc's code is, in the common case, the code its
 * text column already keeps for it.
 *
 * Why: a numeric field keeps a text column anyway (facets, text sorts, the product store read its
 * values), and a number's text reads back as that number (`numericValue(String(n)) === n`, a numeric
 * string's text is the string itself). A per-doc Float64 column beside the codes was 8 bytes per doc
 * and field (48 MB at 1M generated products) for values the codes already name; a price has a few
 * thousand distinct values, so a table per code costs kilobytes. Hot loops hoist the pair
 * ({@link numericValues}) and read one narrow code and one small table entry per doc.
 *
 * Two layouts, one read:
 * - *through the text codes* (no `docCodes`): `byCode[c + 1]` is the numeric value of the field's
 *   dictionary value `c` (NaN when it is not a number), and a doc reads its text column's single code.
 *   Chosen when that gives every doc its number: the text column is single-valued and no doc has a
 *   value whose text reads as a number while the value itself has none (`["12"]`: arrays have no
 *   numeric value).
 * - *own codes* (`docCodes`): per doc an index into `byCode` (-1: no number), for every other case —
 *   a multi-valued text column, such an array, a field without a text column (`image_vector`), and
 *   numbers an append or a patch brings to a column that did not read through text codes. Appends and
 *   patches then add an entry per new value (no lookup); the next full build or merge picks the
 *   layout again.
 *
 * Both tables keep NaN at index 0, so a doc without a code (-1) reads NaN without a branch.
 * @module
 */
import type { Dictionary } from './dictionary.js';
import type { FieldIndex, NumericColumn, OrderBase, SingleCodes, TextColumn } from '../catalog-index.js';
import { numericValue } from '../field-values.js';
import { extendShared, growableArray, sharedArray } from './shared-arrays.js';

import { runSteps, type Steps } from '../steps.js';

/** Docs or codes handled between two yields (build-catalog-state's `STEP`, not imported: it imports this module). */
const STEP_MASK = 4096 - 1;

/**
 * A field's numbers as a code per doc and a table per code: doc `d`'s number is
 * `byCode[codes[d] + 1]` (NaN: none). What hot loops hoist out of their loop.
 */
export interface NumericValues {
  byCode: Float64Array;
  codes: SingleCodes | Int32Array;
}

/** The code array and table to read field `field`'s numbers with (see {@link NumericValues}). */
export function numericValues(field: FieldIndex): NumericValues {
  const column = field.numeric!;
  return { byCode: column.byCode, codes: column.docCodes ?? field.text!.single! };
}

/** Doc `doc`'s number in field `field` (NaN: none). For loops, hoist {@link numericValues} instead. */
export function numericAt(field: FieldIndex, doc: number): number {
  const column = field.numeric!;
  return column.byCode[(column.docCodes ?? field.text!.single!)[doc] + 1];
}

/** Whether two numbers of a column are the same value (NaN equals NaN: both missing). */
function sameNumber(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * Whether docs `from .. end` read their numbers `perDoc` through `codes` and `byCode`. A plain function
 * called per chunk (not a loop in the generator): a snapshot load checks six columns of a million docs.
 */
function readsThroughCodes(byCode: Float64Array, codes: SingleCodes, perDoc: Float64Array, from: number, end: number): boolean {
  for (let d = from; d < end; d++) {
    const read = byCode[codes[d] + 1];
    const x = perDoc[d];
    if (read !== x && (read === read || x === x)) return false;
  }
  return true;
}

/** The table of a dictionary's first `dictSize` values read as numbers, NaN at index 0 (no code). */
function byCodeOf(dictionary: Pick<Dictionary, 'at'>, dictSize: number): Float64Array {
  const byCode = growableArray(Float64Array, dictSize + 1);
  byCode[0] = NaN;
  for (let c = 0; c < dictSize; c++) byCode[c + 1] = numericValue(dictionary.at(c));
  return byCode;
}

/**
 * The numeric column of per-doc values `perDoc` (NaN: none; a build's or a snapshot's), reading
 * through `text`'s codes when that gives every doc its value, else with codes of its own. Undefined
 * when no doc has a number. In steps: one pass over the docs.
 */
export function* numericColumnOf(perDoc: Float64Array, text: TextColumn | undefined, dictionary: Pick<Dictionary, 'at'>): Steps<NumericColumn | undefined> {
  const n = perDoc.length;
  let any = false;
  for (let d = 0; d < n && !any; d++) any = perDoc[d] === perDoc[d];
  if (!any) return undefined;
  if (text?.single) {
    const byCode = byCodeOf(dictionary, text.dictSize);
    const single = text.single;
    let fits = true;
    for (let from = 0; from < n && fits; from += STEP_MASK + 1) {
      fits = readsThroughCodes(byCode, single, perDoc, from, Math.min(n, from + STEP_MASK + 1));
      yield;
    }
    if (fits) return { byCode };
  }
  // Codes of its own: one per distinct number, in first-seen order.
  const keyOf = new Map<number, number>();
  const docCodes = growableArray(Int32Array, n);
  for (let d = 0; d < n; d++) {
    const x = perDoc[d];
    let key = -1;
    if (x === x) {
      key = keyOf.get(x) ?? -1;
      if (key < 0) keyOf.set(x, (key = keyOf.size));
    }
    docCodes[d] = key;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  const byCode = growableArray(Float64Array, keyOf.size + 1);
  byCode[0] = NaN;
  for (const [x, key] of keyOf) byCode[key + 1] = x;
  return { byCode, docCodes };
}

/** Field `field`'s numbers per doc (NaN: none), `docCount` docs: what a snapshot stores. */
export function numericPerDoc(field: FieldIndex, docCount: number): Float64Array {
  return runSteps(numericPerDocSteps(field, docCount));
}

/**
 * {@link numericPerDoc} in steps (a snapshot's encoding: 30-50 ms a field at a million docs in one go),
 * on a SharedArrayBuffer: a plain one is external memory to V8, and a snapshot's 8 MB a numeric field
 * at a million docs (56 MB for the generated catalog) started collections of the whole heap during the
 * write, whose marking the main thread finished in one step of 100 ms and more (decision 0087).
 */
export function* numericPerDocSteps(field: FieldIndex, docCount: number): Steps<Float64Array> {
  const { byCode, codes } = numericValues(field);
  const out = sharedArray(Float64Array, docCount);
  for (let d = 0; d < docCount; d++) {
    out[d] = byCode[codes[d] + 1];
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return out;
}

/** `column` with own codes, `docCount` docs: its first `from` docs read through `codes` (a text column's). */
function withOwnCodes(column: NumericColumn | undefined, codes: SingleCodes | undefined, from: number, docCount: number): NumericColumn {
  if (column?.docCodes) return { byCode: column.byCode, docCodes: extendShared(column.docCodes, docCount).fill(-1, from) };
  const docCodes = growableArray(Int32Array, docCount).fill(-1);
  if (!column) return { byCode: growableArray(Float64Array, 1).fill(NaN), docCodes };
  // The text codes' table stays valid for the docs that read through it: they keep their codes.
  if (codes) docCodes.set(codes.subarray(0, from));
  return { byCode: column.byCode, docCodes };
}

/** `column` with entries for `values` added after its own (own codes): the code of each value, in order. */
function withEntries(column: NumericColumn, values: readonly number[]): { column: NumericColumn; codes: number[] } {
  const size = column.byCode.length;
  const byCode = extendShared(column.byCode, size + values.length);
  const codes = values.map((x, i) => { byCode[size + i] = x; return size + i - 1; });
  return { column: { byCode, docCodes: column.docCodes }, codes };
}

/**
 * The numeric column after an append of docs `from ..` (`values`: their numbers, NaN: none), given the
 * field's previous column and text column (`before`, absent: none) and the appended text column
 * (`text`, its dictionary `dictionary`). Keeps reading through the text codes while that gives every
 * new doc its number; otherwise the column takes codes of its own (the text codes of the old docs
 * copied once). Costs the new docs and the new dictionary values; a change of layout, one copy.
 */
export function appendedNumericColumn(
  column: NumericColumn | undefined, before: TextColumn | undefined, text: TextColumn | undefined, dictionary: Dictionary, from: number,
  values: readonly number[],
): NumericColumn | undefined {
  if (!column && values.every((x) => x !== x)) return undefined;
  if (column && !column.docCodes && text?.single) {
    // Through the text codes: the new dictionary values get their numbers, then every new doc must read its own.
    const oldSize = column.byCode.length - 1;
    const byCode = extendShared(column.byCode, text.dictSize + 1);
    for (let c = oldSize; c < text.dictSize; c++) byCode[c + 1] = numericValue(dictionary.at(c));
    const single = text.single;
    if (values.every((x, j) => sameNumber(byCode[single[from + j] + 1], x))) return { byCode };
    column = { byCode };
  }
  const own = withOwnCodes(column, column && !column.docCodes ? before?.single : undefined, from, from + values.length);
  const added = values.filter((x) => x === x);
  const { column: out, codes } = withEntries(own, added);
  let k = 0;
  values.forEach((x, j) => { if (x === x) out.docCodes![from + j] = codes[k++]; });
  return out;
}

/**
 * The numeric column after a value patch set docs `docs` (ascending) to `values` (numbers), the field's
 * text column now being `single` (the patched copy of its single codes) over dictionary size
 * `dictSize` of `dictionary`. Through text codes: the table grows by the new dictionary values (in
 * place, as the dictionary does) and nothing is copied per doc. With own codes: the doc codes are
 * copied and each new number gets an entry.
 */
export function patchedNumericColumn(
  field: FieldIndex, docs: Int32Array, values: Float64Array, dictionary: Dictionary, dictSize: number,
): NumericColumn {
  const column = field.numeric!;
  if (!column.docCodes) {
    const oldSize = column.byCode.length - 1;
    const byCode = oldSize >= dictSize ? column.byCode : extendShared(column.byCode, dictSize + 1);
    for (let c = oldSize; c < dictSize; c++) byCode[c + 1] = numericValue(dictionary.at(c));
    return { byCode };
  }
  // A copy: the previous version keeps reading its own codes (growable, so appends extend it in place).
  const docCodes = growableArray(Int32Array, column.docCodes.length);
  docCodes.set(column.docCodes);
  const { column: out, codes } = withEntries({ byCode: column.byCode, docCodes }, Array.from(values));
  docs.forEach((d, i) => { docCodes[d] = codes[i]; });
  return out;
}

/**
 * The docs having a number, by (value, doc) ascending, on a SharedArrayBuffer, in steps: the distinct
 * numbers of the table are sorted (a few thousand for a price), then the docs are placed by the rank of
 * their code's number in one counting pass in doc order (so equal numbers keep doc order). Linear in
 * the docs, where a merge sort of a million values was not.
 */
export function* numericOrderSteps(values: NumericValues, docCount: number): Steps<Uint32Array> {
  const { byCode, codes } = values;
  const sorted = byCode.filter((x) => x === x).sort();
  // Rank of each code's number among the distinct numbers (-1: none).
  const rankOf = new Int32Array(byCode.length).fill(-1);
  for (let k = 1; k < byCode.length; k++) {
    const x = byCode[k];
    if (x !== x) continue;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    rankOf[k] = lo;
    if ((k & STEP_MASK) === STEP_MASK) yield;
  }
  const starts = new Uint32Array(sorted.length + 1);
  for (let d = 0; d < docCount; d++) {
    const r = rankOf[codes[d] + 1];
    if (r >= 0) starts[r + 1]++;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  for (let r = 0; r < sorted.length; r++) starts[r + 1] += starts[r];
  const order = sharedArray(Uint32Array, starts[sorted.length]);
  for (let d = 0; d < docCount; d++) {
    const r = rankOf[codes[d] + 1];
    if (r >= 0) order[starts[r]++] = d;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return order;
}

/**
 * The order (docs with a value by (value, doc)) of docs below `base.docs` with docs `base.docs .. N`
 * merged in: each new doc goes after the old docs of values up to its own (old docs have lower ids),
 * found by binary search; the old order is copied in blocks between them. Pure.
 */
export function orderWithAppended(base: OrderBase, { byCode, codes }: NumericValues, N: number): Uint32Array {
  const { order } = base;
  const added: number[] = [];
  for (let d = base.docs; d < N; d++) if (byCode[codes[d] + 1] === byCode[codes[d] + 1]) added.push(d);
  if (added.length === 0) return order;
  added.sort((a, b) => byCode[codes[a] + 1] - byCode[codes[b] + 1] || a - b);
  const out = sharedArray(Uint32Array, order.length + added.length);
  let from = 0;
  for (let m = 0; m < added.length; m++) {
    const v = byCode[codes[added[m]] + 1];
    let lo = from;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byCode[codes[order[mid]] + 1] <= v) lo = mid + 1;
      else hi = mid;
    }
    out.set(order.subarray(from, lo), from + m);
    out[lo + m] = added[m];
    from = lo;
  }
  out.set(order.subarray(from), from + added.length);
  return out;
}

/**
 * The numeric order of `field` as it is or can be had without a sort: its own, or its
 * {@link FieldIndex.orderBase} with the docs appended since merged in; undefined when neither exists.
 */
export function knownNumericOrder(field: FieldIndex, docCount: number): Uint32Array | undefined {
  if (field.order) return field.order;
  return field.orderBase && field.numeric ? orderWithAppended(field.orderBase, numericValues(field), docCount) : undefined;
}

/** Per-doc numbers (NaN: none) as {@link NumericValues}: doc `d` reads entry `d` (tests, references). */
export function perDocValues(values: Float64Array): NumericValues {
  const byCode = new Float64Array(values.length + 1);
  byCode[0] = NaN;
  byCode.set(values, 1);
  return { byCode, codes: Int32Array.from(values, (_, d) => d) };
}
