/**
 * Shop navigation (issue #24) over real sockets: pinned field types (the "N/A" price feed glitch with
 * `price` pinned: skipped or refused, `price` stays numeric, range filters keep working; the 409 of a
 * settings change stored products do not fit), sort-key errors, the refId length limit, range buckets,
 * and bulk deletes by refIds and by scope. Every answer is checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH } from '@aisle/engine';
import { ADMIN_TOKEN, bearer, expectDocumented, post, startService, TOKEN_B, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const PRODUCTS = '/admin/v1/websites/{websiteId}/products';
const SETTINGS = '/admin/v1/websites/{websiteId}/settings';
const BULK_DELETE = '/admin/v1/websites/{websiteId}/products/delete';
const SEARCH = '/v1.4/search';
const admin = bearer(ADMIN_TOKEN);
type Problem = { status: number; errors: Record<string, string[]>; records?: { refId: string; field: string; value: unknown; message: string; line?: number }[] };

/** Site B's catalog replaced by `n` products priced 10…99 (every 50th "N/A" with `glitch`). */
function feed(n: number, glitch = false): { refId: string; title: string; brand: string; price: number | string }[] {
  return Array.from({ length: n }, (_, i) => ({ refId: `N${i}`, title: `item ${i}`, brand: i % 2 === 0 ? 'Even' : 'Odd', price: glitch && i % 50 === 7 ? 'N/A' : 10 + (i % 90) }));
}

const putProducts = (body: unknown, query = '') => post(`${svc.url}/admin/v1/websites/site-b/products${query}`, body, admin, 'PUT');
const patchSettings = (body: unknown) => post(`${svc.url}/admin/v1/websites/site-b/settings`, body, admin, 'PATCH');
const search = (extra: Record<string, unknown>) => post(`${svc.url}${SEARCH}`, { website_id: 'site-b', client: 'client-b', q: '', start: 0, ...extra }, bearer(TOKEN_B));
const bulkDelete = (body: unknown) => post(`${svc.url}/admin/v1/websites/site-b/products/delete`, body, admin);

