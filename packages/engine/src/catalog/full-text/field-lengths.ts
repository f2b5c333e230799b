/**
 * Tokens per full-text field and doc (BM25F length normalisation), laid out doc by doc:
 * `fieldLengths[d * fieldCount + f]`, so a doc's lengths sit side by side (scoring reads the lengths
 * of each posting's doc, in doc order) and the array is exactly as long as its docs need. It lives on
 * a growable buffer: an append extends it in place (`extendShared`: only the version holding the
 * buffer's last docs may, any other appends to a copy); a new full-text field lays it out again (a
 * copy, as rare as new fields are).
 * @module
 */
import { extendShared, growableArray } from '../columns/shared-arrays.js';
import type { Steps } from '../steps.js';

/** Docs whose lengths a copy moves between two yields. */
const COPY_STEP_MASK = 65536 - 1;

/** The length of full-text field `f` in doc `d`, in a layout of `fieldCount` fields per doc. */
export function lengthAt(fieldLengths: Uint16Array, fieldCount: number, f: number, d: number): number {
  return fieldLengths[d * fieldCount + f];
}

/** Zeroed lengths for `fields` full-text fields of `docCount` docs (to be written), growable in place. */
export function newFieldLengths(fields: number, docCount: number): Uint16Array {
  return growableArray(Uint16Array, fields * docCount);
}

/**
 * The field lengths `old` (`oldFields` fields, `n` docs) made ready for docs `n .. N` and `fields`
 * fields, the new entries 0: extended in place when `old` holds its buffer's last docs and no field is
 * new, else a copy. The new docs' lengths are the caller's to write.
 */
export function* extendFieldLengths(old: Uint16Array, oldFields: number, n: number, fields: number, N: number): Steps<Uint16Array> {
  if (fields === oldFields) return extendShared(old, N * fields);
  const out = newFieldLengths(fields, N);
  // A pass over every old doc (tens of milliseconds at a million docs and several fields): in steps.
  for (let d = 0; d < n; d++) {
    for (let f = 0; f < oldFields; f++) out[d * fields + f] = old[d * oldFields + f];
    if ((d & COPY_STEP_MASK) === COPY_STEP_MASK) yield;
  }
  return out;
}

/** Lengths stored field by field (`f * docCount + d`, snapshot formats up to 4) laid out doc by doc. */
export function docMajorLengths(rows: Uint16Array, fields: number, docCount: number): Uint16Array {
  const out = newFieldLengths(fields, docCount);
  for (let f = 0; f < fields; f++) for (let d = 0; d < docCount; d++) out[d * fields + f] = rows[f * docCount + d];
  return out;
}
