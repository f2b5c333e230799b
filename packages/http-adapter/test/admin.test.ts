import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListener } from '../src/listener.js';
import { ADMIN_TOKEN, bearer, expectDocumented, startService, TOKEN_A, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const products = '/admin/v1/websites/{websiteId}/products';
type Problem = { status: number; errors: Record<string, string[]> };

function put(url: string, body: string, type: string, headers: Record<string, string> = bearer(ADMIN_TOKEN)): Promise<Response> {
  return fetch(url, { method: 'PUT', headers: { 'content-type': type, ...headers }, body });
}

describe('admin API', () => {
  it('PUT products: JSON array upsert', async () => {
    const res = await put(`${svc.url}/admin/v1/websites/site-b/products`, JSON.stringify([{ refId: 'NEW-1', title: 'Alpine tent', price: 120 }, { refId: 'NEW-2', title: 'Alpine stove', price: '35.50' }]), 'application/json');
    expect(res.status).toBe(200);
    const summary = (await expectDocumented(res, products, 'PUT')) as { loaded: number; skipped: unknown[]; catalogSize: number };
    expect(summary).toMatchObject({ loaded: 2, skipped: [] });
    expect(summary.catalogSize).toBe(52);
  });

  it('PUT products: NDJSON with a bad line, skipped with its line number; rejected by default', async () => {
    const ndjson = '{"refId":"ND-1","title":"one"}\nnot json\n{"refId":"ND-2","title":"two"}\n';
    const skip = await put(`${svc.url}/admin/v1/websites/site-b/products?onError=skip`, ndjson, 'application/x-ndjson');
    expect(skip.status).toBe(200);
    const summary = (await expectDocumented(skip, products, 'PUT')) as { loaded: number; skipped: { line: number }[] };
    expect(summary.loaded).toBe(2);
    expect(summary.skipped.map((s) => s.line)).toEqual([2]);
    const reject = await put(`${svc.url}/admin/v1/websites/site-b/products`, ndjson, 'application/x-ndjson');
    expect(reject.status).toBe(400);
    expect(reject.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await expectDocumented(reject, products, 'PUT');
  });

  it('PUT and PATCH products refuse reserved fields whose values the engine would misread (availability a text, image_vector not numbers)', async () => {
    const url = `${svc.url}/admin/v1/websites/site-b/products`;
    const size = async () => ((await (await fetch(`${svc.url}/admin/v1/websites/site-b/stats`, { headers: bearer(ADMIN_TOKEN) })).json()) as { products: number }).products;
    const before = await size();
    expect(before).toBeGreaterThan(0);
    // "out of stock" is no number: it read as "not 0", so in stock, and filterOutOfStock kept the product.
    const text = await put(url, JSON.stringify([{ refId: 'AV-1', title: 'Sold out lamp', availability: 'out of stock' }]), 'application/json');
    expect(text.status).toBe(400);
    const problem = (await expectDocumented(text, products, 'PUT')) as Problem;
    expect(JSON.stringify(problem)).toContain('field \\"availability\\" must be an integer');
    for (const availability of [2.5, true, ['0'], {}]) {
      expect((await put(url, JSON.stringify([{ refId: 'AV-2', availability }]), 'application/json')).status).toBe(400);
    }
    for (const image_vector of [['0.1', 0.2], [], 'v', [0.1, null]]) {
      const res = await put(url, JSON.stringify([{ refId: 'IV-1', image_vector }]), 'application/json');
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('field \\"image_vector\\" must be a non-empty list of finite numbers');
    }
    expect(await size()).toBe(before);
    // Skipped with onError=skip, the good ones loaded; an integer, its numeric string and null are values.
    const skip = await put(`${url}?onError=skip`, JSON.stringify([
      { refId: 'AV-3', availability: 'in stock' }, { refId: 'AV-4', availability: '0' }, { refId: 'AV-5', availability: -1 }, { refId: 'AV-6', availability: null },
    ]), 'application/json');
    expect(skip.status).toBe(200);
    expect(await skip.json()).toMatchObject({ loaded: 3, skippedCount: 1, skipped: [{ line: 1 }] });
    // A patch is checked the same way.
    const patch = await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: JSON.stringify([{ refId: 'AV-5', availability: 'none left' }]) });
    expect(patch.status).toBe(400);
    expect(((await (await fetch(`${url}/AV-5`, { headers: bearer(ADMIN_TOKEN) })).json()) as { availability: number }).availability).toBe(-1);
  });

  it('PUT and PATCH products refuse an image_vector of another dimension than the catalog\'s vectors (it was stored and left out of visual similarity without a word)', async () => {
    const url = `${svc.url}/admin/v1/websites/site-b/products`;
    const vectors = svc.products.slice(0, 50).filter((p) => Array.isArray(p.image_vector));
    expect(vectors.length).toBeGreaterThan(1);
    const dimension = (vectors[0]!.image_vector as number[]).length;
    const short = Array.from({ length: dimension - 1 }, (_, i) => i / dimension);
    const res = await put(url, JSON.stringify([{ refId: 'DIM-1', title: 'Lamp', image_vector: short }]), 'application/json');
    expect(res.status).toBe(400);
    const problem = (await expectDocumented(res, products, 'PUT')) as Problem;
    expect(problem.errors.$![0]).toBe(`catalog: product 1: product "DIM-1": field "image_vector" has ${dimension - 1} numbers, but the catalog's image vectors have ${dimension}`);
    expect((await fetch(`${url}/DIM-1`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(404);
    // With onError=skip the record is skipped and reported; the one of the right dimension loads.
    const skip = await put(`${url}?onError=skip`, JSON.stringify([
      { refId: 'DIM-2', image_vector: short }, { refId: 'DIM-3', image_vector: vectors[0]!.image_vector },
    ]), 'application/json');
    expect(skip.status).toBe(200);
    expect(await skip.json()).toMatchObject({ loaded: 1, skippedCount: 1, skipped: [{ line: 1, message: expect.stringContaining('"DIM-2": field "image_vector" has') }] });
    // A patch is checked the same way; the stored vector stays.
    const patch = await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: JSON.stringify([{ refId: 'DIM-3', image_vector: [...short, 0, 0] }]) });
    expect(patch.status).toBe(400);
    expect(((await (await fetch(`${url}/DIM-3`, { headers: bearer(ADMIN_TOKEN) })).json()) as { image_vector: number[] }).image_vector).toEqual(vectors[0]!.image_vector);
    // In a request that sets the dimension (a replace, or a catalog without vectors), its first vector does.
    const replace = await put(`${url}?mode=replace&onError=skip`, JSON.stringify([
      { refId: 'R-1', image_vector: [1, 0] }, { refId: 'R-2', image_vector: [0, 1, 0] }, { refId: 'R-3', image_vector: [0.5, 0.5] },
    ]), 'application/json');
    expect(await replace.json()).toMatchObject({ loaded: 2, skippedCount: 1, skipped: [{ line: 2, message: expect.stringContaining('has 3 numbers, but the catalog\'s image vectors have 2') }] });
  });

  it('PUT products refuses a refId that events and URLs cannot name (a NUL or an unpaired surrogate)', async () => {
    const url = `${svc.url}/admin/v1/websites/site-b/products`;
    // Loaded, such a product could never be purchased, viewed or clicked (the events refuse the refId) nor
    // read or deleted by URL (no UTF-8 percent-encoding spells an unpaired surrogate).
    for (const refId of ['NUL\u0000', 'SUR\ud800', '\udc00']) {
      const res = await put(url, JSON.stringify([{ refId, title: 'x' }]), 'application/json');
      expect(res.status).toBe(400);
      expect(((await expectDocumented(res, products, 'PUT')) as Problem).errors.$![0]).toBe("element 1: refId must not contain NUL characters or unpaired surrogates (events and URLs could not name the product)");
    }
    const skip = await put(`${url}?onError=skip`, JSON.stringify([{ refId: 'SUR\ud800' }, { refId: 'OK-\ud83c\udf73', title: 'pan' }]), 'application/json');
    expect(await skip.json()).toMatchObject({ loaded: 1, skippedCount: 1, skipped: [{ line: 1 }] });
    expect((await fetch(`${url}/${encodeURIComponent('OK-\ud83c\udf73')}`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
  });

  it('PUT products ?mode=replace with no product to load changes nothing (it emptied the catalog)', async () => {
    const url = `${svc.url}/admin/v1/websites/site-b/products?mode=replace`;
    const size = async () => ((await (await fetch(`${svc.url}/admin/v1/websites/site-b/stats`, { headers: bearer(ADMIN_TOKEN) })).json()) as { products: number }).products;
    const before = await size();
    expect(before).toBeGreaterThan(0);
    // An export whose key is misspelt: every record is bad, and onError=skip skipped them all.
    const allBad = await put(`${url}&onError=skip`, JSON.stringify([{ refid: 'X1', title: 'x' }, { refid: 'X2', title: 'y' }]), 'application/json');
    expect(allBad.status).toBe(400);
    const problem = (await expectDocumented(allBad, products, 'PUT')) as Problem;
    expect(problem.errors.$![0]).toBe('catalog: a replace must hold at least one product, and all 2 records of this one were bad (missing or non-string refId): nothing was changed (a replace with no product would empty the catalog; to delete products, delete them)');
    // An export that came out empty, as a JSON array or as NDJSON of one empty array's worth of lines.
    for (const [body, type] of [['[]', 'application/json'], ['[ ]', 'application/json']] as const) {
      const empty = await put(url, body, type);
      expect(empty.status).toBe(400);
      expect(((await empty.json()) as Problem).errors.$![0]).toBe('catalog: a replace must hold at least one product, and this one held none: nothing was changed (a replace with no product would empty the catalog; to delete products, delete them)');
    }
    expect(await size()).toBe(before);
  });

  it('PUT products takes a gzipped feed (Content-Encoding: gzip), a JSON array as NDJSON', async () => {
    // A gzipped JSON array was refused as "not a JSON array" (its first byte is gzip's), while gzipped NDJSON loaded.
    const url = `${svc.url}/admin/v1/websites/site-b/products`;
    const array = await fetch(url, {
      method: 'PUT', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...bearer(ADMIN_TOKEN) },
      body: gzipSync(JSON.stringify([{ refId: 'GZ-1', title: 'zipped' }])),
    });
    expect(array.status).toBe(200);
    expect(await array.json()).toMatchObject({ loaded: 1 });
    const ndjson = await fetch(url, {
      method: 'PUT', headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', ...bearer(ADMIN_TOKEN) },
      body: gzipSync('{"refId":"GZ-2"}\n{"refId":"GZ-3"}\n'),
    });
    expect(await ndjson.json()).toMatchObject({ loaded: 2 });
    expect((await fetch(`${url}/GZ-1`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
  });

  it('PUT products ?mode=replace swaps the whole catalog', async () => {
    const res = await put(`${svc.url}/admin/v1/websites/site-b/products?mode=replace`, JSON.stringify([{ refId: 'ONLY-1', title: 'only' }]), 'application/json');
    expect(res.status).toBe(200);
    expect(await expectDocumented(res, products, 'PUT')).toMatchObject({ loaded: 1, catalogSize: 1 });
    const empty = await put(`${svc.url}/admin/v1/websites/site-b/products?mode=replace`, ' \n', 'application/x-ndjson');
    expect(empty.status).toBe(400);
    await expectDocumented(empty, products, 'PUT');
    const notArray = await put(`${svc.url}/admin/v1/websites/site-b/products?mode=replace`, '{"refId":"X"}', 'application/json');
    expect(notArray.status).toBe(400);
    await expectDocumented(notArray, products, 'PUT');
    expect((await svc.engine.stats('site-b')).products).toBe(1);
    const bad = await put(`${svc.url}/admin/v1/websites/site-b/products?mode=merge`, '[]', 'application/json');
    expect(bad.status).toBe(400);
    expect(((await expectDocumented(bad, products, 'PUT')) as Problem).errors).toHaveProperty('mode');
  });

  it('DELETE a product (idempotent)', async () => {
    const path = '/admin/v1/websites/{websiteId}/products/{refId}';
    const res = await fetch(`${svc.url}/admin/v1/websites/site-a/products/KNOWN-2`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) });
    expect(res.status).toBe(200);
    expect(await expectDocumented(res, path, 'DELETE')).toMatchObject({ deleted: 1 });
    const again = await fetch(`${svc.url}/admin/v1/websites/site-a/products/KNOWN-2`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) });
    expect(await expectDocumented(again, path, 'DELETE')).toMatchObject({ deleted: 0 });
  });

  it('PATCH products merges partial products (RFC 7396); GET returns the stored product; unknown refIds per onError', async () => {
    const one = '/admin/v1/websites/{websiteId}/products/{refId}';
    const patch = (body: string, type = 'application/json', query = '') => fetch(`${svc.url}/admin/v1/websites/site-a/products${query}`, {
      method: 'PATCH', headers: { 'content-type': type, ...bearer(ADMIN_TOKEN) }, body,
    });
    const get = (refId: string) => fetch(`${svc.url}/admin/v1/websites/site-a/products/${encodeURIComponent(refId)}`, { headers: bearer(ADMIN_TOKEN) });
    const before = await get('KNOWN-1');
    expect(before.status).toBe(200);
    const original = await expectDocumented(before, one, 'GET') as Record<string, unknown>;
    expect(original).toMatchObject({ refId: 'KNOWN-1', title: 'Zanzibar espresso machine', price: 199.5 });

    const res = await patch(JSON.stringify([{ refId: 'KNOWN-1', price: 149, search_category: null, tags: { colour: 'schwarz ☕' } }]));
    expect(res.status).toBe(200);
    expect(await expectDocumented(res, products, 'PATCH')).toMatchObject({ loaded: 1, skipped: [] });
    const { search_category: _dropped, ...kept } = original;
    expect(await (await get('KNOWN-1')).json()).toEqual({ ...kept, price: 149, tags: { colour: 'schwarz ☕' } });
    // The patched value is what search filters on.
    const found = await fetch(`${svc.url}/v1.4/search`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(TOKEN_A) },
      body: JSON.stringify({ website_id: 'site-a', client: 'client-a', q: 'espresso', start: 0, scope: { price: { min: 100, max: 150 } } }),
    });
    expect(((await found.json()) as { payload: { result: { refId: string }[] } }).payload.result.map((p) => p.refId)).toEqual(['KNOWN-1']);

    // An unknown refId: the whole request is refused by default (nothing changed), skipped with onError=skip.
    const ndjson = '{"refId":"KNOWN-1","price":1}\n\n{"refId":"NO-SUCH","price":2}\n';
    const refused = await patch(ndjson, 'application/x-ndjson');
    expect(refused.status).toBe(400);
    const problem = (await expectDocumented(refused, products, 'PATCH')) as Problem;
    expect(JSON.stringify(problem)).toContain('NO-SUCH');
    expect(((await (await get('KNOWN-1')).json()) as { price: number }).price).toBe(149);
    const skipped = await patch(ndjson, 'application/x-ndjson', '?onError=skip');
    expect(skipped.status).toBe(200);
    expect(await expectDocumented(skipped, products, 'PATCH')).toMatchObject({ loaded: 1, skipped: [{ line: 3 }] });
    expect(((await (await get('KNOWN-1')).json()) as { price: number }).price).toBe(1);

    // Bad bodies and parameters.
    expect((await patch('{"refId":"KNOWN-1"}')).status).toBe(400);
    expect((await patch('[]', 'application/json', '?mode=replace')).status).toBe(400);
    expect((await patch('[{"price":3}]')).status).toBe(400);
    expect((await patch('[]')).status).toBe(200);
    const missing = await get('NO-SUCH');
    expect(missing.status).toBe(404);
    await expectDocumented(missing, one, 'GET');
    expect((await fetch(`${svc.url}/admin/v1/websites/site-a/products/KNOWN-1`)).status).toBe(401);
    expect((await fetch(`${svc.url}/admin/v1/websites/nope/products/KNOWN-1`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(404);
  });

  it('stats and the attribution report', async () => {
    const stats = await fetch(`${svc.url}/admin/v1/websites/site-a/stats`, { headers: bearer(ADMIN_TOKEN) });
    expect(stats.status).toBe(200);
    const s = (await expectDocumented(stats, '/admin/v1/websites/{websiteId}/stats', 'GET')) as { websiteId: string; products: number; views: number };
    expect(s.websiteId).toBe('site-a');
    expect(s.views).toBeGreaterThan(0);
    const report = await fetch(`${svc.url}/admin/v1/websites/site-a/reports/attribution?from=2000-01-01T00:00:00Z`, { headers: bearer(ADMIN_TOKEN) });
    expect(report.status).toBe(200);
    expect(await expectDocumented(report, '/admin/v1/websites/{websiteId}/reports/attribution', 'GET')).toMatchObject({ websiteId: 'site-a' });
    const badDate = await fetch(`${svc.url}/admin/v1/websites/site-a/reports/attribution?from=yesterday`, { headers: bearer(ADMIN_TOKEN) });
    expect(badDate.status).toBe(400);
    expect(((await expectDocumented(badDate, '/admin/v1/websites/{websiteId}/reports/attribution', 'GET')) as Problem).errors).toHaveProperty('from');
    // A misspelt window (`form`) answered the report of all time; the report names the parameter it does not know.
    const misspelt = await fetch(`${svc.url}/admin/v1/websites/site-a/reports/attribution?form=2000-01-01T00:00:00Z`, { headers: bearer(ADMIN_TOKEN) });
    expect(misspelt.status).toBe(400);
    expect(((await expectDocumented(misspelt, '/admin/v1/websites/{websiteId}/reports/attribution', 'GET')) as Problem).errors).toEqual({
      form: ['query parameter form is not taken here (it takes from, to)'],
    });
  });

  it('401 without an admin token (a website token is not one), 404 unknown website, 415, 405', async () => {
    const adminCalls: [string, string, string][] = [
      ['PUT', '/admin/v1/websites/site-a/products', '/admin/v1/websites/{websiteId}/products'],
      ['DELETE', '/admin/v1/websites/site-a/products/KNOWN-1', '/admin/v1/websites/{websiteId}/products/{refId}'],
      ['POST', '/admin/v1/websites/site-a/coupons', '/admin/v1/websites/{websiteId}/coupons'],
      ['GET', '/admin/v1/websites/site-a/stats', '/admin/v1/websites/{websiteId}/stats'],
      ['GET', '/admin/v1/websites/site-a/reports/attribution', '/admin/v1/websites/{websiteId}/reports/attribution'],
    ];
    for (const [method, url, template] of adminCalls) {
      for (const headers of [{}, bearer(TOKEN_A), bearer('nope')]) {
        const body = method === 'PUT' ? '[]' : method === 'POST' ? '{"coupons":[]}' : undefined;
        const res = await fetch(`${svc.url}${url}`, { method, headers: { 'content-type': 'application/json', ...headers }, body });
        expect(res.status, `${method} ${url}`).toBe(401);
        expect(((await expectDocumented(res, template, method)) as Problem).errors).toHaveProperty('Authorization');
      }
    }
    expect(svc.engine.website('site-a')).toBeDefined();
    expect((await svc.engine.stats('site-a')).products).toBeGreaterThan(0);
    const unknown = await fetch(`${svc.url}/admin/v1/websites/nowhere/stats`, { headers: bearer(ADMIN_TOKEN) });
    expect(unknown.status).toBe(404);
    await expectDocumented(unknown, '/admin/v1/websites/{websiteId}/stats', 'GET');
    const type = await put(`${svc.url}/admin/v1/websites/site-a/products`, 'x', 'text/csv');
    expect(type.status).toBe(415);
    await expectDocumented(type, products, 'PUT');
    const method = await fetch(`${svc.url}/admin/v1/websites/site-a/products`, { method: 'POST', headers: bearer(ADMIN_TOKEN) });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('PUT, PATCH, OPTIONS');
    await expectDocumented(method, products, 'PUT');
    const coupons = await fetch(`${svc.url}/admin/v1/websites/site-a/coupons`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: '{"coupons":[{"code":""}]}' });
    expect(coupons.status).toBe(400);
    expect(((await expectDocumented(coupons, '/admin/v1/websites/{websiteId}/coupons', 'POST')) as Problem).errors).toHaveProperty(['coupons[0].Code']);
    // Text a store cannot hold (a NUL, an unpaired surrogate) is a 400 naming it, as in purchases: it was
    // 201 here and on SQLite, and a 503 "the event store failed" on PostgreSQL, which refuses a NUL.
    for (const [body, key] of [['{"coupons":[{"code":"A\\u0000B"}]}', 'coupons[0].Code'], ['{"coupons":[{"code":"A","customerId":"c\\ud800"}]}', 'coupons[0].CustomerId']]) {
      const refused = await fetch(`${svc.url}/admin/v1/websites/site-a/coupons`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body });
      expect(refused.status, body).toBe(400);
      const problem = (await expectDocumented(refused, '/admin/v1/websites/{websiteId}/coupons', 'POST')) as Problem;
      expect(problem.errors[key], JSON.stringify(problem.errors)).toEqual([expect.stringMatching(/must not contain NUL characters or unpaired surrogates$/)]);
    }
    // One code twice with two discounts answered 201 {"issued": 1}, one of the two kept; the same one twice is one code.
    const issue = (coupons: unknown[]) => fetch(`${svc.url}/admin/v1/websites/site-a/coupons`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: JSON.stringify({ coupons }),
    });
    const twice = await issue([{ code: 'QA-TWICE', discount: 1 }, { code: 'QA-TWICE', discount: '2.00' }]);
    expect(twice.status).toBe(400);
    expect(((await expectDocumented(twice, '/admin/v1/websites/{websiteId}/coupons', 'POST')) as Problem).errors).toEqual({
      'coupons[1].Code': ['coupons[1].code "QA-TWICE" is also coupons[0], with another customerId or discount: send each code once.'],
    });
    const same = await issue([{ code: 'QA-TWICE', discount: 1 }, { code: 'QA-TWICE', discount: '1.00' }]);
    expect(same.status).toBe(201);
    expect(await same.json()).toEqual({ issued: 1 });
  });

  it('POST coupons: a known code issued again with another discount or customer is a 409 naming it, and nothing of the request is issued', async () => {
    const issue = (coupons: unknown[]) => fetch(`${svc.url}/admin/v1/websites/site-a/coupons`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: JSON.stringify({ coupons }),
    });
    const issued = async () => ((await (await fetch(`${svc.url}/admin/v1/websites/site-a/stats`, { headers: bearer(ADMIN_TOKEN) })).json()) as { coupons: { issued: number } }).coupons.issued;
    expect((await issue([{ code: 'QA-AGAIN', discount: 5 }])).status).toBe(201);
    const before = await issued();
    // It answered 201 {"issued": 0} and kept discount 5: the new discount was dropped without a word.
    const other = await issue([{ code: 'QA-FRESH', discount: 2 }, { code: 'QA-AGAIN', discount: '7.50' }]);
    expect(other.status).toBe(409);
    expect(((await expectDocumented(other, '/admin/v1/websites/{websiteId}/coupons', 'POST')) as Problem).errors).toEqual({
      'coupons[1].Code': ['The code "QA-AGAIN" was already issued with discount 5; an issue sent again must repeat it (or leave the field out). Nothing of this request was issued.'],
    });
    const customer = await issue([{ code: 'QA-AGAIN', customerId: 'someone' }]);
    expect(customer.status).toBe(409);
    expect(JSON.stringify(await customer.json())).toContain('already issued with no customerId');
    expect(await issued()).toBe(before);
    // The same content, or the code alone, is a replay: 201, nothing new.
    for (const again of [[{ code: 'QA-AGAIN', discount: '5.00' }], [{ code: 'QA-AGAIN' }]]) {
      const replay = await issue(again);
      expect(replay.status).toBe(201);
      expect(await replay.json()).toEqual({ issued: 0 });
    }
    expect(await issued()).toBe(before);
    // A code bound to a customer, issued again for another one.
    expect((await issue([{ code: 'QA-BOUND', customerId: 'one' }])).status).toBe(201);
    expect(JSON.stringify(await (await issue([{ code: 'QA-BOUND', customerId: 'other' }])).json())).toContain('already issued with another customerId');
  });

  it('streams uploads: past the upload limit 413 and nothing changed; a rejected feed leaves the server usable', async () => {
    const listener = createListener(svc.engine, { adminTokens: [ADMIN_TOKEN], logger: false, limits: { adminMaxBytes: 2048 } });
    const server = http.createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const before = (await svc.engine.stats('site-a')).products;
      const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify({ refId: `BIG-${i}`, title: 'big feed line' })).join('\n');
      const declared = await put(`${base}/admin/v1/websites/site-a/products?mode=replace`, lines, 'application/x-ndjson');
      expect(declared.status).toBe(413);
      expect(((await expectDocumented(declared, products, 'PUT')) as Problem).status).toBe(413);
      const chunked = await fetch(`${base}/admin/v1/websites/site-a/products?mode=replace`, {
        method: 'PUT', headers: { 'content-type': 'application/x-ndjson', ...bearer(ADMIN_TOKEN) }, duplex: 'half',
        body: new ReadableStream({ start(controller) { for (const line of lines.split('\n')) controller.enqueue(new TextEncoder().encode(`${line}\n`)); controller.close(); } }),
      } as RequestInit);
      expect(chunked.status).toBe(413);
      await expectDocumented(chunked, products, 'PUT');
      expect((await svc.engine.stats('site-a')).products).toBe(before);
      const rejected = await put(`${base}/admin/v1/websites/site-a/products?mode=replace`, '{"refId":"R-1"}\n{"title":"no refId"}\n', 'application/x-ndjson');
      expect(rejected.status).toBe(400);
      expect(((await expectDocumented(rejected, products, 'PUT')) as Problem).errors.$![0]).toMatch(/line 2/);
      expect((await svc.engine.stats('site-a')).products).toBe(before);
      const after = await fetch(`${base}/healthz`);
      expect(after.status).toBe(200);
      await after.text();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
