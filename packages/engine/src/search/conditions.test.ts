/**
 * The condition algebra: shapes parsed once and written back; against one catalog, what each
 * condition compiles to; intersection and allowed values checked against real searches (a condition's
 * meaning is what the search engine selects with it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { isAisleError } from '../errors.js';
import type { Product, ScopeCondition } from '../types.js';
import { allowsValue, compileCondition, conditionToWire, parseCondition, parseValidCondition, type Condition } from './conditions.js';
import { executeSearch } from './execute-search.js';

describe('parseCondition', () => {
  it('tells every wire shape apart', () => {
    expect(parseCondition(['a', 'b'])).toEqual({ op: 'in', values: ['a', 'b'] });
    expect(parseCondition({ not: ['a'] })).toEqual({ op: 'notIn', values: ['a'] });
    expect(parseCondition({ not: [1, 2] })).toEqual({ op: 'notNumbers', not: [1, 2] });
    expect(parseCondition({ not: [] })).toEqual({ op: 'all' });
    expect(parseCondition({ min: 1 })).toEqual({ op: 'range', min: 1, max: Infinity, not: [] });
    expect(parseCondition({ max: 3, not: [2] })).toEqual({ op: 'range', min: -Infinity, max: 3, not: [2] });
    expect(parseCondition({})).toEqual({ op: 'range', min: -Infinity, max: Infinity, not: [] });
    expect(parseCondition({ min: -Number.MAX_VALUE, not: [2] })).toEqual({ op: 'range', min: -Infinity, max: Infinity, not: [2] });
    expect(parseCondition({ exists: true })).toEqual({ op: 'exists', present: true });
    expect(parseCondition({ exists: false })).toEqual({ op: 'exists', present: false });
    expect(parseCondition({ all: ['a', 'b'] })).toEqual({ op: 'every', all: ['a', 'b'], not: [] });
    expect(parseCondition({ all: ['a'], any: ['b', 'c'], not: ['d'] })).toEqual({ op: 'every', all: ['a'], any: ['b', 'c'], not: ['d'] });
    expect(parseCondition({ any: ['b'], not: ['d'] })).toEqual({ op: 'every', all: [], any: ['b'], not: ['d'] });
  });

  it('recognises no other shape', () => {
    for (const wire of [[1], { not: [1, 'a'] }, { min: '1' }, { exists: 1 }, { exists: true, min: 1 }, { in: ['a'] }, null, 'a', 3, { min: 1, not: ['a'] }, { all: 'a' }, { all: [1] }, { all: ['a'], min: 1 }, { any: ['a'], not: [1] }]) {
      expect(parseCondition(wire), JSON.stringify(wire)).toBeUndefined();
    }
    expect(() => parseValidCondition({ in: ['a'] } as unknown as ScopeCondition)).toThrow(/scope schema and the condition algebra disagree/);
  });
});

const numberArb = fc.integer({ min: -3, max: 6 });
const conditionArb: fc.Arbitrary<Condition> = fc.oneof(
  fc.subarray(['a', 'b', 'c', '2', '3']).map((values): Condition => ({ op: 'in', values })),
  fc.subarray(['a', 'b', '2'], { minLength: 1 }).map((values): Condition => ({ op: 'notIn', values })),
  fc.record({ min: fc.option(numberArb, { nil: undefined }), max: fc.option(numberArb, { nil: undefined }), not: fc.subarray([0, 2, 3]) })
    .map(({ min, max, not }): Condition => ({ op: 'range', min: min ?? -Infinity, max: max ?? Infinity, not })),
  fc.subarray([0, 2, 3], { minLength: 1 }).map((not): Condition => ({ op: 'notNumbers', not })),
  fc.boolean().map((present): Condition => ({ op: 'exists', present })),
  fc.constant<Condition>({ op: 'all' }),
  fc.record({ all: fc.subarray(['a', 'b', 'c', '2']), any: fc.option(fc.subarray(['a', 'b', '2'], { minLength: 1 }), { nil: undefined }), not: fc.subarray(['a', 'b', 'c']) })
    .map(({ all, any, not }): Condition => ({ op: 'every', all, ...(any !== undefined && { any }), not })),
);

describe('conditionToWire', () => {
  it('writes a shape that parses back to the same condition', () => {
    fc.assert(fc.property(conditionArb, (c) => { expect(parseCondition(conditionToWire(c))).toEqual(c); }), { numRuns: 500 });
    // A number required, none excluded but 2: not `{not: [2]}`, which keeps products without a number.
    expect(conditionToWire({ op: 'range', min: -Infinity, max: Infinity, not: [2] })).toEqual({ min: -Number.MAX_VALUE, not: [2] });
  });
});

// Values of field `f`, text or numbers: a catalog of these has `f` numeric or text depending on the draw.
const singleValueArb = fc.oneof(fc.constantFrom<unknown>(undefined, null, [], '', 'a', 'b', 'c'), numberArb, fc.constantFrom('2', ' 3 '));
const productsOf = (valueArb: fc.Arbitrary<unknown>): fc.Arbitrary<Product[]> => fc.array(valueArb, { minLength: 1, maxLength: 12 }).map((values) => values.map((v, i) => {
  const p: Product = { refId: `p${i}` };
  if (v !== undefined) p.f = v;
  return p;
}));
const singleValuedArb = productsOf(singleValueArb);
const productsArb = productsOf(fc.oneof(singleValueArb, fc.constantFrom(['a', 'b'], ['b', '2'])));

/** The refIds a scope `{f: condition}` selects, or 'bad request' when the condition does not fit `f`. */
async function selected(catalog: Catalog, c: Condition): Promise<string[] | 'bad request'> {
  try {
    const payload = await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, size: 50, scope: { f: conditionToWire(c) } });
    return payload.result.map((p) => p.refId).sort();
  } catch (err) {
    if (isAisleError(err) && err.code === 'SEARCH_BAD_REQUEST') return 'bad request';
    throw err;
  }
}

