/** Field-length rows with room: appended docs are written in place, unless another version wrote there first. */
import { describe, expect, it } from 'vitest';
import { compactFieldLengths, extendFieldLengths, newFieldLengths } from './field-lengths.js';

describe('field lengths with room', () => {
  it('takes appended docs and new fields in place, copies for a second append to the same version', () => {
    const built = newFieldLengths(2, 3);
    const { fieldLengths: a, lengthStride: s } = built;
    a.set([1, 2, 3], 0);
    a.set([4, 5, 6], s);
    const appended = extendFieldLengths(built, 2, 3, 2, 4);
    expect(appended.fieldLengths).toBe(a);
    appended.fieldLengths[3] = 7;
    appended.fieldLengths[s + 3] = 8;
    expect(Array.from(compactFieldLengths(appended, 2, 4))).toEqual([1, 2, 3, 7, 4, 5, 6, 8]);
    // The built version still reads its own three docs.
    expect(Array.from(compactFieldLengths(built, 2, 3))).toEqual([1, 2, 3, 4, 5, 6]);
    // Another version appended to the built one (the first one dropped): its own rows.
    const other = extendFieldLengths(built, 2, 3, 2, 4);
    expect(other.fieldLengths).not.toBe(a);
    expect(Array.from(compactFieldLengths(other, 2, 4))).toEqual([1, 2, 3, 0, 4, 5, 6, 0]);
    // A new full-text field: a new row, zero for the old docs.
    const wider = extendFieldLengths(appended, 2, 4, 3, 5);
    expect(wider.fieldLengths.buffer).toBe(a.buffer);
    expect(Array.from(compactFieldLengths(wider, 3, 5))).toEqual([1, 2, 3, 7, 0, 4, 5, 6, 8, 0, 0, 0, 0, 0, 0]);
    // The two-field version (before the new field) can no longer write after its docs: a copy.
    const beside = extendFieldLengths(appended, 2, 4, 2, 5);
    expect(beside.fieldLengths.buffer).not.toBe(a.buffer);
    expect(Array.from(compactFieldLengths(beside, 2, 5))).toEqual([1, 2, 3, 7, 0, 4, 5, 6, 8, 0]);
  });
});
