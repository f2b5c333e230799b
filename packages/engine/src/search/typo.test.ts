import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedEdits, boundedOsaDistance } from './typo.js';
import { osa } from './__tests__/reference-search.js';

describe('allowedEdits', () => {
  it('allows by default no typo below 4 characters, 1 from 4, 2 from 8', () => {
    expect([1, 3, 4, 7, 8, 20].map((n) => allowedEdits('a'.repeat(n)))).toEqual([0, 0, 1, 1, 2, 2]);
  });
});

describe('boundedOsaDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps as one edit', () => {
    expect(boundedOsaDistance('shirt', 'shirt', 2)).toBe(0);
    expect(boundedOsaDistance('shirt', 'shrit', 2)).toBe(1);
    expect(boundedOsaDistance('shirt', 'shirts', 2)).toBe(1);
    expect(boundedOsaDistance('shirt', 'shit', 2)).toBe(1);
    expect(boundedOsaDistance('shirt', 'shurt', 2)).toBe(1);
    expect(boundedOsaDistance('television', 'televsiion', 2)).toBe(1);
    expect(boundedOsaDistance('ca', 'abc', 3)).toBe(3); // OSA, not unrestricted Damerau
  });
  it('stops at max + 1', () => {
    expect(boundedOsaDistance('abcdef', 'uvwxyz', 2)).toBe(3);
    expect(boundedOsaDistance('a', 'abcd', 1)).toBe(2);
  });
  it('agrees with a plain OSA table whenever the distance is within the bound', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 9 });
    fc.assert(fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
      const exact = osa(a, b);
      expect(boundedOsaDistance(a, b, max)).toBe(exact <= max ? exact : max + 1);
    }), { numRuns: 500 });
  });
});