describe('a search key\'s forced scope beside the request\'s', () => {
  // The leak this closes: a key's {not: ["a"]} merged with a caller's ["b"] into one condition kept a
  // product having both a and b on a multi-valued field.
  it('selects exactly the products both conditions select, on single- and multi-valued fields', async () => {
    await fc.assert(fc.asyncProperty(productsArb, conditionArb, conditionArb, async (products, forced, caller) => {
      const catalog = new Catalog();
      await catalog.upsert(products);
      const [sf, sc] = await Promise.all([selected(catalog, forced), selected(catalog, caller)]);
      if (sf === 'bad request' || sc === 'bad request') return;
      const payload = await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, size: 50, scope: { f: conditionToWire(caller) } }, { forcedScope: { f: conditionToWire(forced) } });
      expect(payload.result.map((p) => p.refId).sort()).toEqual(sf.filter((r) => sc.includes(r)));
    }), { numRuns: 300 });
  });

  it('keeps a product with both values out of a key excluding one of them', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'both', f: ['a', 'b'] }, { refId: 'b', f: ['b'] }, { refId: 'a', f: ['a'] }]);
    const payload = await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, size: 50, scope: { f: ['b'] } }, { forcedScope: { f: { not: ['a'] } } });
    expect(payload.result.map((p) => p.refId)).toEqual(['b']);
  });
});

