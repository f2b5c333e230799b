/**
 * The two layouts of a text column's per-doc codes, and the one place that reads and makes them.
 *
 * Most fields hold at most one value per product (a title, a brand, a price): such a column keeps one
 * code per doc in {@link SingleCodes}, an array as narrow as its dictionary allows (8, 16 or 32 bits,
 * -1 = no value). A field where some product has several values keeps `offsets` and `codes` instead.
 * At a million products a single-valued column takes 1 to 4 MB where both layouts together took 12.
 *
 * Hot loops (facet counting, scope checks) branch on `column.single` themselves; everything else reads
 * a doc's codes through {@link codeCount} / {@link codeAt}, which hide the layout.
 * @module
 */
import type { InvertedTail, MultiValuedColumn, SingleCodes, TextColumn } from '../catalog-index.js';
import { growableArray, sharedArray } from './shared-arrays.js';

/** Dictionary sizes up to these fit 8-bit and 16-bit signed codes (-1 stays free for "no value"). */
const INT8_CODES = 1 << 7;
const INT16_CODES = 1 << 15;

/**
 * The element type of a single-valued column whose dictionary has `dictSize` codes: the narrowest
 * signed array holding every code. A function of the dictionary size only, so a column grown by
 * appends has the width a one-go build of the same products gives it.
 */
export function singleCodesType(dictSize: number): typeof Int8Array | typeof Int16Array | typeof Int32Array {
  return dictSize <= INT8_CODES ? Int8Array : dictSize <= INT16_CODES ? Int16Array : Int32Array;
}

/**
 * A shared single-valued code array for `docCount` docs and `dictSize` codes, every doc without a value
 * (-1), on a growable buffer with room for appended docs (see `extendShared`).
 */
export function emptySingleCodes(dictSize: number, docCount: number): SingleCodes {
  return growableArray<SingleCodes>(singleCodesType(dictSize), docCount).fill(-1);
}

/**
 * A copy of `single` for `docCount` docs (new docs without a value) as wide as `dictSize` codes need:
 * an append or patch copies the column anyway, so widening it costs nothing more.
 */
export function copySingleCodes(single: SingleCodes, dictSize: number, docCount: number): SingleCodes {
  const out = emptySingleCodes(dictSize, docCount);
  out.set(single.length > docCount ? single.subarray(0, docCount) : single);
  return out;
}

/** Number of docs of a column. */
export function columnDocCount(column: TextColumn): number {
  return column.single ? column.single.length : column.offsets.length - 1;
}

/** Number of codes (distinct values) doc `d` has in `column`. */
export function codeCount(column: TextColumn, d: number): number {
  return column.single ? (column.single[d] >= 0 ? 1 : 0) : column.offsets[d + 1] - column.offsets[d];
}

/** Code `i` (< {@link codeCount}) of doc `d`, in the order the product gave its values. */
export function codeAt(column: TextColumn, d: number, i: number): number {
  return column.single ? column.single[d] : column.codes[column.offsets[d] + i];
}

/** Doc `d`'s first code, or -1 when it has no value. */
export function firstCode(column: TextColumn, d: number): number {
  return codeCount(column, d) > 0 ? codeAt(column, d, 0) : -1;
}

/** The codes of doc `d` (a new array: for paths that are not per-doc hot). */
export function docCodes(column: TextColumn, d: number): number[] {
  const out: number[] = [];
  for (let i = 0, k = codeCount(column, d); i < k; i++) out.push(codeAt(column, d, i));
  return out;
}

/** The column's codes in the multi-valued layout (`offsets`, `codes`), made from `single` if need be. Pure. */
export function multiValuedCodes(column: TextColumn): Pick<MultiValuedColumn, 'offsets' | 'codes'> {
  if (!column.single) return { offsets: column.offsets, codes: column.codes };
  const { single } = column;
  const offsets = sharedArray(Uint32Array, single.length + 1);
  let entries = 0;
  for (let d = 0; d < single.length; d++) {
    if (single[d] >= 0) entries++;
    offsets[d + 1] = entries;
  }
  const codes = sharedArray(Uint32Array, entries);
  for (let d = 0, at = 0; d < single.length; d++) if (single[d] >= 0) codes[at++] = single[d];
  return { offsets, codes };
}

/**
 * The single-valued codes of a multi-valued layout when no doc has more than one value (width by
 * `dictSize`), else undefined. Pure.
 */
export function singleCodesOf(offsets: Uint32Array, codes: Uint32Array, dictSize: number): SingleCodes | undefined {
  const n = offsets.length - 1;
  for (let d = 0; d < n; d++) if (offsets[d + 1] - offsets[d] > 1) return undefined;
  const single = emptySingleCodes(dictSize, n);
  for (let d = 0; d < n; d++) if (offsets[d + 1] > offsets[d]) single[d] = codes[offsets[d]];
  return single;
}

/**
 * Index of `code` in `tail.codes`, or -1 when the tail holds no doc of it (or there is no tail): a
 * binary search, the tail holding the codes appended docs took, a few among the column's.
 */
export function tailIndex(tail: InvertedTail | undefined, code: number): number {
  if (!tail) return -1;
  const { codes } = tail;
  let lo = 0;
  let hi = codes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (codes[mid] < code) lo = mid + 1;
    else hi = mid;
  }
  return lo < codes.length && codes[lo] === code ? lo : -1;
}

/** Docs having code `code` in `column`'s inverted column, main and tail (deleted ones included). */
export function codeDocCount(column: TextColumn, code: number): number {
  const i = tailIndex(column.valueTail, code);
  const tailed = i < 0 ? 0 : column.valueTail!.offsets[i + 1] - column.valueTail!.offsets[i];
  return column.valueOffsets[code + 1] - column.valueOffsets[code] + tailed;
}

/** Entries of `column`'s inverted column, main and tail. */
export function invertedEntries(column: TextColumn): number {
  return column.valueDocs.length + (column.valueTail?.docs.length ?? 0);
}

/**
 * `column`'s inverted column with its tail folded in (the layout a one-go build gives), for writers of
 * the whole column: a value patch rewriting it, a snapshot. The column's own arrays when it has no
 * tail. Pure; linear in the column.
 */
export function foldedInverted(column: TextColumn): Pick<TextColumn, 'valueOffsets' | 'valueDocs'> {
  const tail = column.valueTail;
  if (!tail) return { valueOffsets: column.valueOffsets, valueDocs: column.valueDocs };
  const { dictSize } = column;
  const main = column.valueOffsets;
  const valueOffsets = sharedArray(Uint32Array, dictSize + 1);
  const valueDocs = sharedArray(Uint32Array, invertedEntries(column));
  // Codes between two tail codes move as one block, shifted by the tail docs of the codes before.
  let shift = 0;
  let c = 0;
  for (let i = 0; i < tail.codes.length; i++) {
    const t = tail.codes[i];
    valueDocs.set(column.valueDocs.subarray(main[c], main[t + 1]), main[c] + shift);
    for (; c < t; c++) valueOffsets[c + 1] = main[c + 1] + shift;
    const list = tail.docs.subarray(tail.offsets[i], tail.offsets[i + 1]);
    valueDocs.set(list, main[t + 1] + shift);
    shift += list.length;
    valueOffsets[t + 1] = main[t + 1] + shift;
    c = t + 1;
  }
  valueDocs.set(column.valueDocs.subarray(main[c], main[dictSize]), main[c] + shift);
  for (; c < dictSize; c++) valueOffsets[c + 1] = main[c + 1] + shift;
  return { valueOffsets, valueDocs };
}
