import { describe, expect, it } from 'vitest';
import { isAisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { readProducts } from './read-products.js';

const good = (i: number) => ({ refId: `p${i}`, title: `t${i}`, price: i });

describe('readProducts of an in-memory list', () => {
  it('skips bad records and misfits naming their record, and keeps the others with their record numbers', async () => {
    const records: unknown[] = [good(1), good(2), 'not a product', good(4), { refId: 'p5', price: 'ten' }, good(6)];
    const positions: number[] = [];
    // Bad records as a JavaScript caller may send them.
    const { products, skipped } = await readProducts(records as Product[], { onError: 'skip' }, positions, { fieldTypes: { price: { type: 'number' } } });
    expect(products.map((p) => p.refId)).toEqual(['p1', 'p2', 'p4', 'p6']);
    expect(positions).toEqual([1, 2, 4, 6]);
    expect(skipped.count).toBe(2);
    expect(skipped.first.map((s) => s.line)).toEqual([3, 5]);
    expect(skipped.first[1]!.message).toMatch(/^product 5: product "p5": /);
  });

  it('refuses a batch at its first bad record by default, naming it', async () => {
    const err = await readProducts([good(1), good(2), { title: 'no refId' }] as Product[]).catch((e: unknown) => e);
    expect(isAisleError(err) && err.code).toBe('CATALOG_BAD_INPUT');
    expect(String((err as Error).message)).toContain('product 3: missing or non-string refId');
  });

  it("keeps a list of its own (the caller's stays the caller's), numbers records 1..n, and takes generators", async () => {
    const records = Array.from({ length: 5_000 }, (_, i) => good(i + 1));
    const positions: number[] = [];
    const progress: number[] = [];
    const { products } = await readProducts(records, { onProgress: (p) => progress.push(p.records) }, positions);
    records.length = 0;
    expect(products).toHaveLength(5_000);
    expect(positions[0]).toBe(1);
    expect(positions[4_999]).toBe(5_000);
    expect(progress.at(-1)).toBe(5_000);
    function* generated() { for (let i = 1; i <= 300; i++) yield good(i); }
    expect((await readProducts(generated())).products.map((p) => p.refId).slice(-2)).toEqual(['p299', 'p300']);
  });
});
