/**
 * Partial product updates: RFC 7396 merge (the RFC's own examples), per-record errors, and the
 * catalog path (a numbers-only patch takes the value-patch fast path; other patches rebuild; the
 * result equals a catalog built from the merged products).
 */
import { describe, expect, it } from 'vitest';
import { isAisleError } from '../../errors.js';
import { executeSearch } from '../../search/execute-search.js';
import type { Product } from '../../types.js';
import { Catalog } from '../catalog.js';
import { mergePatch, mergeProductPatches } from './merge-patch.js';

describe('mergePatch (RFC 7396)', () => {
  // RFC 7396, Appendix A.
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('%j + %j', (target, patch, expected) => {
    const before = JSON.stringify(target);
    expect(mergePatch(target, patch)).toEqual(expected);
    expect(JSON.stringify(target)).toBe(before);
  });

  it('a "__proto__" key stays a plain field', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as unknown;
    const merged = mergePatch({ refId: 'A' }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(merged))).toEqual(JSON.parse('{"refId":"A","__proto__":{"polluted":true},"x":1}'));
  });
});

describe('mergeProductPatches', () => {
  const stored = new Map<string, Product>([['A', { refId: 'A', title: 'Tent', price: 10 }]]);
  const lookup = (refId: string) => stored.get(refId);

  it('merges in order; a refId patched twice merges the second over the first', () => {
    const out = mergeProductPatches([{ refId: 'A', price: 12 }, { refId: 'A', title: null, brand: 'Ü' }], [1, 2], lookup, 'reject');
    expect(out.products).toEqual([{ refId: 'A', title: 'Tent', price: 12 }, { refId: 'A', price: 12, brand: 'Ü' }]);
    expect(stored.get('A')).toEqual({ refId: 'A', title: 'Tent', price: 10 });
  });

  it('an unknown refId refuses the batch (reject) naming the record, or is skipped (skip)', () => {
    try {
      mergeProductPatches([{ refId: 'A', price: 1 }, { refId: 'NOPE', price: 2 }], [1, 3], lookup, 'reject');
      expect.unreachable();
    } catch (err) {
      expect(isAisleError(err) && err.code).toBe('CATALOG_BAD_INPUT');
      expect((err as Error).message).toContain('record 3');
      expect((err as Error).message).toContain('"NOPE"');
    }
    const out = mergeProductPatches([{ refId: 'NOPE', price: 2 }, { refId: 'A', price: 1 }], [1, 2], lookup, 'skip');
    expect(out.products).toEqual([{ refId: 'A', title: 'Tent', price: 1 }]);
    expect(out.skipped).toEqual([{ line: 1, message: expect.stringContaining('"NOPE"') as string }]);
  });
});

describe('mergeProductPatches and the product limits', () => {
  it('refuses (or skips) a patch whose merged product would pass a product limit: patches grew a product past what a PUT takes', () => {
    // 1,500 fields stored, 1,500 more patched in: each fits alone, the merged 3,001 do not (a PUT of it answered 400).
    const wide: Product = { refId: 'W', ...Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`a${i}`, i])) };
    const more: Product = { refId: 'W', ...Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`b${i}`, i])) };
    const lookup = (refId: string) => (refId === 'W' ? wide : undefined);
    expect(() => mergeProductPatches([more], [4], lookup, 'reject')).toThrow('catalog: record 4: the patched product would be past a product limit: product "W": the product has more than 2000 fields and array elements (3001 keys at its top level)');
    const skipped = mergeProductPatches([more, { refId: 'W', a1: 7 }], [1, 2], lookup, 'skip');
    expect(skipped.skipped).toEqual([{ line: 1, message: expect.stringMatching(/^record 1: the patched product would be past a product limit/) }]);
    expect(skipped.products).toEqual([{ ...wide, a1: 7 }]);
  });
});

