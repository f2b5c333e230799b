/**
 * Result ids, clicks and conversions over real sockets, on the embedded store (SQLite in a data
 * directory) and on PostgreSQL: ids on every answered list, POST /3.0/events/clicks with the website
 * token or a browser key opening insights (CORS as for search), every validation failure in the
 * documented problem shape, idempotency per clickId, and purchases converting clicks in the
 * attribution report. The replica case (a click on another process than the search) is in replicas.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, type AttributionReport, type ClickOutcome, type Engine, type EngineOptions } from '@aisle/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ADMIN_TOKEN, ORIGIN_A, SITE_A, SITE_B, TOKEN_A, TOKEN_B, bearer, expectDocumented, post, serveEngine, testProducts } from './helpers.js';

const CLICKS = '/3.0/events/clicks';
const SEARCH = '/v1.4/search';
const CUSTOMER = '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10';
const SESSION = '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21';

type Problem = { status: number; errors: Record<string, string[]> };
type SearchAnswer = { query_id: string; payload: { result: { refId: string }[] } };

const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-clicks-'));
const schemas = new TestSchemas();
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await schemas.dropAll();
});

function clickBody(events: Record<string, unknown>[], sessionId = SESSION): Record<string, unknown> {
  return { customerId: CUSTOMER, sessionId, events: events.map((e) => ({ eventTime: new Date().toISOString(), type: 'click', ...e })) };
}

function runClicksSuite(name: string, storeOptions: () => Promise<Pick<EngineOptions, 'dataDir' | 'store'>>): void {
  describe(`clicks over HTTP: ${name}`, () => {
    let engine: Engine;
    let served: Awaited<ReturnType<typeof serveEngine>>;
    let url: string;
    const outcomes: ClickOutcome[] = [];

    beforeAll(async () => {
      engine = await createEngine({ workers: 0, websites: [SITE_A, SITE_B], adminTokens: [ADMIN_TOKEN], onClickOutcome: (o) => outcomes.push(o), ...(await storeOptions()) });
      await engine.upsertProducts('site-a', testProducts());
      await engine.upsertProducts('site-b', testProducts().slice(0, 50));
      served = await serveEngine(engine, { adminTokens: [ADMIN_TOKEN] });
      url = served.url;
    });
    afterAll(async () => {
      await served.close();
      await engine.close();
    });

    async function search(body: Record<string, unknown>, token = TOKEN_A): Promise<SearchAnswer> {
      const res = await post(`${url}${SEARCH}`, { website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0, ...body }, bearer(token));
      expect(res.status).toBe(200);
      return (await expectDocumented(res, SEARCH, 'POST')) as SearchAnswer;
    }

    async function createKey(actions: string[]): Promise<string> {
      const res = await post(`${url}/admin/v1/websites/site-a/keys`, { actions }, bearer(ADMIN_TOKEN));
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: string }).key;
    }

    it('answers a query_id per search page and a queryId per recommendation and bundle response, all documented', async () => {
      const a = await search({});
      const b = await search({});
      expect(a.query_id).not.toBe(b.query_id);
      const rec = await fetch(`${url}/1.0/ClientRecom/site-a/PopularItems`);
      const recommended = (await expectDocumented(rec, '/1.0/ClientRecom/{website_id}/PopularItems', 'GET')) as { queryId: string };
      const bundle = await post(`${url}/1.0/ClientRecom/site-a/bundle`, { product_ref_ids: ['KNOWN-1'] });
      const bundled = (await expectDocumented(bundle, '/1.0/ClientRecom/{website_id}/bundle', 'POST')) as { queryId: string };
      expect(new Set([a.query_id, b.query_id, recommended.queryId, bundled.queryId]).size).toBe(4);
    });

    it('accepts a click with the website token and with a key opening insights; refuses a search-only key (and insights keys cannot search)', async () => {
      const page = await search({ start: 1, size: 5, session_id: 'browser-tab-1' });
      const refId = page.payload.result[0]!.refId;
      const body = clickBody([{ refId, queryId: page.query_id, position: 2 }]);
      const withToken = await post(`${url}${CLICKS}`, body, bearer(TOKEN_A));
      expect(withToken.status).toBe(202);
      expect(await expectDocumented(withToken, CLICKS, 'POST')).toMatchObject({ status: 'Accepted' });
      const insights = await createKey(['insights']);
      const withKey = await post(`${url}${CLICKS}`, body, { ...bearer(insights), origin: ORIGIN_A });
      expect(withKey.status).toBe(202);
      expect(withKey.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
      const searchOnly = await createKey(['search']);
      const refused = await post(`${url}${CLICKS}`, body, bearer(searchOnly));
      expect(refused.status).toBe(401);
      // The key is valid: the answer says what it lacks (it said "invalid bearer token").
      expect(((await expectDocumented(refused, CLICKS, 'POST')) as Problem).errors).toEqual({ Authorization: ['the search key does not open "insights" (its actions: search)'] });
      const insightsSearching = await post(`${url}${SEARCH}`, { website_id: 'site-a', client: 'client-a', q: '', start: 0 }, bearer(insights));
      expect(insightsSearching.status).toBe(401);
      expect(await insightsSearching.json()).toEqual({ type: -1, code: 401, message: 'the search key does not open "search" (its actions: insights)' });
      const both = await createKey(['search', 'insights']);
      const bothPage = await search({}, both);
      expect((await post(`${url}${CLICKS}`, clickBody([{ refId: bothPage.payload.result[0]!.refId, queryId: bothPage.query_id, position: 1 }]), bearer(both))).status).toBe(202);
      const preflight = await fetch(`${url}${CLICKS}`, { method: 'OPTIONS', headers: { origin: ORIGIN_A, 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
    });

    it('lists every validation failure in problem details, and stores nothing of a refused body', async () => {
      const page = await search({});
      const other = await post(`${url}${SEARCH}`, { website_id: 'site-b', client: 'client-b', q: '', start: 0 }, bearer(TOKEN_B));
      const theirs = ((await other.json()) as SearchAnswer).query_id;
      const before = outcomes.length;
      const res = await post(`${url}${CLICKS}`, {
        CustomerId: 'not-a-guid', sessionId: SESSION,
        events: [
          { eventTime: 'yesterday', refId: page.payload.result[0]!.refId, type: 'click', queryId: page.query_id },
          { eventTime: new Date().toISOString(), refId: 'x', type: 'view' },
          { eventTime: new Date().toISOString(), refId: page.payload.result[0]!.refId, type: 'click', queryId: theirs, position: 1 },
          { eventTime: new Date().toISOString(), refId: page.payload.result[0]!.refId, type: 'addToCart', queryId: page.query_id, position: 2, clickId: 'k' },
          { eventTime: new Date().toISOString(), type: 'click', queryId: 'made-up', position: 1 },
        ],
      }, bearer(TOKEN_A));
      expect(res.status).toBe(400);
      const problem = (await expectDocumented(res, CLICKS, 'POST')) as Problem;
      expect(Object.keys(problem.errors).sort()).toEqual([
        'CustomerId', 'events[0].EventTime', 'events[0].Position', 'events[1].Type', 'events[2].QueryId', 'events[3].ClickId', 'events[3].Position',
        'events[4].QueryId', 'events[4].RefId',
      ]);
      expect(outcomes.length).toBe(before);
      // A queryId the schema refuses is told so once: "not issued" was listed beside "must not be blank".
      const blank = await post(`${url}${CLICKS}`, clickBody([{ refId: 'KNOWN-1', queryId: ' ', position: 1 }, { refId: 'KNOWN-1', queryId: 'q'.repeat(300), position: 1 }]), bearer(TOKEN_A));
      expect(((await expectDocumented(blank, CLICKS, 'POST')) as Problem).errors).toEqual({
        'events[0].QueryId': ['The QueryId field must not be blank.'], 'events[1].QueryId': ['The QueryId field must be at most 256 characters long.'],
      });
      const empty = await post(`${url}${CLICKS}`, clickBody([]), bearer(TOKEN_A));
      expect(Object.keys(((await expectDocumented(empty, CLICKS, 'POST')) as Problem).errors)).toEqual(['events']);
      const malformed = await post(`${url}${CLICKS}`, '{"events": [', bearer(TOKEN_A));
      expect(Object.keys(((await expectDocumented(malformed, CLICKS, 'POST')) as Problem).errors)).toEqual(['$']);
    });

    it('refuses a recommenderId or tacticId that is not of the recommendation list the click names, which the reports would credit to no tactic', async () => {
      const res = await fetch(`${url}/1.0/ClientRecom/site-b/OnlySimilarAttributes?productRef=${encodeURIComponent(testProducts()[0]!.refId)}&count=3`);
      const list = (await res.json()) as { queryId: string; recommenderId: string; slots: { refId: string; tacticId: string }[] };
      expect(list.slots.length).toBeGreaterThan(0);
      const slot = list.slots[0]!;
      const otherMethod = ((await (await fetch(`${url}/1.0/ClientRecom/site-b/PopularItems`)).json()) as { recommenderId: string }).recommenderId;
      const onList = { refId: slot.refId, queryId: list.queryId, position: 1 };
      const before = outcomes.length;
      // Each was 202: counted under the list's method, and the made-up tacticId credited to no tactic.
      const refused = await post(`${url}${CLICKS}`, clickBody([{ ...onList, recommenderId: otherMethod }, { ...onList, tacticId: randomUUID() }], randomUUID()), bearer(TOKEN_B));
      expect(refused.status).toBe(400);
      expect(((await expectDocumented(refused, CLICKS, 'POST')) as Problem).errors).toEqual({
        'events[0].RecommenderId': ['The result list of QueryId was answered by OnlySimilarAttributes, whose recommenderId is not this one.'],
        'events[1].TacticId': ['The TacticId names no tactic of this website (send the tacticId of the clicked slot).'],
      });
      expect(outcomes.length).toBe(before);
      // The ids of the response itself, in either case.
      const taken = await post(`${url}${CLICKS}`, clickBody([{ ...onList, recommenderId: list.recommenderId.toUpperCase(), tacticId: slot.tacticId }], randomUUID()), bearer(TOKEN_B));
      expect(taken.status).toBe(202);
    });

    it('stores a repeated clickId once (same transactionId), and converts the purchase naming it into the attribution report', async () => {
      const page = await search({ q: 'zanzibar espresso' });
      const refId = page.payload.result[0]!.refId;
      const clickId = randomUUID();
      const body = clickBody([{ refId, queryId: page.query_id, position: 1, clickId }]);
      const before = outcomes.length;
      const [first, second] = await Promise.all([post(`${url}${CLICKS}`, body, bearer(TOKEN_A)), post(`${url}${CLICKS}`, body, bearer(TOKEN_A))]);
      const third = await post(`${url}${CLICKS}`, body, bearer(TOKEN_A));
      const ids = await Promise.all([first, second, third].map(async (r) => ((await r.json()) as { transactionId: string }).transactionId));
      expect(new Set(ids).size).toBe(1);
      expect(outcomes.slice(before).map((o) => [o.type, o.query, o.position])).toEqual([['click', 'zanzibar espresso', 1]]);
      const order = await post(`${url}/3.0/events/purchases`, {
        customerId: CUSTOMER, sessionId: randomUUID(),
        events: [{ currentUrl: 'https://shop-a.example/thanks', eventTime: new Date().toISOString(), orderId: `o-${clickId}`, products: [{ refId, quantity: 2, price: 10, clickId }] }],
      }, bearer(TOKEN_A));
      expect(order.status).toBe(202);
      expect(outcomes.at(-1)).toMatchObject({ type: 'purchase', kind: 'search', query: 'zanzibar espresso', position: 1, revenue: 20 });
      const res = await fetch(`${url}/admin/v1/websites/site-a/reports/attribution`, { headers: bearer(ADMIN_TOKEN) });
      const report = (await expectDocumented(res, '/admin/v1/websites/{websiteId}/reports/attribution', 'GET')) as AttributionReport;
      expect(report.bySearchQuery).toContainEqual({ key: 'zanzibar espresso', revenue: 20, orders: 1, units: 2 });
      expect(report.byClickPosition).toContainEqual({ kind: 'search', position: 1, revenue: 20, orders: 1, units: 2 });
      // The searches report counts the same click (once, whatever the repeats) and conversion against the page's id.
      const searches = await fetch(`${url}/admin/v1/websites/site-a/reports/searches?limit=1000`, { headers: bearer(ADMIN_TOKEN) });
      const logged = (await expectDocumented(searches, '/admin/v1/websites/{websiteId}/reports/searches', 'GET')) as { top: { query: string; clicks: number; conversions: number; revenue: number }[] };
      expect(logged.top.find((t) => t.query === 'zanzibar espresso')).toMatchObject({ clicks: 1, conversions: 1, revenue: 20 });
    });

    it('converts a click stamped by a browser clock a minute fast, and never a click made after the purchase', async () => {
      const attribution = async () => {
        const res = await fetch(`${url}/admin/v1/websites/site-a/reports/attribution`, { headers: bearer(ADMIN_TOKEN) });
        return (await expectDocumented(res, '/admin/v1/websites/{websiteId}/reports/attribution', 'GET')) as AttributionReport;
      };
      const reportBefore = await attribution();
      const page = await search({ q: 'zanzibar', size: 3 });
      const [a, b] = page.payload.result;
      const session = randomUUID();
      const now = Date.now();
      const purchase = (orderId: string, refId: string) => post(`${url}/3.0/events/purchases`, {
        customerId: CUSTOMER, sessionId: session,
        events: [{ currentUrl: 'https://shop-a.example/thanks', eventTime: new Date(now).toISOString(), orderId, products: [{ refId, quantity: 1, price: 7 }] }],
      }, bearer(TOKEN_A));
      // The browser's clock runs a minute fast: its click reads a minute after the shop's purchase, which it preceded.
      const fast = clickBody([{ refId: a!.refId, queryId: page.query_id, position: 1, eventTime: new Date(now + 60_000).toISOString() }], session);
      expect((await post(`${url}${CLICKS}`, fast, bearer(TOKEN_A))).status).toBe(202);
      const before = outcomes.length;
      const orderA = `skew-a-${session}`;
      expect((await purchase(orderA, a!.refId)).status).toBe(202);
      expect(outcomes.slice(before)).toEqual([expect.objectContaining({ type: 'purchase', kind: 'search', query: 'zanzibar', position: 1, revenue: 7 })]);
      // A purchase first, then a click on the product (its time within the same minute): the click did not lead to it.
      const orderB = `skew-b-${session}`;
      expect((await purchase(orderB, b!.refId)).status).toBe(202);
      const after = clickBody([{ refId: b!.refId, queryId: page.query_id, position: 2, eventTime: new Date(now + 30_000).toISOString() }], session);
      expect((await post(`${url}${CLICKS}`, after, bearer(TOKEN_A))).status).toBe(202);
      expect(outcomes.slice(before).filter((o) => o.type === 'purchase')).toHaveLength(1);
      // The attribution report reads the same: order A converted (a line at position 1), order B not (none at 2).
      const report = await attribution();
      const units = (r: AttributionReport, position: number) => r.byClickPosition.find((l) => l.kind === 'search' && l.position === position)?.units ?? 0;
      expect(units(report, 1) - units(reportBefore, 1)).toBe(1);
      expect(units(report, 2) - units(reportBefore, 2)).toBe(0);
    });

    it('adds only the website\'s currency to revenue figures, and lists purchases in another one apart', async () => {
      const patch = (body: unknown) => post(`${url}/admin/v1/websites/site-a/settings`, body, { ...bearer(ADMIN_TOKEN), 'content-type': 'application/merge-patch+json' }, 'PATCH');
      const attribution = async () => {
        const res = await fetch(`${url}/admin/v1/websites/site-a/reports/attribution`, { headers: bearer(ADMIN_TOKEN) });
        return (await expectDocumented(res, '/admin/v1/websites/{websiteId}/reports/attribution', 'GET')) as AttributionReport;
      };
      const searches = async () => {
        const res = await fetch(`${url}/admin/v1/websites/site-a/reports/searches?limit=1000`, { headers: bearer(ADMIN_TOKEN) });
        const body = (await expectDocumented(res, '/admin/v1/websites/{websiteId}/reports/searches', 'GET')) as { top: { query: string; conversions: number; revenue: number }[] };
        return body.top.find((t) => t.query === 'zanzibar') ?? { conversions: 0, revenue: 0 };
      };
      const settings = await fetch(`${url}/admin/v1/websites/site-a/settings`, { headers: bearer(ADMIN_TOKEN) });
      const initial = ((await settings.json()) as { currency?: string }).currency ?? null;
      // Any case: the website's currency is compared upper-cased, as purchases' codes are stored.
      expect((await patch({ currency: 'eur' })).status).toBe(200);
      try {
        const before = await attribution();
        const searchedBefore = await searches();
        const page = await search({ q: 'zanzibar', size: 3 });
        const refId = page.payload.result[0]!.refId;
        const session = randomUUID();
        const clickId = randomUUID();
        expect((await post(`${url}${CLICKS}`, clickBody([{ refId, queryId: page.query_id, position: 1, clickId }], session), bearer(TOKEN_A))).status).toBe(202);
        const order = (orderId: string, currencyCode: string | undefined, price: number) => post(`${url}/3.0/events/purchases`, {
          customerId: CUSTOMER, sessionId: session, events: [{
            currentUrl: 'https://shop-a.example/thanks', eventTime: new Date().toISOString(), orderId, ...(currencyCode !== undefined && { currencyCode }),
            products: [{ refId, quantity: 1, price, clickId }], priceBeatPromotions: [{ code: `CUR-${orderId}`, discount: price / 10 }],
          }],
        }, bearer(TOKEN_A));
        expect((await order(`eur-${session}`, 'EUR', 10)).status).toBe(202);
        expect((await order(`usd-${session}`, 'USD', 1000)).status).toBe(202);
        expect((await order(`none-${session}`, undefined, 5)).status).toBe(202); // no code: the website's currency
        const report = await attribution();
        expect(report.currency).toBe('EUR');
        // 10 EUR and 5 in no stated currency: 1,015 added EUR to USD.
        expect(report.totals.revenue - before.totals.revenue).toBeCloseTo(15, 6);
        expect(report.totals.clickAttributedRevenue - before.totals.clickAttributedRevenue).toBeCloseTo(15, 6);
        expect(report.totals.orders - before.totals.orders).toBe(3);
        expect(report.otherCurrencies).toEqual([{ currency: 'USD', orders: 1, units: 1, revenue: 1000, attributedRevenue: 1000 }]);
        expect(report.priceBeat.find((p) => p.code === `CUR-usd-${session}`)).toMatchObject({ orders: 1, discount: 0 });
        // The searches report's roll-ups likewise: three conversions, 15 of revenue.
        const searched = await searches();
        expect(searched.conversions - searchedBefore.conversions).toBe(3);
        expect(searched.revenue - searchedBefore.revenue).toBeCloseTo(15, 6);
        // Without a currency every purchase's money is added, as before currencies were told apart (a shop
        // stating EUR on every purchase must not see its revenue vanish on an upgrade): the report says
        // so with currency null.
        expect((await patch({ currency: null })).status).toBe(200);
        const unset = await attribution();
        expect(unset.currency).toBeNull();
        expect(unset.otherCurrencies).toEqual([]);
        expect(unset.totals.revenue - before.totals.revenue).toBeCloseTo(1015, 6);
        expect((await patch({ currency: 'USD' })).status).toBe(200);
        expect((await attribution()).otherCurrencies).toEqual([{ currency: 'EUR', orders: 1, units: 1, revenue: 10, attributedRevenue: 10 }]);
        expect((await patch({ currency: 'EURO' })).status).toBe(400);
      } finally {
        expect((await patch({ currency: initial })).status).toBe(200);
      }
    });

    it('refuses a clickId sent again with other content (409, nothing of the request stored), as an orderId is', async () => {
      // It answered 202 with the first transactionId and stored nothing: a status that claimed a click.
      const page = await search({ q: 'zanzibar', size: 3 });
      const [a, b] = page.payload.result;
      const clickId = randomUUID();
      const first = clickBody([{ refId: a!.refId, queryId: page.query_id, position: 1, clickId }]);
      expect((await post(`${url}${CLICKS}`, first, bearer(TOKEN_A))).status).toBe(202);
      const before = outcomes.length;
      const fresh = randomUUID();
      const other = clickBody([
        { refId: b!.refId, queryId: page.query_id, position: 2, clickId: fresh },
        { refId: b!.refId, queryId: page.query_id, position: 2, clickId },
      ]);
      const refused = await post(`${url}${CLICKS}`, other, bearer(TOKEN_A));
      expect(refused.status).toBe(409);
      const problem = (await expectDocumented(refused, CLICKS, 'POST')) as { errors: Record<string, string[]> };
      expect(Object.keys(problem.errors)).toEqual(['events[1].ClickId']);
      expect(problem.errors['events[1].ClickId']![0]).toMatch(/already recorded \(transactionId [0-9a-f-]{36}\) with other content; .* Nothing of this request was stored\./);
      expect(outcomes.length).toBe(before);
      // Nothing of it was stored: the fresh clickId of the refused request is new to the store.
      const again = await post(`${url}${CLICKS}`, clickBody([{ refId: b!.refId, queryId: page.query_id, position: 2, clickId: fresh }]), bearer(TOKEN_A));
      expect(again.status).toBe(202);
      expect(outcomes.length).toBe(before + 1);
      // The same content again is still a replay: 202, the first transactionId, nothing stored twice.
      const replay = await post(`${url}${CLICKS}`, first, bearer(TOKEN_A));
      expect(replay.status).toBe(202);
      expect(outcomes.length).toBe(before + 1);
      // Two clicks of one request with one clickId and different content conflict with each other.
      const inRequest = randomUUID();
      const twice = clickBody([
        { refId: a!.refId, queryId: page.query_id, position: 1, clickId: inRequest },
        { refId: b!.refId, queryId: page.query_id, position: 2, clickId: inRequest },
      ]);
      expect((await post(`${url}${CLICKS}`, twice, bearer(TOKEN_A))).status).toBe(409);
    });
  });
}

runClicksSuite('embedded store', async () => ({ dataDir: mkdtempSync(path.join(tmp, 'embedded-')) }));
runClicksSuite('PostgreSQL', async () => {
  await requirePostgres();
  return { store: { type: 'postgres', url: TEST_PG_URL, schema: schemas.next() } };
});
