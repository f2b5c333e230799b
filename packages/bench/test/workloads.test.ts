import { describe, expect, it } from 'vitest';
import { loadDataset } from '../src/datasets.js';
import { REQUEST_TYPES } from '../src/types.js';
import { buildWorkload, words } from '../src/workloads/index.js';

describe('workloads', () => {
  it('are deterministic spec request bodies, one set per request type', async () => {
    const sample = await loadDataset({ kind: 'generated', count: 3000, seed: 1 });
    const a = buildWorkload(sample, 40);
    const b = buildWorkload(sample, 40);
    expect(a).toEqual(b);
    expect(buildWorkload(sample, 10).text).toEqual(a.text.slice(0, 10)); // a prefix: smaller runs ask the same first queries
    for (const type of REQUEST_TYPES) {
      expect(a[type]).toHaveLength(40);
      for (const q of a[type]) {
        expect(q.website_id).toBe('bench');
        expect(q.client).toBe('bench');
        expect(typeof q.q).toBe('string');
        expect(Number.isInteger(q.start)).toBe(true);
      }
    }
    for (const q of a.text) expect(words(q.q).length).toBeGreaterThan(0);
    for (const q of a.browse) {
      expect(q.q).toBe('');
      expect(Array.isArray(q.scope?.search_category)).toBe(true);
      expect(q.range_fields).toHaveLength(2);
      expect(q.sort_fields).toEqual([{ price: { order: 'asc', type: 'number' } }]);
    }
    for (const q of a.text_scope) {
      expect((q.scope?.brand as string[]).length).toBeGreaterThan(0);
      const price = q.scope?.price as { min: number; max: number };
      expect(price.min).toBeLessThanOrEqual(price.max);
    }
    for (const q of a.multi_sort) {
      expect(q.start).toBe(40);
      expect(q.sort_fields).toHaveLength(2);
    }
  });

  it('tokenise the way the reference scan does', () => {
    expect(words("Women's Café T-Shirt, 2 pcs")).toEqual(['women', 'cafe', 'shirt', 'pcs']);
    expect(words(undefined)).toEqual([]);
  });
});
