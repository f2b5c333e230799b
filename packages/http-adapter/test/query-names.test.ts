/**
 * Query parameter names over a real socket: a declared name is matched in any case (as the method
 * segments are), and a name the operation does not take is refused with 400 naming it, not ignored; a
 * name starting with `_` (a cache buster) is the caller's own and passes (decision 0092).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, expectDocumented, post, startService, TOKEN_A, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.close();
});

const RECOMMEND = '/1.0/ClientRecom/{website_id}/PopularItems';
const popular = (query: string) => fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems?${query}`);

describe('recommendation query parameter names', () => {
  it('reads a declared name in any case, as the method segment is', async () => {
    for (const query of ['count=2', 'Count=2', 'COUNT=2']) {
      const res = await popular(query);
      const body = await expectDocumented(res, RECOMMEND, 'GET') as { payload: string[] };
      expect(res.status, query).toBe(200);
      expect(body.payload, query).toHaveLength(2);
    }
    // An array's name too, in each of its forms.
    const refs = svc.products.slice(0, 2).map((p) => p.refId);
    const cart = await fetch(`${svc.url}/1.0/ClientRecom/site-a/Cart?Items%5B0%5D=${refs[0]}&ITEMS[1]=${refs[1]}&FilterOutOfStock=TRUE&Count=3`);
    const answer = await cart.json() as { payload: string[] };
    expect(cart.status).toBe(200);
    expect(answer.payload).toHaveLength(3);
    expect(answer.payload).not.toContain(refs[0]);
    expect(answer.payload).not.toContain(refs[1]);
  });

  it('reads a query string after a doubled "?" the same with or without anything to decode', async () => {
    // `…?` + a query string that already starts with "?": URLSearchParams skips one leading "?", and so
    // must the split of a query without escapes, or the request is refused only when nothing is escaped.
    for (const query of ['?count=2', '?count=2&_t=a+b', '?count=2&_t=%41']) {
      const res = await popular(query);
      expect(res.status, query).toBe(200);
      expect((await res.json() as { payload: string[] }).payload, query).toHaveLength(2);
    }
  });

  it('refuses one parameter given in two spellings as given twice', async () => {
    const res = await popular('count=2&Count=3');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ type: -1, code: 400, message: 'query parameter count is given more than once' });
  });

  it('refuses an unknown name, naming it and what the operation takes', async () => {
    for (const name of ['cnt', 'filter_out_of_stock', 'product_ref']) {
      const res = await popular(`${name}=1`);
      const body = await expectDocumented(res, RECOMMEND, 'GET');
      expect(res.status, name).toBe(400);
      expect(body, name).toEqual({
        type: -1, code: 400,
        message: `query parameter ${name} is not taken here (it takes customerId, productRef, productStyleId, items, filterOutOfStock, count)`,
      });
    }
  });

  it('lets a name starting with _ through (cache busters are the caller\'s own)', async () => {
    const res = await popular('_=1764489600000&count=1');
    expect(res.status).toBe(200);
    expect((await res.json() as { payload: string[] }).payload).toHaveLength(1);
  });
});

describe('other operations', () => {
  it('the coupon call reads Code and Client in any case', async () => {
    const res = await fetch(`${svc.url}/b2b/coupon/mark_as_used?Code=NO-SUCH-CODE&CLIENT=site-a`);
    // The parameters were read: the code is unknown (404), not missing (400).
    expect(res.status).toBe(404);
  });

  it('a search takes no query parameters: one sent is refused, not silently dropped', async () => {
    const body = { website_id: 'site-a', client: 'client-a', q: '', start: 0 };
    const res = await post(`${svc.url}/v1.4/search?size=5`, body, bearer(TOKEN_A));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ type: -1, code: 400, message: 'query parameter size is not taken here (it takes no query parameters)' });
    const busted = await post(`${svc.url}/v1.4/search?_=1`, body, bearer(TOKEN_A));
    expect(busted.status).toBe(200);
  });

  it('probes, the OpenAPI document and an unknown method ignore the query (cache busters, probe parameters)', async () => {
    expect((await fetch(`${svc.url}/healthz?probe=1`)).status).toBe(200);
    expect((await fetch(`${svc.url}/openapi.json?v=2`)).status).toBe(200);
    // An unknown method is a 404 whatever it is sent, not a 400 about its query.
    const res = await fetch(`${svc.url}/1.0/ClientRecom/site-a/NoSuchMethod?x=1`);
    expect(res.status).toBe(404);
  });

  it('an admin operation keys the problem details by the name sent', async () => {
    const res = await fetch(`${svc.url}/admin/v1/websites/site-a/reports/searches?Limit=3&form=2026-01-01T00:00:00Z`, { headers: bearer(ADMIN_TOKEN) });
    expect(res.status).toBe(400);
    const problem = await res.json() as { errors: Record<string, string[]> };
    expect(problem.errors).toEqual({ form: ['query parameter form is not taken here (it takes from, to, limit)'] });
    const ok = await fetch(`${svc.url}/admin/v1/websites/site-a/reports/searches?Limit=3&FROM=2026-01-01T00:00:00Z`, { headers: bearer(ADMIN_TOKEN) });
    expect(ok.status).toBe(200);
  });
});

describe('search body fields', () => {
  const body = { website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 1 };
  it('refuses a top-level field the search does not read, naming it (an Algolia-style filters, a mistyped Size)', async () => {
    for (const [field, value] of [['filters', 'brand:Zanzibar'], ['Size', 5], ['facetFilters', ['brand:Zanzibar']]] as const) {
      const res = await post(`${svc.url}/v1.4/search`, { ...body, [field]: value }, bearer(TOKEN_A));
      const answer = await expectDocumented(res, '/v1.4/search', 'POST') as { message: string };
      expect(res.status, field).toBe(400);
      expect(answer.message, field).toMatch(new RegExp(`^${field} is not a known key \\(known: session_id, customer_id, website_id, q, client, start, size, scope,`));
    }
  });

  it('lets a field starting with _ through unread (the caller\'s own, e.g. a tracking id)', async () => {
    const res = await post(`${svc.url}/v1.4/search`, { ...body, _trackingId: 'abc', _ab: { bucket: 2 } }, bearer(TOKEN_A));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { payload: { result: unknown[] } }).payload.result).toHaveLength(1);
  });
});
