import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, expectDocumented, post, startService, TOKEN_A, TOKEN_B, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ limits: { maxBytes: 64 * 1024, maxDepth: 8, maxArrayLength: 50 } });
});
afterAll(() => svc.close());

const path = '/v1.4/search';
const body = (extra: Record<string, unknown> = {}) => ({ website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0, ...extra });

describe('POST /v1.4/search', () => {
  it('returns a page with facets, ranges and settings.ats_model', async () => {
    const res = await post(`${svc.url}${path}`, body({ size: 5, aggregations: ['brand'], range_fields: ['price'] }), bearer(TOKEN_A));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const json = (await expectDocumented(res, path, 'POST')) as { type: number; payload: { result: { refId: string }[]; total_results: number; aggregations: Record<string, unknown[]>; ranges: Record<string, unknown> }; settings?: { ats_model: string } };
    expect(json.type).toBe(1);
    expect(json.payload.total_results).toBeGreaterThanOrEqual(2);
    expect(json.payload.result.map((p) => p.refId)).toContain('KNOWN-1');
    expect(json.payload.aggregations.brand).toContainEqual({ key: 'Zanzibar', doc_count: expect.any(Number) });
    expect(json.payload.ranges.price).toEqual({ min: expect.any(Number), max: expect.any(Number) });
    // The built-in model ranked the results: it names itself and its version.
    expect(json.settings?.ats_model).toMatch(/^aisle-ri@[0-9a-f]{8}$/);
  });

  it('attributes a purchase carrying the ats_model to that model, over HTTP end to end', async () => {
    const res = await post(`${svc.url}${path}`, body({ size: 3 }), bearer(TOKEN_A));
    const json = (await res.json()) as { payload: { result: { refId: string }[] }; settings?: { ats_model: string } };
    const atsModel = json.settings!.ats_model;
    const orderId = `order-${randomUUID()}`;
    const purchase = {
      customerId: randomUUID(), sessionId: randomUUID(),
      events: [{ currentUrl: 'https://shop-a.example/checkout', eventTime: new Date().toISOString(), orderId, currencyCode: 'EUR',
        products: [{ refId: json.payload.result[0].refId, quantity: 3, price: 2.5, atsModel }] }],
    };
    expect((await post(`${svc.url}/3.0/events/purchases`, purchase, bearer(TOKEN_A))).status).toBe(202);
    const report = await fetch(`${svc.url}/admin/v1/websites/site-a/reports/attribution?from=2000-01-01T00:00:00Z`, { headers: bearer(ADMIN_TOKEN) });
    const { byAtsModel } = (await report.json()) as { byAtsModel: { key: string; revenue: number; orders: number; units: number }[] };
    expect(byAtsModel.find((l) => l.key === atsModel)).toMatchObject({ revenue: 7.5, units: 3 });
  });

  it('sends no settings.ats_model when the model did not rank (explicit sort, browsing)', async () => {
    for (const extra of [{ sort_fields: [{ price: { order: 'asc', type: 'number' } }] }, { q: '' }]) {
      const json = (await (await post(`${svc.url}${path}`, body(extra), bearer(TOKEN_A))).json()) as { settings?: unknown };
      expect(json.settings).toBeUndefined();
    }
  });

  it('suggests corrected_query for a typo and dropped_words when no product has every word', async () => {
    const typo = await post(`${svc.url}${path}`, body({ q: 'espreso machine' }), bearer(TOKEN_A));
    expect(typo.status).toBe(200);
    const typoJson = (await expectDocumented(typo, path, 'POST')) as { payload: { result: { refId: string }[]; suggestions: Record<string, unknown> } };
    expect(typoJson.payload.result[0].refId).toBe('KNOWN-1');
    expect(typoJson.payload.suggestions).toEqual({ corrected_query: 'espresso machine' });
    const dropped = await post(`${svc.url}${path}`, body({ q: 'zanzibar frother qqqqxz' }), bearer(TOKEN_A));
    expect(dropped.status).toBe(200);
    const droppedJson = (await expectDocumented(dropped, path, 'POST')) as { payload: { result: { refId: string }[]; suggestions: Record<string, unknown> } };
    expect(droppedJson.payload.result.map((p) => p.refId)).toEqual(['KNOWN-2']);
    expect(droppedJson.payload.suggestions).toEqual({ dropped_words: ['qqqqxz'] });
  });

  it('accepts _score among sort_fields', async () => {
    const res = await post(`${svc.url}${path}`, body({
      q: 'zanzibar', sort_fields: [{ _score: { order: 'desc', type: 'number' } }, { price: { order: 'asc', type: 'number' } }],
    }), bearer(TOKEN_A));
    expect(res.status).toBe(200);
    const json = (await expectDocumented(res, path, 'POST')) as { payload: { result: { refId: string }[] } };
    expect(json.payload.result.map((p) => p.refId)).toContain('KNOWN-1');
  });

  it('filters with scope and sorts with sort_fields', async () => {
    const res = await post(`${svc.url}${path}`, body({ scope: { brand: ['Zanzibar'] }, sort_fields: [{ price: { order: 'asc', type: 'number' } }] }), bearer(TOKEN_A));
    const json = (await expectDocumented(res, path, 'POST')) as { payload: { result: { refId: string }[] } };
    expect(res.status).toBe(200);
    expect(json.payload.result.map((p) => p.refId)).toEqual(['KNOWN-2', 'KNOWN-1']);
  });

  it('401 without a token, with a wrong token, and with the token of another website', async () => {
    for (const headers of [{}, bearer('nope'), { authorization: 'Basic abc' }, bearer(TOKEN_B)]) {
      const res = await post(`${svc.url}${path}`, body(), headers);
      expect(res.status).toBe(401);
      const json = (await expectDocumented(res, path, 'POST')) as { type: number; code: number; message: string };
      expect(json).toMatchObject({ type: -1, code: 401 });
      expect(json.message).not.toContain(TOKEN_B);
    }
  });

  it('a token of website B opens website B only', async () => {
    const ok = await post(`${svc.url}${path}`, { website_id: 'site-b', client: 'client-b', q: '', start: 0 }, bearer(TOKEN_B));
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('400 naming the field for a bad body, 404 for an unknown client', async () => {
    const missing = await post(`${svc.url}${path}`, { website_id: 'site-a', client: 'client-a', q: 'x' }, bearer(TOKEN_A));
    expect(missing.status).toBe(400);
    expect(((await expectDocumented(missing, path, 'POST')) as { message: string }).message).toContain('start');
    const wrongType = await post(`${svc.url}${path}`, body({ size: 'ten' }), bearer(TOKEN_A));
    expect(wrongType.status).toBe(400);
    expect(((await expectDocumented(wrongType, path, 'POST')) as { message: string }).message).toContain('size');
    const nonNumeric = await post(`${svc.url}${path}`, body({ range_fields: ['title'] }), bearer(TOKEN_A));
    expect(nonNumeric.status).toBe(400);
    expect(((await expectDocumented(nonNumeric, path, 'POST')) as { message: string }).message).toContain('title');
    const client = await post(`${svc.url}${path}`, body({ client: 'other' }), bearer(TOKEN_A));
    expect(client.status).toBe(404);
    expect(await expectDocumented(client, path, 'POST')).toMatchObject({ type: -1, code: 404 });
  });

  it('malformed JSON, wrong Content-Type, wrong method', async () => {
    const malformed = await post(`${svc.url}${path}`, '{"website_id": ', bearer(TOKEN_A));
    expect(malformed.status).toBe(400);
    expect(((await expectDocumented(malformed, path, 'POST')) as { message: string }).message).toMatch(/not valid JSON/);
    const text = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain', ...bearer(TOKEN_A) }, body: JSON.stringify(body()) });
    expect(text.status).toBe(415);
    expect(await expectDocumented(text, path, 'POST')).toMatchObject({ type: -1, code: 415 });
    const get = await fetch(`${svc.url}${path}`, { headers: bearer(TOKEN_A) });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await expectDocumented(get, path, 'POST')).toMatchObject({ type: -1, code: 405 });
  });

  it('limits: body size 413, nesting depth 400, array length 400', async () => {
    const big = await post(`${svc.url}${path}`, body({ q: 'x'.repeat(70 * 1024) }), bearer(TOKEN_A));
    expect(big.status).toBe(413);
    expect(((await expectDocumented(big, path, 'POST')) as { message: string }).message).toContain('65536');
    let deep: unknown = ['x'];
    for (let i = 0; i < 10; i++) deep = { a: deep };
    const deepRes = await post(`${svc.url}${path}`, body({ scope: deep }), bearer(TOKEN_A));
    expect(deepRes.status).toBe(400);
    expect(((await expectDocumented(deepRes, path, 'POST')) as { message: string }).message).toMatch(/deeper than 8/);
    const long = await post(`${svc.url}${path}`, body({ aggregations: Array.from({ length: 51 }, (_, i) => `f${i}`) }), bearer(TOKEN_A));
    expect(long.status).toBe(400);
    expect(((await expectDocumented(long, path, 'POST')) as { message: string }).message).toMatch(/aggregations.*at most 50/);
  });
});
