import { describe, expect, it } from 'vitest';
import { restrictFacetBuckets, valueAllowed } from './key-scope.js';

describe('restrictFacetBuckets', () => {
  const aggregations = { brand: [{ key: 'Acme', doc_count: 3 }, { key: 'Other', doc_count: 9 }], rating: [{ key: '1', doc_count: 1 }, { key: '5', doc_count: 2 }] };

  it('drops values the key forbids from disjunctively counted forced fields only', () => {
    const forced = { brand: ['Acme'], rating: { min: 2 } };
    expect(restrictFacetBuckets(aggregations, forced, ['brand', 'rating'])).toEqual({ brand: [{ key: 'Acme', doc_count: 3 }], rating: [{ key: '5', doc_count: 2 }] });
    expect(restrictFacetBuckets(aggregations, forced, ['rating'])!.brand).toHaveLength(2);
    expect(restrictFacetBuckets(aggregations, forced, undefined)).toBe(aggregations);
  });

  it('keeps the values an {all, any, not} condition names, not none of them (a product holds several)', () => {
    const tags = { tags: [{ key: 'a', doc_count: 3 }, { key: 'b', doc_count: 3 }, { key: 'c', doc_count: 1 }, { key: 'd', doc_count: 2 }] };
    expect(restrictFacetBuckets(tags, { tags: { all: ['a', 'b'] } }, ['tags'])!.tags!.map((b) => b.key)).toEqual(['a', 'b']);
    expect(restrictFacetBuckets(tags, { tags: { all: ['a'], any: ['c', 'd'], not: ['d'] } }, ['tags'])!.tags!.map((b) => b.key)).toEqual(['a', 'c']);
    expect(restrictFacetBuckets(tags, { tags: { any: ['b', 'c'] } }, ['tags'])!.tags!.map((b) => b.key)).toEqual(['b', 'c']);
  });

  it('checks values against each kind of condition', () => {
    expect(valueAllowed({ not: ['x'] }, 'x')).toBe(false);
    expect(valueAllowed({ min: 1, max: 2, not: [1.5] }, '1.5')).toBe(false);
    expect(valueAllowed({ min: 1, max: 2 }, 'abc')).toBe(false);
    expect(valueAllowed({}, 'anything')).toBe(false);
    expect(valueAllowed({}, ' 3 ')).toBe(true);
    expect(valueAllowed({ not: [] }, 'anything')).toBe(true);
    expect(valueAllowed({ not: [2] }, 'abc')).toBe(true); // no number: an exclusion keeps it
    expect(valueAllowed({ exists: true }, 'x')).toBe(true);
    expect(valueAllowed({ exists: false }, 'x')).toBe(false);
  });
});