describe('every (`{all, any?, not?}`)', () => {
  // Text values only, several per product: what refinements ANDed on one multi-valued field (tags) select.
  const tagsArb = productsOf(fc.constantFrom<unknown>(undefined, [], 'a', 'b', 'c', ['a', 'b'], ['b', 'c'], ['a', 'c'], ['a', 'b', 'c']));
  const everyArb = fc.record({ all: fc.subarray(['a', 'b', 'c', 'z']), any: fc.option(fc.subarray(['a', 'b', 'c', 'z'], { minLength: 1 }), { nil: undefined }), not: fc.subarray(['a', 'b', 'c', 'z']) });
  it('selects the products having every value of all, one of any and none of not, as a plain filter does', async () => {
    await fc.assert(fc.asyncProperty(tagsArb, everyArb, fc.boolean(), async (products, { all, any, not }, worded) => {
      const catalog = new Catalog();
      await catalog.upsert(products.map((p) => ({ ...p, title: 'lamp' })));
      const c: Condition = { op: 'every', all, ...(any !== undefined && { any }), not };
      const payload = await executeSearch(catalog, { website_id: 'w', client: 'c', q: worded ? 'lamp' : '', start: 0, size: 50, scope: { f: conditionToWire(c) } });
      const valuesOf = (p: Product) => (p.f === undefined ? [] : Array.isArray(p.f) ? p.f as string[] : [p.f as string]);
      const expected = products.filter((p) => {
        const values = valuesOf(p);
        return all.every((v) => values.includes(v)) && (any === undefined || any.some((v) => values.includes(v))) && !not.some((v) => values.includes(v));
      }).map((p) => p.refId).sort();
      expect(payload.result.map((p) => p.refId).sort()).toEqual(expected);
      expect(payload.total_results).toBe(expected.length);
    }), { numRuns: 300 });
  });
});

describe('allowsValue', () => {
  it('allows a single-valued product\'s value exactly when the product is selected', async () => {
    await fc.assert(fc.asyncProperty(productsArb, conditionArb, async (products, c) => {
      const catalog = new Catalog();
      await catalog.upsert(products);
      const chosen = await selected(catalog, c);
      if (chosen === 'bad request') return;
      for (const p of products) {
        if (typeof p.f !== 'string' && typeof p.f !== 'number') continue; // no value, or several
        expect(allowsValue(c, String(p.f)), `${JSON.stringify(p.f)} under ${JSON.stringify(conditionToWire(c))}`).toBe(chosen.includes(p.refId));
      }
    }), { numRuns: 300 });
  });
});

describe('compileCondition', () => {
  it('resolves a condition against the field\'s kind', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', price: 3, brand: 'X' }, { refId: 'b', price: 5 }]);
    const { state } = catalog;
    const price = state.fieldByName.get('price')!;
    const brand = state.fieldByName.get('brand')!;
    expect(compileCondition(state, 'price', { op: 'range', min: 4, max: Infinity, not: [] }))
      .toEqual({ is: 'condition', condition: { kind: 'range', field: price, min: 4, max: Infinity, not: [], requireValue: true } });
    expect(compileCondition(state, 'brand', { op: 'exists', present: false })).toEqual({ is: 'condition', condition: { kind: 'exists', field: brand, present: false } });
    expect(compileCondition(state, 'brand', { op: 'in', values: ['Y'] })).toEqual({ is: 'nothing' });
    expect(compileCondition(state, 'brand', { op: 'notIn', values: ['Y'] })).toEqual({ is: 'all' });
    expect(compileCondition(state, 'nope', { op: 'exists', present: true })).toEqual({ is: 'nothing' });
    expect(compileCondition(state, 'nope', { op: 'exists', present: false })).toEqual({ is: 'all' });
    expect(compileCondition(state, 'price', { op: 'all' })).toEqual({ is: 'all' });
    // `every`: a value nobody has in `all` matches nothing; the simple forms compile as lists.
    expect(compileCondition(state, 'brand', { op: 'every', all: ['X', 'Y'], not: [] })).toEqual({ is: 'nothing' });
    expect(compileCondition(state, 'brand', { op: 'every', all: ['X'], not: [] })).toEqual({ is: 'condition', condition: { kind: 'in', field: brand, codes: [0] } });
    expect(compileCondition(state, 'brand', { op: 'every', all: [], any: ['Y'], not: [] })).toEqual({ is: 'nothing' });
    expect(compileCondition(state, 'price', { op: 'every', all: ['3'], not: [] })).toEqual({ is: 'mismatch', problem: 'names a numeric field: {all, any, not} takes text values; use {min, max}' });
    expect(compileCondition(state, 'price', { op: 'in', values: ['3'] })).toEqual({ is: 'mismatch', problem: 'names a numeric field: use {min, max}, not a list of values' });
    expect(compileCondition(state, 'brand', { op: 'notNumbers', not: [1] })).toEqual({ is: 'mismatch', problem: 'names a text field: use a list of values, not {min, max}' });
  });
});
