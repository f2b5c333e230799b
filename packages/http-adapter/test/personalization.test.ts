import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectDocumented, post, startService, type TestService } from './helpers.js';

const TOKEN_P = 'token-p-0123456789';
const brands = ['Alpha', 'Beta', 'Gamma', 'Delta'];

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  await svc.engine.addWebsite({ websiteId: 'site-p', client: 'client-p', tokens: [TOKEN_P], hmacSecret: 'secret-p', settings: { personalization: true } });
  await svc.engine.upsertProducts('site-p', Array.from({ length: 40 }, (_, i) => ({ refId: `s${i}`, title: 'cotton shirt', brand: brands[i % 4], search_category: 'Shirts' })));
});
afterAll(() => svc.close());

const path = '/v1.4/search';
const body = (extra: Record<string, unknown> = {}) => ({ website_id: 'site-p', client: 'client-p', q: 'shirt', start: 0, size: 10, aggregations: ['brand'], ...extra });

describe('personalized search over HTTP', () => {
  it('400 naming customer_id when personalization is on and it is missing (the spec)', async () => {
    const res = await post(`${svc.url}${path}`, body(), bearer(TOKEN_P));
    expect(res.status).toBe(400);
    expect(await expectDocumented(res, path, 'POST')).toMatchObject({ type: -1, code: 400, message: expect.stringContaining('customer_id') });
  });

  it('re-ranks toward the brand the customer viewed; totals and facets unchanged', async () => {
    const customerId = randomUUID();
    const plain = (await (await post(`${svc.url}${path}`, body({ customer_id: randomUUID() }), bearer(TOKEN_P))).json()) as {
      payload: { result: { refId: string; brand: string }[]; total_results: number; aggregations: unknown };
    };
    const views = {
      customerId, sessionId: randomUUID(),
      events: ['s2', 's6', 's10'].map((refId, i) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: new Date(Date.now() - (3 - i) * 1000).toISOString(), refId })),
    };
    expect((await post(`${svc.url}/3.0/events/views`, views, bearer(TOKEN_P))).status).toBe(202);
    const res = await post(`${svc.url}${path}`, body({ customer_id: customerId }), bearer(TOKEN_P));
    expect(res.status).toBe(200);
    const mine = (await expectDocumented(res, path, 'POST')) as typeof plain & { settings?: unknown };
    expect(mine.payload.total_results).toBe(plain.payload.total_results);
    expect(mine.payload.aggregations).toEqual(plain.payload.aggregations);
    expect(mine.payload.result[0].brand).toBe('Gamma');
    expect(mine.payload.result.filter((p) => p.brand === 'Gamma').length).toBeGreaterThan(plain.payload.result.filter((p) => p.brand === 'Gamma').length);
    expect(mine.settings).toEqual({ ranked_by: ['personalization'] });
  });
});

describe('a customer id written as a GUID in capitals', () => {
  it('finds the history its events recorded (events keep GUIDs in lower case): recommendations and personalized search', async () => {
    const customerId = randomUUID().toUpperCase();
    const views = {
      customerId, sessionId: randomUUID().toUpperCase(),
      events: ['s3', 's7', 's11'].map((refId, i) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: new Date(Date.now() - (3 - i) * 1000).toISOString(), refId })),
    };
    expect((await post(`${svc.url}/3.0/events/views`, views, bearer(TOKEN_P))).status).toBe(202);
    for (const id of [customerId, customerId.toLowerCase()]) {
      const recent = await fetch(`${svc.url}/1.0/ClientRecom/site-p/RecentlyViewed?customerId=${id}`);
      expect(((await expectDocumented(recent, '/1.0/ClientRecom/{website_id}/RecentlyViewed', 'GET')) as { payload: string[] }).payload, id).toEqual(['s11', 's7', 's3']);
      const res = await post(`${svc.url}${path}`, body({ customer_id: id }), bearer(TOKEN_P));
      const page = (await expectDocumented(res, path, 'POST')) as { payload: { result: { brand: string }[] }; settings?: unknown };
      expect(page.settings, id).toEqual({ ranked_by: ['personalization'] });
      expect(page.payload.result[0]!.brand).toBe('Delta');
    }
  });
});
