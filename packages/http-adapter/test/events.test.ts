import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, expectDocumented, ORIGIN_A, post, startService, TOKEN_A, TOKEN_B, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ limits: { maxArrayLength: 20 } });
});
afterAll(() => svc.close());

const purchase = (orderId: string, extra: Record<string, unknown> = {}) => ({
  customerId: randomUUID(),
  sessionId: randomUUID(),
  events: [{
    currentUrl: 'https://shop-a.example/checkout', eventTime: new Date().toISOString(), orderId, currencyCode: 'EUR',
    products: [{ refId: 'KNOWN-1', quantity: 1, price: 199.5 }], ...extra,
  }],
});

type Problem = { type: string; title: string; status: number; errors: Record<string, string[]>; traceId: string };

describe('POST /3.0/events/purchases', () => {
  const path = '/3.0/events/purchases';
  it('202 Accepted with a transaction id; a replayed orderId gets the first id', async () => {
    const body = purchase(`order-${randomUUID()}`);
    const res = await post(`${svc.url}${path}`, body, bearer(TOKEN_A));
    expect(res.status).toBe(202);
    const ack = (await expectDocumented(res, path, 'POST')) as { transactionId: string; status: string };
    expect(ack.status).toBe('Accepted');
    const again = await post(`${svc.url}${path}`, body, bearer(TOKEN_A));
    expect(((await expectDocumented(again, path, 'POST')) as { transactionId: string }).transactionId).toBe(ack.transactionId);
  });

  it('409 for a replayed orderId with other content, naming it; nothing of the request is stored', async () => {
    const orderId = `order-${randomUUID()}`;
    const body = purchase(orderId);
    const first = (await (await post(`${svc.url}${path}`, body, bearer(TOKEN_A))).json()) as { transactionId: string };
    const newOrder = `order-${randomUUID()}`;
    const changed = { ...body, events: [{ ...body.events[0]!, orderId: newOrder }, { ...body.events[0]!, products: [{ refId: 'KNOWN-1', quantity: 2, price: 199.5 }] }] };
    const res = await post(`${svc.url}${path}`, changed, bearer(TOKEN_A));
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await expectDocumented(res, path, 'POST')) as Problem;
    expect(Object.keys(problem.errors)).toEqual(['events[1].OrderId']);
    expect(problem.errors['events[1].OrderId']![0]).toContain(first.transactionId);
    // The new order of the refused request was not stored: sent alone now, it is recorded under a new id.
    const alone = (await (await post(`${svc.url}${path}`, { ...body, events: [changed.events[0]] }, bearer(TOKEN_A))).json()) as { transactionId: string };
    expect(alone.transactionId).not.toBe(first.transactionId);
    // The exact replay still answers the first id.
    expect(((await (await post(`${svc.url}${path}`, body, bearer(TOKEN_A))).json()) as { transactionId: string }).transactionId).toBe(first.transactionId);
  });

  it('400 for an eventTime without a zone', async () => {
    const res = await post(`${svc.url}${path}`, purchase(`order-${randomUUID()}`, { eventTime: '2026-11-29T10:00:00' }), bearer(TOKEN_A));
    expect(res.status).toBe(400);
    expect(Object.keys(((await expectDocumented(res, path, 'POST')) as Problem).errors)).toEqual(['events[0].EventTime']);
  });

  it('400 problem details keyed by property path, with a traceId', async () => {
    const body = purchase('order-bad');
    (body.events[0]!.products[0] as Record<string, unknown>).refId = '';
    const res = await post(`${svc.url}${path}`, body, bearer(TOKEN_A));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await expectDocumented(res, path, 'POST')) as Problem;
    expect(problem.status).toBe(400);
    expect(problem.title).toBe('One or more validation errors occurred.');
    expect(Object.keys(problem.errors)).toContain('events[0].Products[0].RefId');
    expect(problem.traceId).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  });

  it('malformed JSON and wrong Content-Type get the problem shape with key $', async () => {
    const malformed = await post(`${svc.url}${path}`, '{"customerId":', bearer(TOKEN_A));
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Object.keys(((await expectDocumented(malformed, path, 'POST')) as Problem).errors)).toEqual(['$']);
    const text = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain', ...bearer(TOKEN_A) }, body: '{}' });
    expect(text.status).toBe(415);
    const p = (await expectDocumented(text, path, 'POST')) as Problem;
    expect(p).toMatchObject({ status: 415, errors: { $: [expect.stringContaining('application/json')] } });
  });

  it('takes a body that starts with a UTF-8 byte order mark, as RFC 8259 allows (a BOM alone is still empty JSON)', async () => {
    // Editors and .NET's StreamWriter(Encoding.UTF8) write one; it was a 400 "Unexpected token '\uFEFF'".
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const body = Buffer.concat([bom, Buffer.from(JSON.stringify(purchase('order-bom')))]);
    const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', ...bearer(TOKEN_A) }, body });
    expect(res.status).toBe(202);
    const bundle = await fetch(`${svc.url}/1.0/ClientRecom/site-a/bundle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat([bom, Buffer.from('{"product_ref_ids":["KNOWN-1"]}')]) });
    expect(bundle.status).toBe(200);
    const only = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(TOKEN_A) }, body: bom });
    expect(only.status).toBe(400);
    expect(Object.keys(((await expectDocumented(only, path, 'POST')) as Problem).errors)).toEqual(['$']);
  });

  it('401 problem without or with a wrong token; array limit 400', async () => {
    for (const headers of [{}, bearer('wrong')]) {
      const res = await post(`${svc.url}${path}`, purchase('o-401'), headers);
      expect(res.status).toBe(401);
      expect(((await expectDocumented(res, path, 'POST')) as Problem).status).toBe(401);
    }
    const many = purchase('o-many');
    many.events[0]!.products = Array.from({ length: 21 }, () => ({ refId: 'KNOWN-1', quantity: 1, price: 1 }));
    const res = await post(`${svc.url}${path}`, many, bearer(TOKEN_A));
    expect(res.status).toBe(400);
    expect(Object.keys(((await expectDocumented(res, path, 'POST')) as Problem).errors)).toEqual(['events[0].Products']);
  });

  it('the token names the website: a purchase with token B is recorded for site-b', async () => {
    const before = await svc.engine.stats('site-b');
    const res = await post(`${svc.url}${path}`, purchase(`order-${randomUUID()}`), bearer(TOKEN_B));
    expect(res.status).toBe(202);
    await res.text();
    const after = await svc.engine.stats('site-b');
    expect(after.orders).toBe(before.orders + 1);
  });
});

describe('POST /3.0/events/views', () => {
  const path = '/3.0/events/views';
  it('202 for valid views, 400 problem for invalid ones', async () => {
    const body = { customerId: randomUUID(), sessionId: randomUUID(), events: [{ currentUrl: 'https://shop-a.example/p/1', eventTime: new Date().toISOString(), refId: 'KNOWN-1' }] };
    const ok = await post(`${svc.url}${path}`, body, bearer(TOKEN_A));
    expect(ok.status).toBe(202);
    expect(await expectDocumented(ok, path, 'POST')).toMatchObject({ status: 'Accepted' });
    const bad = await post(`${svc.url}${path}`, { customerId: randomUUID(), events: [] }, bearer(TOKEN_A));
    expect(bad.status).toBe(400);
    const problem = (await expectDocumented(bad, path, 'POST')) as Problem;
    expect(Object.keys(problem.errors).length).toBeGreaterThan(0);
  });
});

describe('GET /b2b/coupon/mark_as_used', () => {
  const path = '/b2b/coupon/mark_as_used';
  it('200 the first time, 409 after, 404 unknown, 400 missing parameter; CORS for the website', async () => {
    const issue = await post(`${svc.url}/admin/v1/websites/site-a/coupons`, { coupons: [{ code: 'BEAT-1', discount: 5 }] }, bearer(ADMIN_TOKEN));
    expect(issue.status).toBe(201);
    expect(await expectDocumented(issue, '/admin/v1/websites/{websiteId}/coupons', 'POST')).toEqual({ issued: 1 });
    const first = await fetch(`${svc.url}${path}?code=BEAT-1&client=site-a`, { headers: { origin: ORIGIN_A } });
    expect(first.status).toBe(200);
    expect(first.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
    expect(await expectDocumented(first, path, 'GET')).toMatchObject({ type: 1, code: 0, payload: { code: 'BEAT-1', websiteId: 'site-a' } });
    const second = await fetch(`${svc.url}${path}?code=BEAT-1&client=client-a`);
    expect(second.status).toBe(409);
    expect(await expectDocumented(second, path, 'GET')).toMatchObject({ type: -1, code: 409 });
    const unknown = await fetch(`${svc.url}${path}?code=NOPE&client=site-a`);
    expect(unknown.status).toBe(404);
    await expectDocumented(unknown, path, 'GET');
    const missing = await fetch(`${svc.url}${path}?client=site-a`);
    expect(missing.status).toBe(400);
    expect(((await expectDocumented(missing, path, 'GET')) as { message: string }).message).toContain('code');
  });

  it('HEAD changes nothing: 405 naming GET, and the code stays unused', async () => {
    await post(`${svc.url}/admin/v1/websites/site-a/coupons`, { coupons: [{ code: 'BEAT-HEAD', discount: 5 }] }, bearer(ADMIN_TOKEN));
    const head = await fetch(`${svc.url}${path}?code=BEAT-HEAD&client=site-a`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, OPTIONS');
    const use = await fetch(`${svc.url}${path}?code=BEAT-HEAD&client=site-a`);
    expect(use.status).toBe(200);
  });
});
