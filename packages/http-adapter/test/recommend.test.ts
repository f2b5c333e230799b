import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECOMMEND_METHODS } from '../src/schemas.js';
import { expectDocumented, ORIGIN_A, post, startService, type TestService } from './helpers.js';

let svc: TestService;
let popular: string[];
beforeAll(async () => {
  svc = await startService();
  popular = (await svc.engine.recommend('site-a', 'PopularItems', { count: 5 })).payload;
});
afterAll(() => svc.close());

const customerOf = async () => {
  // a customer with views: any generated view body's customer
  const { generateInteractions } = await import('@aisle/engine/demo');
  return generateInteractions({ products: svc.products, sessions: 150, seed: 7 }).views[0] as { customerId: string; events: { refId: string }[] };
};

describe('GET /1.0/ClientRecom/{website_id}/{Method}', () => {
  it('answers every one of the seventeen methods', async () => {
    const viewer = await customerOf();
    const productRef = viewer.events[0]!.refId;
    const query = new URLSearchParams({ customerId: viewer.customerId, productRef, 'items[0]': popular[0]!, 'items[1]': popular[1]!, filterOutOfStock: 'true' });
    const styled = svc.products.find((p) => typeof p.style_id === 'string');
    if (styled) query.set('productStyleId', String(styled.style_id));
    expect(RECOMMEND_METHODS).toHaveLength(17);
    let nonEmpty = 0;
    for (const method of RECOMMEND_METHODS) {
      const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/${method}?${query}`);
      expect(res.status, method).toBe(200);
      const json = (await expectDocumented(res, `/1.0/ClientRecom/{website_id}/${method}`, 'GET')) as { type: number; code: number; payload: string[]; slots: { refId: string }[] };
      expect(json).toMatchObject({ type: 1, code: 0 });
      expect(json.slots.map((s) => s.refId)).toEqual(json.payload);
      if (json.payload.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });

  it('count, repeated items= and items[n] forms are accepted', async () => {
    const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems?count=3`);
    expect(((await expectDocumented(res, '/1.0/ClientRecom/{website_id}/PopularItems', 'GET')) as { payload: string[] }).payload).toHaveLength(3);
    const repeated = await fetch(`${svc.url}/1.0/ClientRecom/site-a/BoughtTogetherCartContent?items=${popular[0]}&items=${popular[1]}&filterOutOfStock=0`);
    expect(repeated.status).toBe(200);
    await expectDocumented(repeated, '/1.0/ClientRecom/{website_id}/BoughtTogetherCartContent', 'GET');
  });

  it('400 naming a malformed parameter', async () => {
    const cases: [string, string][] = [
      ['count=abc', 'count'], ['count=0', 'count'], ['count=101', 'count'], ['filterOutOfStock=maybe', 'filterOutOfStock'],
      ['items[x]=a', 'items[x]'], ['customerId=a&customerId=b', 'customerId'],
    ];
    for (const [query, name] of cases) {
      const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/Cart?${query}`);
      expect(res.status, query).toBe(400);
      const json = (await expectDocumented(res, '/1.0/ClientRecom/{website_id}/Cart', 'GET')) as { type: number; code: number; message: string };
      expect(json.type).toBeLessThan(0);
      expect(json.code).toBe(400);
      expect(json.message).toContain(name);
    }
  });

  it('400 for a customerId the result list cannot keep (a NUL, over 256 characters), as search refuses its customer_id', async () => {
    // The id is kept with the answered list: a NUL was answered 200, then PostgreSQL refused the write of
    // the whole batch of lists, again at every flush, so no list of that replica reached the store.
    for (const [customerId, problem] of [['a\u0000b', 'must not contain NUL characters or unpaired surrogates'], ['c'.repeat(257), 'must be at most 256 characters long']] as const) {
      const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems?${new URLSearchParams({ customerId })}`);
      expect(res.status).toBe(400);
      const json = (await expectDocumented(res, '/1.0/ClientRecom/{website_id}/PopularItems', 'GET')) as { message: string };
      expect(json.message).toBe(`customerId ${problem}`);
    }
    expect((await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems?customerId=${'c'.repeat(256)}`)).status).toBe(200);
  });

  it('400 naming a missing required parameter; method segments match case-insensitively', async () => {
    const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/Personalized`);
    expect(res.status).toBe(400);
    expect(((await expectDocumented(res, '/1.0/ClientRecom/{website_id}/Personalized', 'GET')) as { message: string }).message).toContain('customerId');
    const lower = await fetch(`${svc.url}/1.0/ClientRecom/site-a/popularitems?count=2`);
    expect(lower.status).toBe(200);
    expect(((await lower.json()) as { payload: string[] }).payload).toHaveLength(2);
  });

  it('Cart and ProductDetail answer a customer with an empty cart; single-tactic methods answer only what their tactic finds', async () => {
    const viewer = await customerOf();
    for (const method of ['Cart', 'ProductDetail']) {
      const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/${method}?customerId=${encodeURIComponent(viewer.customerId)}&count=5`);
      expect(res.status, method).toBe(200);
      const json = (await expectDocumented(res, `/1.0/ClientRecom/{website_id}/${method}`, 'GET')) as { payload: string[]; slots: { tacticLabel: string }[] };
      expect(json.payload.length, method).toBeGreaterThan(0);
      expect(json.slots.map((x) => x.tacticLabel)).not.toContain('Viewed With');
    }
    const none = await fetch(`${svc.url}/1.0/ClientRecom/site-a/Cart`);
    expect(none.status).toBe(400);
    expect(((await none.json()) as { message: string }).message).toContain('items');
    // An unknown product: BoughtTogether (one tactic) lists nothing, ProductDetail (a hybrid) falls through to Popular Items.
    const bought = await fetch(`${svc.url}/1.0/ClientRecom/site-a/BoughtTogether?productRef=no-such-product`);
    expect(await bought.json()).toMatchObject({ type: 1, code: 0, payload: [] });
    const detail = (await (await fetch(`${svc.url}/1.0/ClientRecom/site-a/ProductDetail?productRef=no-such-product`)).json()) as { slots: { tacticLabel: string }[] };
    expect(detail.slots[0]!.tacticLabel).toBe('Popular Items');
  });

  it('404 for an unknown website or method, 405 for POST', async () => {
    const site = await fetch(`${svc.url}/1.0/ClientRecom/nowhere/PopularItems`);
    expect(site.status).toBe(404);
    expect(await expectDocumented(site, '/1.0/ClientRecom/{website_id}/PopularItems', 'GET')).toMatchObject({ type: -1, code: 404 });
    const method = await fetch(`${svc.url}/1.0/ClientRecom/site-a/Nope`);
    expect(method.status).toBe(404);
    expect(await method.json()).toMatchObject({ type: -1, code: 404, message: expect.stringContaining('Nope') });
    const wrong = await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await expectDocumented(wrong, '/1.0/ClientRecom/{website_id}/PopularItems', 'GET');
  });

  it('CORS per website: allowed origin echoed, others not, preflight answered', async () => {
    const allowed = await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems`, { headers: { origin: ORIGIN_A } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
    expect(allowed.headers.get('vary')).toBe('Origin');
    await allowed.text();
    const other = await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    await other.text();
    const siteB = await fetch(`${svc.url}/1.0/ClientRecom/site-b/PopularItems`, { headers: { origin: ORIGIN_A } });
    expect(siteB.headers.get('access-control-allow-origin')).toBeNull();
    await siteB.text();
    const preflight = await fetch(`${svc.url}/1.0/ClientRecom/site-a/bundle`, {
      method: 'OPTIONS', headers: { origin: ORIGIN_A, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Content-Type');
  });
});

describe('POST /1.0/ClientRecom/{website_id}/bundle', () => {
  const path = '/1.0/ClientRecom/{website_id}/bundle';
  it('returns bundles as a 2-dimensional array', async () => {
    const res = await post(`${svc.url}/1.0/ClientRecom/site-a/bundle`, { product_ref_ids: [popular[0]], setCount: 2, count: 3 });
    expect(res.status).toBe(200);
    const json = (await expectDocumented(res, path, 'POST')) as { type: number; payload: string[][] };
    expect(json.type).toBe(1);
    expect(Array.isArray(json.payload)).toBe(true);
    for (const b of json.payload) expect(b[0]).toBe(popular[0]);
  });

  it('matches the bundle segment case-insensitively, as the method segments', async () => {
    for (const segment of ['Bundle', 'BUNDLE']) {
      const res = await post(`${svc.url}/1.0/ClientRecom/site-a/${segment}`, { product_ref_ids: [popular[0]], count: 3 });
      expect(res.status, segment).toBe(200);
      const json = (await expectDocumented(res, path, 'POST')) as { type: number; payload: string[][] };
      expect(json.type).toBe(1);
      for (const b of json.payload) expect(b[0]).toBe(popular[0]);
      const get = await fetch(`${svc.url}/1.0/ClientRecom/site-a/${segment}`);
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('400 for a bad body, 405 for GET, 415 for another Content-Type, 404 for an unknown website', async () => {
    const bad = await post(`${svc.url}/1.0/ClientRecom/site-a/bundle`, { product_ref_ids: [popular[0]], setCount: 'two' });
    expect(bad.status).toBe(400);
    expect(((await expectDocumented(bad, path, 'POST')) as { message: string }).message).toContain('setCount');
    const get = await fetch(`${svc.url}/1.0/ClientRecom/site-a/bundle`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    await expectDocumented(get, path, 'POST');
    const text = await fetch(`${svc.url}/1.0/ClientRecom/site-a/bundle`, { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    await expectDocumented(text, path, 'POST');
    const unknown = await post(`${svc.url}/1.0/ClientRecom/nowhere/bundle`, { product_ref_ids: ['x'] });
    expect(unknown.status).toBe(404);
    await expectDocumented(unknown, path, 'POST');
  });
});
