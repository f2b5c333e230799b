/** Norm keys: one key per distinct (field, tf, length), kept by appends; norms as `postingNorm` gives them. */
import { describe, expect, it } from 'vitest';
import { postingNorm } from './length-norms.js';
import { NormKeyBuilder, normsOf, postKeysArray } from './norm-keys.js';

describe('norm keys', () => {
  it('gives one key per distinct triple, keeps them when continued, and norms them with the given means', () => {
    const builder = new NormKeyBuilder();
    const a = builder.keyOf(0, 1, 5);
    const b = builder.keyOf(1, 1, 5);
    const c = builder.keyOf(0, 3, 5);
    const d = builder.keyOf(0, 1, 70_000 % 65_536);
    const e = builder.keyOf(0, 1, 2_000);
    expect([a, b, c, d, e]).toEqual([0, 1, 2, 3, 4]);
    expect([builder.keyOf(0, 1, 5), builder.keyOf(0, 3, 5), builder.keyOf(0, 1, 2_000)]).toEqual([a, c, e]);
    const table = builder.table();
    const continued = NormKeyBuilder.from(table);
    expect([continued.keyOf(0, 3, 5), continued.keyOf(2, 7, 40)]).toEqual([c, 5]);
    const norms = normsOf(table, [4, 6]);
    expect(Array.from(norms)).toEqual([postingNorm(1, 5, 4), postingNorm(1, 5, 6), postingNorm(3, 5, 4), postingNorm(1, 4_464, 4), postingNorm(1, 2_000, 4)]);
    // The same means (another array) reuse the norms; other means give others.
    expect(normsOf(table, [4, 6])).toBe(norms);
    expect(normsOf(table, [5, 6])[0]).toBe(postingNorm(1, 5, 5));
  });

  it('keeps keys in 16 bits while they fit', () => {
    expect(postKeysArray(3, 65_536)).toBeInstanceOf(Uint16Array);
    expect(postKeysArray(3, 65_537)).toBeInstanceOf(Uint32Array);
  });
});
