/**
 * Tokens per full-text field and doc (BM25F length normalisation), laid out doc by doc:
 * `fieldLengths[d * stride + f]`, so a doc's lengths sit side by side (scoring reads the lengths of
 * each posting's doc, in doc order). A doc has `stride` slots (`FullTextIndex.lengthStride`): its
 * full-text fields, then spare ones, zero in every doc, that a new full-text field takes in place (no
 * doc before it has a length in it). The array lives on a growable buffer: an append extends it in
 * place (`extendShared`: only the version holding the buffer's last docs may, any other appends to a
 * copy); a new field beyond the spare slots lays it out again with room for as many new fields again
 * (decisions/0070).
 * @module
 */
import { extendShared, growableArray } from '../columns/shared-arrays.js';
import type { Steps } from '../steps.js';

/** Docs whose lengths a copy moves between two yields. */
const COPY_STEP_MASK = 65536 - 1;

/**
 * Fewest spare slots a layout gets. At a million docs a relayout copies every doc's lengths (tens of
 * milliseconds, and the collections of a new array of tens of megabytes, in the change that adds the
 * field); with room for as many fields again as the catalog has (at least this many), fields added one
 * by one relayout a number of times logarithmic in their count.
 */
const MIN_SPARE_FIELD_SLOTS = 4;

/** The slots per doc of a layout made for `fields` full-text fields: room for new ones (see {@link MIN_SPARE_FIELD_SLOTS}). */
export function lengthStrideFor(fields: number): number {
  return fields + Math.max(MIN_SPARE_FIELD_SLOTS, fields);
}

/** The length of full-text field `f` in doc `d`, in a layout of `stride` slots per doc. */
export function lengthAt(fieldLengths: Uint16Array, stride: number, f: number, d: number): number {
  return fieldLengths[d * stride + f];
}

/** Zeroed lengths of `stride` slots for each of `docCount` docs (to be written), growable in place. */
export function newFieldLengths(stride: number, docCount: number): Uint16Array {
  return growableArray(Uint16Array, stride * docCount);
}

/** Field lengths and their slots per doc. */
export interface FieldLengthLayout {
  readonly fieldLengths: Uint16Array;
  readonly stride: number;
}

/**
 * The field lengths `old` (`oldStride` slots per doc, `n` docs) made ready for docs `n .. N` and
 * `fields` full-text fields, the new entries 0: extended in place when `old` holds its buffer's last
 * docs and its slots hold `fields` (a new field takes a spare slot), else a copy; laid out again, with
 * spare slots, when `fields` exceeds them. The new docs' lengths are the caller's to write.
 */
export function* extendFieldLengths(old: Uint16Array, oldStride: number, n: number, fields: number, N: number): Steps<FieldLengthLayout> {
  if (fields <= oldStride) return { fieldLengths: extendShared(old, N * oldStride), stride: oldStride };
  const stride = lengthStrideFor(fields);
  const out = newFieldLengths(stride, N);
  // A pass over every old doc (tens of milliseconds at a million docs and several fields): in steps.
  for (let d = 0; d < n; d++) {
    for (let f = 0; f < oldStride; f++) out[d * stride + f] = old[d * oldStride + f];
    if ((d & COPY_STEP_MASK) === COPY_STEP_MASK) yield;
  }
  return { fieldLengths: out, stride };
}

/** Lengths stored field by field (`f * docCount + d`, snapshot formats up to 4) laid out doc by doc, `fields` slots a doc. */
export function docMajorLengths(rows: Uint16Array, fields: number, docCount: number): Uint16Array {
  const out = newFieldLengths(fields, docCount);
  for (let f = 0; f < fields; f++) for (let d = 0; d < docCount; d++) out[d * fields + f] = rows[f * docCount + d];
  return out;
}
