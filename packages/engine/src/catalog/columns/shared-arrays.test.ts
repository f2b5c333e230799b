/**
 * Columns extended in place for appended versions: an older version's view never changes, and only the
 * latest view of a buffer is extended in place (a second extension of an older one copies).
 */
import { describe, expect, it } from 'vitest';
import { extendShared, growableArray, growableCopy, growableCopySteps, growableSharedBytes, PagedBuilder, sharedArray } from './shared-arrays.js';

describe('extendShared', () => {
  it('extends the latest view in place, leaving the older view as it was', () => {
    const v1 = growableArray(Uint32Array, 3);
    v1.set([1, 2, 3]);
    const v2 = extendShared(v1, 5);
    expect(v2.buffer).toBe(v1.buffer);
    expect(Array.from(v2)).toEqual([1, 2, 3, 0, 0]);
    v2[3] = 4;
    expect(v1.length).toBe(3);
    expect(Array.from(v1)).toEqual([1, 2, 3]);
    const v3 = extendShared(v2, 6);
    expect(v3.buffer).toBe(v1.buffer);
    expect(Array.from(v3)).toEqual([1, 2, 3, 4, 0, 0]);
  });

  it('copies when the view is not the latest (a version built from an older one), so no version sees another one\'s tail', () => {
    const base = growableArray(Float64Array, 2);
    base.set([1, 2]);
    const dropped = extendShared(base, 3);
    dropped[2] = 99;
    const again = extendShared(base, 3);
    expect(again.buffer).not.toBe(base.buffer);
    expect(Array.from(again)).toEqual([1, 2, 0]);
    expect(Array.from(dropped)).toEqual([1, 2, 99]);
    // The copy has room of its own.
    expect(extendShared(again, 4).buffer).toBe(again.buffer);
  });

  it('copies a column on a fixed-size buffer, or past the room reserved, onto a growable one', () => {
    const fixed = sharedArray(Int32Array, 2);
    fixed.set([-1, 5]);
    const grown = extendShared(fixed, 4);
    expect(grown.buffer).not.toBe(fixed.buffer);
    expect(Array.from(grown)).toEqual([-1, 5, 0, 0]);
    const small = growableArray(Uint8Array, 1, 2);
    small[0] = 7;
    const far = extendShared(small, 3);
    expect(far.buffer).not.toBe(small.buffer);
    expect(Array.from(far)).toEqual([7, 0, 0]);
    expect(extendShared(far, 10).buffer).toBe(far.buffer);
  });

  it('copies a column onto a growable shared buffer of its own (a version changing it), which the next extension grows in place', () => {
    const latest = growableArray(Uint16Array, 3);
    latest.set([4, 5, 6]);
    const copy = growableCopy(latest);
    expect(copy.buffer).not.toBe(latest.buffer);
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    copy[1] = 9;
    expect(Array.from(latest)).toEqual([4, 5, 6]);
    expect(Array.from(growableCopy(latest, 4))).toEqual([4, 5, 6, 0]);
    const extended = extendShared(copy, 5);
    expect(extended.buffer).toBe(copy.buffer);
    expect(Array.from(extended)).toEqual([4, 9, 6, 0, 0]);
    // The source is still the latest view of its own buffer: extended in place too.
    expect(extendShared(latest, 4).buffer).toBe(latest.buffer);
  });

  it('copies in steps of 65,536 elements what growableCopy copies at once, longer or shorter', () => {
    const source = new Float64Array(200_000).map((_, i) => i + 0.5);
    for (const length of [200_000, 250_000, 70_000, 0]) {
      const steps = growableCopySteps(source, length);
      let yields = 0;
      let next = steps.next();
      for (; !next.done; next = steps.next()) yields++;
      expect(yields).toBe(Math.max(0, Math.ceil(Math.min(length, source.length) / 65_536) - 1));
      expect(next.value).toEqual(growableCopy(source, length));
      expect(next.value.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(extendShared(next.value, length + 1).buffer).toBe(next.value.buffer);
    }
  });

  it('counts the bytes of live growable buffers, grown in place included (process.memoryUsage does not)', () => {
    const before = growableSharedBytes();
    const a = growableArray(Float64Array, 1000);
    expect(growableSharedBytes() - before).toBe(8000);
    const b = extendShared(a, 1500);
    expect(b.buffer).toBe(a.buffer);
    expect(growableSharedBytes() - before).toBe(12_000);
    const c = extendShared(sharedArray(Uint32Array, 10), 20);
    expect(growableSharedBytes() - before).toBe(12_080);
    expect(c.length).toBe(20);
  });
});

describe('PagedBuilder', () => {
  it('reads back every value pushed, across the first page\'s growth and the full pages after it', () => {
    for (const count of [0, 1, 1024, 1025, 65_536, 65_537, 200_000]) {
      const builder = new PagedBuilder(Uint32Array);
      for (let i = 0; i < count; i++) builder.push((i * 2_654_435_761) >>> 0);
      expect(builder.length).toBe(count);
      const copied = new Uint32Array(count);
      for (const _ of builder.copyTo(copied)) { /* run every step */ }
      const expected = Uint32Array.from({ length: count }, (_, i) => (i * 2_654_435_761) >>> 0);
      expect(copied).toEqual(expected);
      const at = [0, 1023, 1024, 65_535, 65_536, count - 1].filter((i) => i >= 0 && i < count);
      expect(at.map((i) => builder.get(i))).toEqual(at.map((i) => expected[i]));
    }
  });

  it('after clear() reads back only what was pushed since, over the pages it kept', () => {
    const builder = new PagedBuilder(Uint32Array);
    // Longer, then shorter, then longer again than the first fill: kept pages are written over and new ones added.
    for (const [round, count] of [[1, 150_000], [2, 70_000], [3, 300_000], [4, 0], [5, 1000]]) {
      builder.clear();
      for (let i = 0; i < count; i++) builder.push(i * 7 + round);
      expect(builder.length).toBe(count);
      const copied = new Uint32Array(count);
      for (const _ of builder.copyTo(copied)) { /* run every step */ }
      expect(copied).toEqual(Uint32Array.from({ length: count }, (_, i) => i * 7 + round));
      const at = [0, 65_535, 65_536, 131_072, count - 1].filter((i) => i >= 0 && i < count);
      expect(at.map((i) => builder.get(i))).toEqual(at.map((i) => i * 7 + round));
    }
  });
});
