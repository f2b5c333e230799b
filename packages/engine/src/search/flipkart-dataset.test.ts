/**
 * The real catalog (20k Flipkart products), when present: text queries, facets and ranges checked
 * against plain scans of the same products.
 */
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { Product, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { referenceSearch } from './__tests__/reference-search.js';

// ../shared/datasets beside the repository (AISLE_DATASETS overrides the folder).
const DATASETS = process.env.AISLE_DATASETS ?? fileURLToPath(new URL('../../../../../shared/datasets/', import.meta.url));
const DATASET = path.join(DATASETS, 'flipkart-products.ndjson');
const request = (q: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size: 20, ...extra });

const present = existsSync(DATASET);
describe.skipIf(!present)(present ? `real catalog ${DATASET}` : `real catalog ${DATASET}: dataset absent, skipped`, () => {
  const products: Product[] = [];
  const catalog = new Catalog();
  beforeAll(async () => {
    for await (const line of createInterface({ input: createReadStream(DATASET) })) if (line.trim()) products.push(JSON.parse(line) as Product);
    await catalog.upsert(products);
  });

  it('loads every product', () => {
    expect(catalog.liveCount).toBe(products.length);
    expect(catalog.getProduct(products[123].refId)).toEqual(products[123]);
  });

  it('finds the products a word scan finds (exact word, then prefix for the last word)', async () => {
    const textFields = ['title', 'brand', 'search_category', 'search_category_generic', 'categories', 'categoryPathRaw', 'description'];
    const tokensOf = (p: Product) => new Set(textFields.flatMap((f) => [p[f]].flat().filter((v) => typeof v === 'string').flatMap((v) => tokenize(v as string))));
    const expected = products.filter((p) => { const t = tokensOf(p); return t.has('sofa') && [...t].some((w) => w.startsWith('bed')); });
    const r = await executeSearch(catalog, request('Sofa BED', { size: 1000 }));
    expect(r.total_results).toBeGreaterThan(0);
    expect(r.result.map((p) => p.refId).sort()).toEqual(expected.map((p) => p.refId).sort());
    expect(String(r.result[0].title).toLowerCase()).toContain('sofa bed');
  });

  it('ranks a brand + product-type query with the expected products first', async () => {
    const r = await executeSearch(catalog, request('alisha shorts'));
    expect(r.total_results).toBeGreaterThan(0);
    for (const p of r.result.slice(0, 5)) expect(p.brand).toBe('Alisha');
    const typo = await executeSearch(catalog, request('alisha shrots'));
    expect(typo.result[0].brand).toBe('Alisha');
    expect(typo.suggestions.corrected_query).toBe('alisha shorts');
  });

  it('facets on brand and search_category sum to the matches that have the field', async () => {
    const r = await executeSearch(catalog, request('', { aggregations: ['brand', 'search_category'], range_fields: ['price', 'retailPrice'] }));
    expect(r.total_results).toBe(products.length);
    const sum = (field: string) => r.aggregations![field].reduce((s, b) => s + b.doc_count, 0);
    expect(sum('brand')).toBe(products.filter((p) => typeof p.brand === 'string').length);
    expect(sum('search_category')).toBe(products.filter((p) => typeof p.search_category === 'string').length);
    const top = r.aggregations!.brand[0];
    expect(top.doc_count).toBe(products.filter((p) => p.brand === top.key).length);
    const prices = products.map((p) => p.price).filter((v): v is number => typeof v === 'number');
    expect(r.ranges!.price).toEqual({ min: Math.min(...prices), max: Math.max(...prices) });
  });

  it('agrees with the reference on scoped, faceted, sorted browsing', async () => {
    const brands = [String(products[0].brand), String(products[500].brand), String(products[9000].brand)];
    const req = request('', {
      scope: { brand: brands, price: { min: 100, max: 5000 } }, aggregations: ['search_category'], range_fields: ['price'],
      sort_fields: [{ price: { order: 'desc', type: 'number' } }, { title: { order: 'asc', type: 'text' } }], size: 50,
    });
    const expected = referenceSearch(products, req);
    const r = await executeSearch(catalog, req);
    expect(r.total_results).toBe(expected.total);
    expect(r.aggregations).toEqual(expected.aggregations);
    expect(r.ranges).toEqual(expected.ranges);
    expect(r.result.map((p) => p.refId)).toEqual(expected.matches.slice(0, 50).map((p) => p.refId));
  });
});
