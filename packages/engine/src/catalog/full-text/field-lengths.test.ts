/** Field lengths doc by doc: appended docs and new fields are written in place, unless another version wrote there first or no slot is spare. */
import { describe, expect, it } from 'vitest';
import { runSteps } from '../steps.js';
import { docMajorLengths, extendFieldLengths, lengthAt, lengthStrideFor, newFieldLengths } from './field-lengths.js';

/** Per doc, its first `fields` lengths. */
function lengthsByDoc(lengths: Uint16Array, stride: number, fields: number, docs: number): number[][] {
  return Array.from({ length: docs }, (_, d) => Array.from({ length: fields }, (_, f) => lengthAt(lengths, stride, f, d)));
}

describe('field lengths', () => {
  it('takes appended docs in place, copies for a second append to the same version and for a field beyond the spare slots', () => {
    const built = newFieldLengths(2, 3);
    built.set([1, 4, 2, 5, 3, 6]);
    const appended = runSteps(extendFieldLengths(built, 2, 3, 2, 4));
    expect(appended.stride).toBe(2);
    expect(appended.fieldLengths.buffer).toBe(built.buffer);
    appended.fieldLengths.set([7, 8], 6);
    expect(Array.from(appended.fieldLengths)).toEqual([1, 4, 2, 5, 3, 6, 7, 8]);
    // The built version still reads its own three docs.
    expect(Array.from(built)).toEqual([1, 4, 2, 5, 3, 6]);
    // Another version appended to the built one (the first one dropped): its own copy.
    const other = runSteps(extendFieldLengths(built, 2, 3, 2, 4));
    expect(other.fieldLengths.buffer).not.toBe(built.buffer);
    expect(Array.from(other.fieldLengths)).toEqual([1, 4, 2, 5, 3, 6, 0, 0]);
    // A third full-text field, no slot spare: laid out again with spare slots, zero for the old docs.
    const wider = runSteps(extendFieldLengths(appended.fieldLengths, 2, 4, 3, 5));
    expect(wider.stride).toBe(lengthStrideFor(3));
    expect(wider.fieldLengths.length).toBe(5 * wider.stride);
    expect(lengthsByDoc(wider.fieldLengths, wider.stride, 3, 5)).toEqual([[1, 4, 0], [2, 5, 0], [3, 6, 0], [7, 8, 0], [0, 0, 0]]);
    expect(Array.from(wider.fieldLengths).every((len, i) => len === 0 || i % wider.stride < 2)).toBe(true);
    // The two-field version can still write after its docs: nothing was written there.
    const next = runSteps(extendFieldLengths(appended.fieldLengths, 2, 4, 2, 5));
    expect(next.fieldLengths.buffer).toBe(built.buffer);
  });

  it('takes a new field in a spare slot in place, the older version reading its own docs unchanged', () => {
    const stride = lengthStrideFor(2);
    const built = newFieldLengths(stride, 2);
    built.set([1, 4], 0);
    built.set([2, 5], stride);
    const before = Array.from(built);
    const added = runSteps(extendFieldLengths(built, stride, 2, 3, 3));
    expect(added.stride).toBe(stride);
    expect(added.fieldLengths.buffer).toBe(built.buffer);
    added.fieldLengths[2 * stride + 2] = 9; // the new doc's length in the new field
    expect(lengthsByDoc(added.fieldLengths, stride, 3, 3)).toEqual([[1, 4, 0], [2, 5, 0], [0, 0, 9]]);
    expect(Array.from(built)).toEqual(before);
    // Every spare slot taken, one more field lays the lengths out again.
    const full = runSteps(extendFieldLengths(added.fieldLengths, stride, 3, stride + 1, 4));
    expect(full.stride).toBe(lengthStrideFor(stride + 1));
    expect(lengthsByDoc(full.fieldLengths, full.stride, 3, 4)).toEqual([[1, 4, 0], [2, 5, 0], [0, 0, 9], [0, 0, 0]]);
  });

  it('leaves room for as many fields again, at least a few', () => {
    expect(lengthStrideFor(1)).toBeGreaterThanOrEqual(5);
    expect(lengthStrideFor(12)).toBe(24);
  });

  it('lays out lengths stored field by field (snapshot formats up to 4) doc by doc', () => {
    expect(Array.from(docMajorLengths(Uint16Array.from([1, 2, 3, 4, 5, 6]), 2, 3))).toEqual([1, 4, 2, 5, 3, 6]);
  });
});