describe('Catalog.patch', () => {
  const products: Product[] = Array.from({ length: 30 }, (_, i) => ({
    refId: `P${i}`, title: `product ${i} ${i % 2 ? 'red' : 'blue'}`, brand: i % 3 ? 'Acme' : 'Zeta', price: 10 + i, availability: 1,
  }));
  const search = (c: Catalog, q: string) => executeSearch(c, {
    website_id: 'w', client: 'c', q, start: 0, size: 50, aggregations: ['brand'], range_fields: ['price'],
    sort_fields: [{ price: { order: 'desc', type: 'number' } }],
  });

  it('a numbers-only patch keeps the other fields and takes the value-patch path', async () => {
    const catalog = new Catalog();
    await catalog.upsert(products);
    const version = catalog.version;
    const summary = await catalog.patch([{ refId: 'P3', price: 99 }, { refId: 'P4', availability: 0 }]);
    expect(summary).toEqual({ loaded: 2, skipped: [], skippedCount: 0, catalogSize: 30 });
    expect(catalog.getProduct('P3')).toEqual({ ...products[3], price: 99 });
    expect(catalog.state.patchedSince?.version).toBe(version);
    expect([...catalog.state.patchedSince!.fields].sort()).toEqual(['availability', 'price']);
    const rebuilt = new Catalog();
    await rebuilt.upsert(products.map((p) => catalog.getProduct(p.refId)!));
    expect(await search(catalog, '')).toEqual(await search(rebuilt, ''));
  });

  it('a patch that changes text or removes a field rebuilds, with the same answers as a fresh build', async () => {
    const catalog = new Catalog();
    await catalog.upsert(products);
    await catalog.patch([{ refId: 'P5', title: 'green lantern', brand: null }, { refId: 'P6', colour: 'grün' }]);
    expect(catalog.getProduct('P5')).toEqual({ refId: 'P5', title: 'green lantern', price: 15, availability: 1 });
    expect(catalog.state.patchedSince).toBeUndefined();
    const rebuilt = new Catalog();
    await rebuilt.upsert(products.map((p) => catalog.getProduct(p.refId)!));
    for (const q of ['', 'green', 'red', 'grün']) expect(await search(catalog, q)).toEqual(await search(rebuilt, q));
    expect((await search(catalog, 'green')).total_results).toBe(1);
  });

  it('an unknown refId rejects the whole patch and changes nothing; with skip only that record is left out', async () => {
    const catalog = new Catalog();
    await catalog.upsert(products);
    const version = catalog.version;
    await expect(catalog.patch([{ refId: 'P1', price: 1 }, { refId: 'GONE', price: 2 }])).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT', details: { line: 2, refId: 'GONE' } });
    expect(catalog.version).toBe(version);
    expect(catalog.getProduct('P1')).toEqual(products[1]);
    const summary = await catalog.patch([{ refId: 'GONE', price: 2 }, { title: 'no refId' } as unknown as Product, { refId: 'P1', price: 1 }], { onError: 'skip' });
    expect(summary.loaded).toBe(1);
    expect(summary.skipped.map((s) => s.line)).toEqual([1, 2]);
    expect(catalog.getProduct('P1')).toEqual({ ...products[1], price: 1 });
  });

  it('merges against every change queued before it (concurrent calls, unawaited)', async () => {
    const catalog = new Catalog({}, { syncLimit: 0, sliceMs: 1 });
    await catalog.upsert(products);
    const first = catalog.upsert([{ refId: 'P7', title: 'replaced seven', price: 1 }]);
    const patched = catalog.patch([{ refId: 'P7', brand: 'Late' }]);
    const deleted = catalog.delete(['P8']);
    const patchDeleted = catalog.patch([{ refId: 'P8', price: 3 }]);
    await first;
    await patched;
    await deleted;
    await expect(patchDeleted).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT' });
    expect(catalog.getProduct('P7')).toEqual({ refId: 'P7', title: 'replaced seven', price: 1, brand: 'Late' });
    expect(catalog.has('P8')).toBe(false);
  });

  it('an empty patch changes nothing', async () => {
    const catalog = new Catalog();
    await catalog.upsert(products);
    const version = catalog.version;
    expect(await catalog.patch([])).toEqual({ loaded: 0, skipped: [], skippedCount: 0, catalogSize: 30 });
    expect(catalog.version).toBe(version);
  });
});
