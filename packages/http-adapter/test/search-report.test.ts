/**
 * Search and recommendation analytics over a real socket, on the embedded store and on PostgreSQL:
 * `GET …/reports/searches` (top queries with clicks and conversions, no-result and no-click queries,
 * search-as-you-type chains counted once, window, limit, bad parameters), `GET …/reports/recommendations`,
 * and `payload.suggestions.queries` (logged queries of enough distinct sessions, then catalog words),
 * including the poisoning cases: one anonymous browser, one session repeating itself, personal data,
 * a key's forced scope.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOptions } from '@aisle/engine';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ADMIN_TOKEN, bearer, expectDocumented, post } from './helpers.js';
import { MERCH_TOKEN, merchSearch, putMerchSettings, startMerchService, type MerchService } from './merch-helpers.js';

const reportPath = '/admin/v1/websites/{websiteId}/reports/searches';
const recommendationsPath = '/admin/v1/websites/{websiteId}/reports/recommendations';
type QueryCount = { query: string; count: number };
type Report = { websiteId: string; top: (QueryCount & Record<string, number | null>)[]; noResults: QueryCount[]; noClicks: QueryCount[] };

const schemas = new TestSchemas();
const stores: [string, () => Promise<{ options: Partial<EngineOptions>; cleanup: () => Promise<void> }>][] = [
  ['embedded', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-report-'));
    return { options: { dataDir }, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
  }],
  ['postgres', async () => {
    await requirePostgres();
    return { options: { store: { type: 'postgres', url: TEST_PG_URL, schema: schemas.next() } }, cleanup: async () => undefined };
  }],
];
afterAll(() => schemas.dropAll());

describe.each(stores)('search analytics on the %s store', (_, makeStore) => {
  let svc: MerchService;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const store = await makeStore();
    cleanup = store.cleanup;
    svc = await startMerchService(false, store.options);
  });
  afterAll(async () => {
    await svc.close();
    await cleanup();
  });

  async function report(query = ''): Promise<Report> {
    const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/searches${query}`, { headers: bearer(ADMIN_TOKEN) });
    expect(res.status).toBe(200);
    return (await expectDocumented(res, reportPath, 'GET')) as Report;
  }

  it('reports top queries (a typing chain once, first pages only), queries without results and without clicks', async () => {
    for (const q of ['r', 'ru', 'run', 'running', 'Running  SHOE']) await merchSearch(svc, { q, session_id: 'typist' });
    await merchSearch(svc, { q: 'running shoe', customer_id: 'c-2' }); // the customer id is the session
    await merchSearch(svc, { q: 'running shoe' });
    await merchSearch(svc, { q: 'running shoe', start: 10 }); // a later page: not another search
    await merchSearch(svc, { q: 'bag', session_id: 's-3' });
    await merchSearch(svc, { q: 'unicorn' });
    await merchSearch(svc, { q: 'unicorn' });
    await merchSearch(svc, { q: '' }); // browsing: not a query
    const r = await report();
    expect(r.websiteId).toBe('m');
    const zero = { clicks: 0, ctr: 0, avgClickPosition: null, conversions: 0, conversionRate: 0, revenue: 0 };
    expect(r.top).toEqual([
      { query: 'running shoe', count: 3, avgResults: 9, ...zero },
      { query: 'unicorn', count: 2, avgResults: 0, ...zero },
      { query: 'bag', count: 1, avgResults: 3, ...zero },
    ]);
    expect(r.noResults).toEqual([{ query: 'unicorn', count: 2 }]);
    expect(r.noClicks).toEqual([{ query: 'running shoe', count: 3 }, { query: 'bag', count: 1 }]);
    expect((await report('?limit=1')).top.map((t) => t.query)).toEqual(['running shoe']);
    const hoursAgo = new Date(Date.now() - 3_600_000 * 2).toISOString();
    expect((await report(`?from=${encodeURIComponent(hoursAgo)}`)).top).toHaveLength(3);
    expect(await report(`?to=${encodeURIComponent(hoursAgo)}`)).toMatchObject({ top: [], noResults: [], noClicks: [] });
    expect(await report('?from=2999-01-01T00:00:00Z')).toMatchObject({ from: '2999-01-01T00:00:00Z', top: [], noResults: [] });
  });

  it('refuses bad parameters with 400 naming them; 401 and 404 as the other admin calls', async () => {
    for (const [p, query, key] of [
      ['searches', '?from=yesterday', 'from'], ['searches', '?to=soon', 'to'], ['searches', '?limit=0', 'limit'], ['searches', '?limit=abc', 'limit'],
      ['searches', '?limit=1001', 'limit'], ['recommendations', '?from=yesterday', 'from'],
      // A misspelt parameter: it answered the report of all time, as if no window had been asked for.
      ['searches', '?form=2026-11-01T00:00:00Z', 'form'], ['recommendations', '?frm=2026-11-01T00:00:00Z', 'frm'],
      ['recommendations', '?limit=5', 'limit'],
    ] as const) {
      const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/${p}${query}`, { headers: bearer(ADMIN_TOKEN) });
      expect(res.status).toBe(400);
      expect(((await expectDocumented(res, p === 'searches' ? reportPath : recommendationsPath, 'GET')) as { errors: object }).errors).toHaveProperty(key);
    }
    for (const p of ['searches', 'recommendations']) {
      expect((await fetch(`${svc.url}/admin/v1/websites/m/reports/${p}`)).status).toBe(401);
      expect((await fetch(`${svc.url}/admin/v1/websites/nope/reports/${p}`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(404);
    }
  });

  it('reports recommendation responses served, per method and tactic', async () => {
    const recommend = async () => {
      const res = await fetch(`${svc.url}/1.0/ClientRecom/m/onlysimilarattributes?productRef=p1&count=4`);
      expect(res.status).toBe(200);
      return (await res.json()) as { slots: { tacticLabel: string }[] };
    };
    const answers = [await recommend(), await recommend()];
    const items = answers.flatMap((a) => a.slots.map((s) => s.tacticLabel));
    expect(items.length).toBeGreaterThan(0);
    const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/recommendations`, { headers: bearer(ADMIN_TOKEN) });
    const body = (await expectDocumented(res, recommendationsPath, 'GET')) as { methods: { method: string; served: number; items: number; tactics: { tactic: string; items: number }[] }[] };
    const method = body.methods.find((m) => m.method === 'OnlySimilarAttributes')!;
    expect(method).toMatchObject({ served: 2, items: items.length, clicks: 0, ctr: 0, conversions: 0, revenue: 0 });
    expect(method.tactics.reduce((n, t) => n + t.items, 0)).toBe(items.length);
  });

  it('a HEAD request, whose list nobody sees, is answered as a GET without being counted as served', async () => {
    const head = await fetch(`${svc.url}/1.0/ClientRecom/m/SimilarAttributesViewedTogether?productRef=p1&count=4`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('application/json');
    expect(await head.text()).toBe('');
    const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/recommendations`, { headers: bearer(ADMIN_TOKEN) });
    const body = (await expectDocumented(res, recommendationsPath, 'GET')) as { methods: { method: string }[] };
    expect(body.methods.map((m) => m.method)).not.toContain('SimilarAttributesViewedTogether');
  });

  it('takes a click on the sponsored slot and counts it under the Retail Media tactic', async () => {
    await putMerchSettings(svc, { retailMedia: { adSets: [{ adSetId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', version: 1, products: ['p8'], costPerClick: 0.2 }] } });
    try {
      // Something popular, beside which the ad (a shoe, as they are) fits.
      await svc.engine.recordPurchases('m', {
        customerId: '4d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10', sessionId: '4d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10',
        events: [{ orderId: 'ad-seed-1', currentUrl: 'https://m.example/thanks', eventTime: new Date().toISOString(), products: [{ refId: 'p1', quantity: 1, price: 10 }, { refId: 'p2', quantity: 1, price: 10 }] }],
      });
      const res = await fetch(`${svc.url}/1.0/ClientRecom/m/PopularItems?count=5`);
      const answer = (await res.json()) as { queryId: string; recommenderId: string; payload: string[]; slots: { refId: string; tacticLabel: string; tacticId: string }[] };
      const ad = answer.slots.findIndex((s) => s.tacticLabel === 'Retail Media');
      expect(ad).toBeGreaterThanOrEqual(0);
      const customerId = '5d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10';
      const click = await post(`${svc.url}/3.0/events/clicks`, {
        customerId, sessionId: customerId, events: [{
          eventTime: new Date().toISOString(), type: 'click', refId: answer.payload[ad], queryId: answer.queryId, position: ad + 1,
          recommenderId: answer.recommenderId, tacticId: answer.slots[ad]!.tacticId,
        }],
      }, bearer(MERCH_TOKEN));
      // It was refused: 400 "The TacticId names no tactic of this website" (the sponsored slot's label was not a known tactic).
      expect(click.status).toBe(202);
      const report = await fetch(`${svc.url}/admin/v1/websites/m/reports/recommendations`, { headers: bearer(ADMIN_TOKEN) });
      const body = (await expectDocumented(report, recommendationsPath, 'GET')) as { methods: { method: string; tactics: { tactic: string; clicks: number }[] }[] };
      const popular = body.methods.find((m) => m.method === 'PopularItems')!;
      expect(popular.tactics.find((t) => t.tactic === 'Retail Media')).toMatchObject({ clicks: 1 });
    } finally {
      await putMerchSettings(svc, {});
    }
  });

  it('counts bundle responses served, so a click on a bundle is one of a served list', async () => {
    const bundle = async () => {
      const res = await post(`${svc.url}/1.0/ClientRecom/m/bundle`, { product_ref_ids: ['p1'], setCount: 2, count: 3 }, {});
      expect(res.status).toBe(200);
      return (await res.json()) as { payload: string[][]; queryId: string };
    };
    // Bought together, so that p1 has companions to bundle.
    for (const [i, companion] of ['p2', 'p3', 'p4'].entries()) {
      await svc.engine.recordPurchases('m', {
        customerId: `1d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a1${i}`, sessionId: `1d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a1${i}`,
        events: [{ orderId: `bundle-seed-${i}`, currentUrl: 'https://m.example/thanks', eventTime: new Date().toISOString(), products: [{ refId: 'p1', quantity: 1, price: 10 }, { refId: companion, quantity: 1, price: 10 }] }],
      });
    }
    const answers = [await bundle(), await bundle()];
    const items = answers.flatMap((a) => a.payload.flat()).length;
    expect(items).toBeGreaterThan(0);
    const first = answers[0]!;
    const customerId = '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10';
    const click = await post(`${svc.url}/3.0/events/clicks`, {
      customerId, sessionId: customerId, events: [{ eventTime: new Date().toISOString(), type: 'click', refId: first.payload[0]![0], queryId: first.queryId, position: 1 }],
    }, bearer(MERCH_TOKEN));
    expect(click.status).toBe(202);
    const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/recommendations`, { headers: bearer(ADMIN_TOKEN) });
    const body = (await expectDocumented(res, recommendationsPath, 'GET')) as { methods: { method: string; served: number; items: number; clicks: number; ctr: number; tactics: unknown[] }[] };
    // Bundles were never counted as served: the report read served 0, items 0, clicks 1, ctr 0.
    expect(body.methods.find((m) => m.method === 'bundle')).toMatchObject({ served: 2, items, clicks: 1, ctr: 0.5, tactics: [] });
  });

  it('completes from queries of enough distinct sessions: one browser repeating itself, personal data and excluded words never', async () => {
    const settings = await (await fetch(`${svc.url}/admin/v1/websites/m/settings`, { headers: bearer(ADMIN_TOKEN) })).json() as Record<string, unknown>;
    expect(settings.suggestions).toEqual({ minSessions: 3, exclude: [] });
    expect(settings.eventRetentionDays).toEqual({ searches: 90, recommendations: 90, views: 365, purchases: 730, clicks: 365 });
    for (const session of ['a', 'b', 'c']) {
      await merchSearch(svc, { q: 'running bag', session_id: session });
      await merchSearch(svc, { q: 'red running', session_id: `other-${session}` });
      await merchSearch(svc, { q: 'running mail me john@example.com', session_id: session });
    }
    for (let i = 0; i < 20; i++) await merchSearch(svc, { q: 'running model 7', session_id: 'one-shopper' });
    for (let i = 0; i < 20; i++) await merchSearch(svc, { q: 'running blue' }); // anonymous
    await report(); // ends the typing chains: what was searched is counted now
    const run = await merchSearch(svc, { q: 'runn' });
    // "running shoe" had three sessions above (typist, c-2 and, as the last of the chain, none: two), so only "running bag" qualifies.
    expect(run.payload.suggestions.queries).toEqual(['running bag', 'running']);
    await putMerchSettings(svc, { suggestions: { minSessions: 2, exclude: ['BAG'] } });
    expect((await merchSearch(svc, { q: 'runn' })).payload.suggestions.queries).toEqual(['running shoe', 'running']);
    await putMerchSettings(svc, {});
  });

  it('offers through a key with a forced scope only completions with results within it', async () => {
    const created = await post(`${svc.url}/admin/v1/websites/m/keys`, { actions: ['search'], scope: { search_category: ['shoe'] } }, bearer(ADMIN_TOKEN));
    const { key } = (await created.json()) as { key: string };
    const viaKey = async (body: Record<string, unknown>) => {
      const res = await post(`${svc.url}/v1.4/search`, { website_id: 'm', client: 'mc', start: 0, ...body }, bearer(key));
      expect(res.status).toBe(200);
      return (await res.json()) as { payload: { suggestions: { queries?: string[] } } };
    };
    // One anonymous browser with the key, however often, puts nothing into anyone's completions.
    for (let i = 0; i < 10; i++) await viaKey({ q: 'running bag model 12' });
    await report();
    expect((await merchSearch(svc, { q: 'running bag m' })).payload.suggestions.queries ?? []).not.toContain('running bag model 12');
    // "running bag" (logged by three sessions) has no result among shoes: not offered through the key.
    expect((await viaKey({ q: 'runn' })).payload.suggestions.queries).toEqual(['running']);
    expect((await merchSearch(svc, { q: 'runn' })).payload.suggestions.queries).toEqual(['running bag', 'running']);
    // Searches through the key count in the report like any other.
    expect((await report()).top.find((t) => t.query === 'running bag model 12')?.count).toBe(10);
  });
});