describe('shop navigation over HTTP', () => {
  it('pins price: the N/A feed glitch is skipped or refused, price stays numeric, range_fields keeps working; 409 when stored products do not fit', async () => {
    expect((await putProducts(feed(1000, true), '?mode=replace')).status).toBe(200);
    // Stored prices include "N/A": pinning price is refused, listing them, and nothing changes.
    const conflict = await patchSettings({ fields: { price: { type: 'number' } } });
    expect(conflict.status).toBe(409);
    const problem = (await expectDocumented(conflict, SETTINGS, 'PATCH')) as Problem;
    expect(problem.records).toHaveLength(20);
    expect(problem.records![0]).toEqual({ refId: 'N7', field: 'price', value: 'N/A', message: expect.stringContaining('pinned to type number') });
    expect(Object.keys(problem.errors)).toEqual(['settings.Fields.Price']);
    const unchanged = (await (await fetch(`${svc.url}/admin/v1/websites/site-b/settings`, { headers: admin })).json()) as { fields: unknown };
    expect(unchanged.fields).toEqual({});

    // A clean feed, then the pin.
    expect((await putProducts(feed(1000), '?mode=replace')).status).toBe(200);
    const pinned = await patchSettings({ fields: { price: { type: 'number' } } });
    expect(pinned.status).toBe(200);
    expect(((await expectDocumented(pinned, SETTINGS, 'PATCH')) as { fields: unknown }).fields).toEqual({ price: { type: 'number' } });

    // The glitch again, with onError=skip: the 20 bad records are skipped and named; 200.
    const skipped = await putProducts(feed(1000, true), '?onError=skip');
    expect(skipped.status).toBe(200);
    const summary = (await expectDocumented(skipped, PRODUCTS, 'PUT')) as { loaded: number; skippedCount: number; skipped: Record<string, unknown>[] };
    expect(summary).toMatchObject({ loaded: 980, skippedCount: 20 });
    expect(summary.skipped[0]).toEqual({ line: 8, refId: 'N7', field: 'price', value: 'N/A', message: expect.stringContaining('field "price" is pinned to type number') });
    // With onError=reject (the default): 400 listing the records, nothing loaded.
    const rejected = await putProducts([{ refId: 'N1', price: 5 }, { refId: 'N2', price: 'call us' }]);
    expect(rejected.status).toBe(400);
    const refusal = (await expectDocumented(rejected, PRODUCTS, 'PUT')) as Problem;
    expect(refusal.records).toEqual([{ line: 2, refId: 'N2', field: 'price', value: 'call us', message: expect.stringContaining('pinned') }]);
    expect((await svc.engine.getProduct('site-b', 'N1'))?.price).toBe(11);
    // A PATCH is checked the same way.
    const patch = await post(`${svc.url}/admin/v1/websites/site-b/products`, [{ refId: 'N3', price: 'N/A' }], admin, 'PATCH');
    expect(patch.status).toBe(400);
    await expectDocumented(patch, PRODUCTS, 'PATCH');

    // Storefront requests with price ranges and a price scope keep working.
    const res = await search({ range_fields: ['price'], scope: { price: { min: 50 } }, size: 1 });
    expect(res.status).toBe(200);
    const body = (await expectDocumented(res, SEARCH, 'POST')) as { payload: { ranges: unknown; total_results: number } };
    expect(body.payload.ranges).toEqual({ price: { min: 50, max: 99 } });
  });

  it('answers 400 for a misspelled sort field or a text field sorted as a number', async () => {
    const misspelled = await search({ sort_fields: [{ prcie: { order: 'asc', type: 'number' } }] });
    expect(misspelled.status).toBe(400);
    expect(((await expectDocumented(misspelled, SEARCH, 'POST')) as { message: string }).message).toBe('search request: sort_fields[0].prcie names "prcie", which no product has');
    const textAsNumber = await search({ sort_fields: [{ brand: { order: 'asc', type: 'number' } }] });
    expect(textAsNumber.status).toBe(400);
    expect(((await expectDocumented(textAsNumber, SEARCH, 'POST')) as { message: string }).message).toMatch(/sort_fields\[0\]\.brand names "brand", a text field/);
  });

  it('counts range buckets (every band, from inclusive, to exclusive), ignoring the own scope of a disjunctive field', async () => {
    expect((await putProducts(feed(100), '?mode=replace')).status).toBe(200); // prices 10…99, then 10…19
    const res = await search({ scope: { price: { min: 90 }, brand: ['Even'] }, disjunctive_facets: ['price'], range_buckets: { price: [20, 50, 90] }, size: 0 });
    expect(res.status).toBe(200);
    const body = (await expectDocumented(res, SEARCH, 'POST')) as { payload: { range_buckets: Record<string, unknown[]>; total_results: number } };
    expect(body.payload.total_results).toBe(5);
    expect(body.payload.range_buckets).toEqual({ price: [{ to: 20, count: 10 }, { from: 20, to: 50, count: 15 }, { from: 50, to: 90, count: 20 }, { from: 90, count: 5 }] });
    for (const bad of [{ price: [5, 5] }, { brand: [1] }, { price: [] }]) {
      const refused = await search({ range_buckets: bad });
      expect(refused.status).toBe(400);
      await expectDocumented(refused, SEARCH, 'POST');
    }
  });

  it('refuses a refId longer than the limit as a bad record, so every product stays addressable by URL', async () => {
    const long = 'L'.repeat(MAX_ID_LENGTH + 1);
    const refused = await putProducts([{ refId: long, title: 'x' }]);
    expect(refused.status).toBe(400);
    expect(((await expectDocumented(refused, PRODUCTS, 'PUT')) as Problem).errors.$![0]).toMatch(/refId is longer than 256 characters/);
    const longest = 'M'.repeat(MAX_ID_LENGTH);
    expect((await putProducts([{ refId: longest, title: 'x' }])).status).toBe(200);
    const deleted = await fetch(`${svc.url}/admin/v1/websites/site-b/products/${longest}`, { method: 'DELETE', headers: admin });
    expect(await deleted.json()).toMatchObject({ deleted: 1 });
    // A product with too many top-level fields is refused naming no field: it blamed "refId", its first key.
    const wide = await putProducts([{ refId: 'wide', ...Object.fromEntries(Array.from({ length: 2100 }, (_, i) => [`f${i}`, i])) }]);
    expect(wide.status).toBe(400);
    expect(((await expectDocumented(wide, PRODUCTS, 'PUT')) as Problem).errors.$).toEqual([
      'element 1: product "wide": the product has more than 2000 fields and array elements (2101 keys at its top level)',
    ]);
  });

  it('bulk-deletes by refIds and by scope, all or nothing; refuses {}, both keys, [] and an empty scope', async () => {
    expect((await putProducts([...feed(40), { refId: 'delete', title: 'a product named delete', brand: 'Odd', price: 1 }], '?mode=replace')).status).toBe(200);
    const byIds = await bulkDelete({ refIds: ['N0', 'N1', 'N1', 'gone'] });
    expect(byIds.status).toBe(200);
    expect(await expectDocumented(byIds, BULK_DELETE, 'POST')).toEqual({ deleted: 2, notFound: ['gone'] });
    const byScope = await bulkDelete({ scope: { brand: ['Even'], price: { max: 30 } } });
    expect(await expectDocumented(byScope, BULK_DELETE, 'POST')).toEqual({ deleted: 10, notFound: [] });
    expect((await svc.engine.stats('site-b')).products).toBe(29);
    for (const bad of [{}, { refIds: ['N5'], scope: { brand: ['Odd'] } }, { refIds: [] }, { scope: {} }, { refIds: Array(10_001).fill('x') }, { scope: { brand: { min: 1 } } }, { ids: ['N5'] }]) {
      const refused = await bulkDelete(bad);
      expect(refused.status, JSON.stringify(bad).slice(0, 60)).toBe(400);
      await expectDocumented(refused, BULK_DELETE, 'POST');
    }
    expect((await svc.engine.stats('site-b')).products).toBe(29);
    // {"not": []} excludes nothing: a scope of only such conditions emptied the catalog (200, deleted: 29).
    for (const scope of [{ brand: { not: [] } }, { brand: { not: [] }, price: { not: [] } }]) {
      const everything = await bulkDelete({ scope });
      expect(everything.status, JSON.stringify(scope)).toBe(400);
      const problem = (await expectDocumented(everything, BULK_DELETE, 'POST')) as Problem;
      expect(problem.errors).toEqual({ scope: ['catalog: scope must filter something: {"not": []} excludes nothing, so this scope would select every product'] });
    }
    expect((await svc.engine.stats('site-b')).products).toBe(29);
    // Beside a condition that filters, it is harmless.
    expect(await (await bulkDelete({ scope: { brand: { not: [] }, price: { min: 1000 } } })).json()).toEqual({ deleted: 0, notFound: [] });
    // Up to 10,000 refIds in one call, past the listener's default array limit (1,000): one change.
    expect((await putProducts(Array.from({ length: 6000 }, (_, i) => ({ refId: `B${i}`, title: 'bulk' })))).status).toBe(200);
    const many = await bulkDelete({ refIds: Array.from({ length: 10_000 }, (_, i) => `B${i}`) });
    expect(many.status).toBe(200);
    expect(((await many.json()) as { deleted: number; notFound: string[] })).toMatchObject({ deleted: 6000, notFound: { length: 4000 } });
    // The product whose refId is "delete" stays readable and deletable by URL.
    const named = await fetch(`${svc.url}/admin/v1/websites/site-b/products/delete`, { headers: admin });
    expect(await expectDocumented(named, BULK_DELETE, 'GET')).toMatchObject({ refId: 'delete' });
    const removed = await fetch(`${svc.url}/admin/v1/websites/site-b/products/delete`, { method: 'DELETE', headers: admin });
    expect(await expectDocumented(removed, BULK_DELETE, 'DELETE')).toEqual({ deleted: 1, catalogSize: 28 });
  });
});
