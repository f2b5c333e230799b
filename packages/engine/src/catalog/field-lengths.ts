/**
 * Tokens per full-text field and doc (BM25F length normalisation), laid out in one row per field:
 * `fieldLengths[f * lengthStride + d]`, each row with room after its docs (`lengthStride >= docCount`).
 * An append writes its new docs' lengths into that room, in place: every earlier version shares the
 * buffer and reads only its own docs. Only the version holding a buffer's last written doc may write
 * after it (as with `extendShared`); any other appends to a copy. A new full-text field adds a row at
 * the end of the buffer (growable: in place too).
 * @module
 */
import { extendShared, growableArray, sharedArray, spareCapacity } from './shared-arrays.js';

/** The field lengths of a version: the array and its row length. */
export interface FieldLengths {
  fieldLengths: Uint16Array;
  lengthStride: number;
}

/** Per buffer, the docs whose lengths are written: the rows' room starts there. */
const writtenDocs = new WeakMap<ArrayBufferLike, number>();

/** Zeroed rows for `fields` full-text fields of `docCount` docs (to be written), with room for more. */
export function newFieldLengths(fields: number, docCount: number): FieldLengths {
  const lengthStride = spareCapacity(docCount);
  const fieldLengths = growableArray(Uint16Array, fields * lengthStride);
  writtenDocs.set(fieldLengths.buffer, docCount);
  return { fieldLengths, lengthStride };
}

/**
 * The field lengths of `old` (`oldFields` fields, `n` docs) made ready for docs `n .. N` and `fields`
 * fields, the new entries 0: the same buffer when its rows have room and `old` holds its last docs (new
 * rows appended with `extendShared`), else a copy into rows with room. The new docs' lengths are the
 * caller's to write.
 */
export function extendFieldLengths(old: FieldLengths, oldFields: number, n: number, fields: number, N: number): FieldLengths {
  const { lengthStride } = old;
  if (N <= lengthStride && writtenDocs.get(old.fieldLengths.buffer) === n) {
    const fieldLengths = fields === oldFields ? old.fieldLengths : extendShared(old.fieldLengths, fields * lengthStride);
    // A copy (no room for the rows) leaves the old buffer's room unwritten: its claim stays.
    writtenDocs.set(fieldLengths.buffer, N);
    return { fieldLengths, lengthStride };
  }
  const out = newFieldLengths(fields, N);
  for (let f = 0; f < oldFields; f++) {
    out.fieldLengths.set(old.fieldLengths.subarray(f * old.lengthStride, f * old.lengthStride + n), f * out.lengthStride);
  }
  return out;
}

/** The lengths as rows of exactly `docCount` docs (`f * docCount + d`: a snapshot's layout). */
export function compactFieldLengths(lengths: FieldLengths, fields: number, docCount: number): Uint16Array {
  if (lengths.lengthStride === docCount) return lengths.fieldLengths.subarray(0, fields * docCount);
  const out = sharedArray(Uint16Array, fields * docCount);
  for (let f = 0; f < fields; f++) out.set(lengths.fieldLengths.subarray(f * lengths.lengthStride, f * lengths.lengthStride + docCount), f * docCount);
  return out;
}
