import { describe, expect, it } from 'vitest';
import { applyForcedScope, intersectCondition, restrictFacetBuckets, valueAllowed } from './key-scope.js';

describe('intersectCondition', () => {
  it('intersects value lists and applies exclusions to lists', () => {
    expect(intersectCondition(['a', 'b'], ['b', 'c'])).toEqual(['b']);
    expect(intersectCondition(['a', 'b'], ['c'])).toEqual([]); // nothing allowed: an empty list matches nothing
    expect(intersectCondition(['a', 'b'], { not: ['a'] })).toEqual(['b']);
    expect(intersectCondition({ not: ['a'] }, ['a', 'b'])).toEqual(['b']);
    expect(intersectCondition({ not: ['a'] }, { not: ['b'] })).toEqual({ not: ['a', 'b'] });
  });

  it('takes the tighter numeric bounds and unites exclusions', () => {
    expect(intersectCondition({ min: 10, max: 100 }, { min: 0, max: 50 })).toEqual({ min: 10, max: 50 });
    expect(intersectCondition({ min: 10 }, { max: 5 })).toEqual({ min: 10, max: 5 });
    expect(intersectCondition({ not: [0] }, { min: 1, not: [3] })).toEqual({ min: 1, not: [0, 3] });
  });

  it('keeps the key condition when the caller sends none, another kind, or an empty exclusion', () => {
    expect(intersectCondition(['a'], {})).toEqual(['a']);
    expect(intersectCondition(['a'], { not: [] })).toEqual(['a']);
    expect(intersectCondition(['a'], { min: 1 })).toEqual(['a']);
    expect(intersectCondition({ min: 1 }, ['x'])).toEqual({ min: 1 });
    // `{}` is a numeric condition without bounds (a product with a number), as a search reads it:
    // never widened by the caller's list.
    expect(intersectCondition({}, ['x'])).toEqual({});
  });

  it('combines exists with the conditions it implies or absorbs, else keeps the key condition', () => {
    expect(intersectCondition({ exists: true }, ['a'])).toEqual(['a']);
    expect(intersectCondition({ min: 1 }, { exists: true })).toEqual({ min: 1 });
    expect(intersectCondition({ exists: false }, { not: ['a'] })).toEqual({ exists: false });
    expect(intersectCondition({ not: [3] }, { exists: false })).toEqual({ exists: false });
    expect(intersectCondition({ exists: true }, { exists: true })).toEqual({ exists: true });
    expect(intersectCondition({ exists: true }, { exists: false })).toEqual({ exists: true });
    expect(intersectCondition({ exists: false }, ['a'])).toEqual({ exists: false });
    expect(intersectCondition({ exists: true }, { not: ['a'] })).toEqual({ exists: true });
    expect(intersectCondition({ exists: true }, { not: [] })).toEqual({ exists: true });
  });
});

describe('applyForcedScope', () => {
  it('adds the forced fields and intersects shared ones, without touching the others', () => {
    const forced = { brand: ['Acme'], price: { max: 100 } };
    expect(applyForcedScope(forced, undefined)).toEqual(forced);
    expect(applyForcedScope(forced, { brand: ['Acme', 'Other'], color: ['red'], price: { min: 5, max: 500 } }))
      .toEqual({ brand: ['Acme'], color: ['red'], price: { min: 5, max: 100 } });
  });

  it('treats a field named __proto__ as a field', () => {
    const merged = applyForcedScope(JSON.parse('{"__proto__": ["a"]}'), JSON.parse('{"__proto__": ["a", "b"]}'));
    expect(Object.keys(merged)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(merged, '__proto__')?.value).toEqual(['a']);
  });
});

describe('restrictFacetBuckets', () => {
  const aggregations = { brand: [{ key: 'Acme', doc_count: 3 }, { key: 'Other', doc_count: 9 }], rating: [{ key: '1', doc_count: 1 }, { key: '5', doc_count: 2 }] };

  it('drops values the key forbids from disjunctively counted forced fields only', () => {
    const forced = { brand: ['Acme'], rating: { min: 2 } };
    expect(restrictFacetBuckets(aggregations, forced, ['brand', 'rating'])).toEqual({ brand: [{ key: 'Acme', doc_count: 3 }], rating: [{ key: '5', doc_count: 2 }] });
    expect(restrictFacetBuckets(aggregations, forced, ['rating'])!.brand).toHaveLength(2);
    expect(restrictFacetBuckets(aggregations, forced, undefined)).toBe(aggregations);
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
