/** Field lengths doc by doc: appended docs are written in place, unless another version wrote there first. */
import { describe, expect, it } from 'vitest';
import { runSteps } from '../steps.js';
import { docMajorLengths, extendFieldLengths, lengthAt, newFieldLengths } from './field-lengths.js';

describe('field lengths', () => {
  it('takes appended docs in place, copies for a second append to the same version and for a new field', () => {
    const built = newFieldLengths(2, 3);
    built.set([1, 4, 2, 5, 3, 6]);
    const appended = runSteps(extendFieldLengths(built, 2, 3, 2, 4));
    expect(appended.buffer).toBe(built.buffer);
    appended.set([7, 8], 6);
    expect(Array.from(appended)).toEqual([1, 4, 2, 5, 3, 6, 7, 8]);
    // The built version still reads its own three docs.
    expect(Array.from(built)).toEqual([1, 4, 2, 5, 3, 6]);
    // Another version appended to the built one (the first one dropped): its own copy.
    const other = runSteps(extendFieldLengths(built, 2, 3, 2, 4));
    expect(other.buffer).not.toBe(built.buffer);
    expect(Array.from(other)).toEqual([1, 4, 2, 5, 3, 6, 0, 0]);
    // A new full-text field: laid out again, zero for the old docs.
    const wider = runSteps(extendFieldLengths(appended, 2, 4, 3, 5));
    expect(Array.from(wider)).toEqual([1, 4, 0, 2, 5, 0, 3, 6, 0, 7, 8, 0, 0, 0, 0]);
    expect(lengthAt(wider, 3, 1, 3)).toBe(8);
    // The two-field version can still write after its docs: nothing was written there.
    const next = runSteps(extendFieldLengths(appended, 2, 4, 2, 5));
    expect(next.buffer).toBe(built.buffer);
  });

  it('lays out lengths stored field by field (snapshot formats up to 4) doc by doc', () => {
    expect(Array.from(docMajorLengths(Uint16Array.from([1, 2, 3, 4, 5, 6]), 2, 3))).toEqual([1, 4, 2, 5, 3, 6]);
  });
});
