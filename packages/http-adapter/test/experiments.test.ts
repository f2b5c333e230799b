/**
 * Experiments over real sockets, on the embedded store (SQLite in a data directory) and on PostgreSQL:
 * the API's validation edges (nothing stored after a 400), one experiment not stopped per kind (409),
 * sticky assignment and the response tags, search variants served under their merged settings,
 * clicks and purchases counted per user in the report (search-as-you-type chains once), recommendation
 * cascades per variant with per-tactic counts, team-draft interleaving with clicks credited to the
 * ranking that placed the item, stop and delete. Two replicas agreeing on assignments and reports are
 * in replicas.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, type Engine, type EngineOptions, type ExperimentReport } from '@aisle/engine';
import { generateInteractions } from '@aisle/engine/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ADMIN_TOKEN, SITE_A, SITE_B, TOKEN_A, bearer, expectDocumented, post, serveEngine, testProducts } from './helpers.js';

const EXPERIMENTS = '/admin/v1/websites/{websiteId}/experiments';
const EXPERIMENT = '/admin/v1/websites/{websiteId}/experiments/{experimentId}';
const STOP = '/admin/v1/websites/{websiteId}/experiments/{experimentId}/stop';
const SEARCH = '/v1.4/search';

type Problem = { status: number; errors: Record<string, string[]> };
type SearchAnswer = { query_id: string; payload: { result: { refId: string }[]; redirects: { url?: string } }; settings?: { experiment?: { id: string; variant: string } } };
type Recommended = { queryId: string; payload: string[]; slots: { refId: string; tacticLabel: string; tacticId: string }[]; experiment?: { id: string; variant: string } };
type Created = { id: string; status: string; kind: string; method: string; variants: { name: string; weight: number }[] };

const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-experiments-'));
const schemas = new TestSchemas();
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await schemas.dropAll();
});

/** A search variant whose settings are visible in every answer to "zanzibar": a redirect. */
const REDIRECTING = { name: 'redirect', settings: { redirects: [{ queries: ['zanzibar'], url: '/zanzibar-shop' }] } };

function runExperimentsSuite(name: string, storeOptions: () => Promise<Pick<EngineOptions, 'dataDir' | 'store'>>): void {
  describe(`experiments over HTTP: ${name}`, () => {
    let engine: Engine;
    let served: Awaited<ReturnType<typeof serveEngine>>;
    let url: string;

    beforeAll(async () => {
      engine = await createEngine({ workers: 0, websites: [SITE_A, SITE_B], adminTokens: [ADMIN_TOKEN], ...(await storeOptions()) });
      const products = testProducts();
      await engine.upsertProducts('site-a', products);
      await engine.upsertProducts('site-b', products.slice(0, 50));
      const { views, purchases } = generateInteractions({ products, sessions: 150, seed: 7 });
      for (const body of views) await engine.recordViews('site-a', body);
      for (const body of purchases) await engine.recordPurchases('site-a', body);
      served = await serveEngine(engine, { adminTokens: [ADMIN_TOKEN] });
      url = served.url;
    });
    afterAll(async () => {
      await served?.close();
      await engine?.close();
    });

    const admin = (p: string) => `${url}/admin/v1/websites/site-a/experiments${p}`;
    const create = (body: unknown) => post(admin(''), body, bearer(ADMIN_TOKEN));
    const stop = (id: string) => post(admin(`/${id}/stop`), '', bearer(ADMIN_TOKEN));
    const remove = (id: string) => fetch(admin(`/${id}`), { method: 'DELETE', headers: bearer(ADMIN_TOKEN) });
    async function report(id: string): Promise<ExperimentReport> {
      const res = await fetch(admin(`/${id}`), { headers: bearer(ADMIN_TOKEN) });
      expect(res.status).toBe(200);
      return (await expectDocumented(res, EXPERIMENT, 'GET')) as ExperimentReport;
    }
    async function search(body: Record<string, unknown>): Promise<SearchAnswer> {
      const res = await post(`${url}${SEARCH}`, { website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0, ...body }, bearer(TOKEN_A));
      expect(res.status).toBe(200);
      return (await expectDocumented(res, SEARCH, 'POST')) as SearchAnswer;
    }
    async function click(customerId: string, queryId: string, refId: string, position: number, clickId = randomUUID(), tacticId?: string): Promise<void> {
      const res = await post(`${url}/3.0/events/clicks`, {
        customerId, sessionId: customerId, events: [{ eventTime: new Date().toISOString(), type: 'click', refId, queryId, position, clickId, ...(tacticId !== undefined && { tacticId }) }],
      }, bearer(TOKEN_A));
      expect(res.status, await res.clone().text()).toBe(202);
    }
    async function buy(customerId: string, refId: string, clickId: string, price: number): Promise<void> {
      const res = await post(`${url}/3.0/events/purchases`, {
        customerId, sessionId: customerId,
        events: [{ currentUrl: 'https://shop-a.example/thanks', eventTime: new Date().toISOString(), orderId: `o-${clickId}`, products: [{ refId, quantity: 1, price, clickId }] }],
      }, bearer(TOKEN_A));
      expect(res.status).toBe(202);
    }
    async function expectRefused(body: unknown, status: number, field: string): Promise<void> {
      const res = await create(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(status);
      const problem = (await expectDocumented(res, EXPERIMENTS, 'POST')) as Problem;
      // Problem keys name the last segment as the wire's problem details do (PascalCase).
      expect(Object.keys(problem.errors).map((k) => k.toLowerCase()), JSON.stringify(problem.errors)).toContain(field.toLowerCase());
    }

    it('refuses bad experiments with the field named, and stores nothing', async () => {
      const ok = { name: 'x', kind: 'search', variants: [{ name: 'control' }, REDIRECTING] };
      await expectRefused({ ...ok, colour: 'red' }, 400, 'colour');
      await expectRefused({ ...ok, variants: [{ name: 'control' }] }, 400, 'variants');
      await expectRefused({ ...ok, variants: Array.from({ length: 11 }, (_, i) => ({ name: `v${i}` })) }, 400, 'variants');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', weight: 0 }] }, 400, 'variants[1].weight');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', weight: -1 }] }, 400, 'variants[1].weight');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', weight: '2' }] }, 400, 'variants[1].weight');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'control' }] }, 400, 'variants[1].name');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'interleaved' }] }, 400, 'variants[1].name');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b\u0000c' }] }, 400, 'variants[1].name');
      await expectRefused({ ...ok, variants: [{ name: 'control', settings: {} }, REDIRECTING] }, 400, 'variants[0]');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { fieldWeights: { title: 'heavy' } } }] }, 400, 'variants[1].settings.fieldWeights.title');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { colour: 1 } }] }, 400, 'variants[1].settings.colour');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { fields: { price: { type: 'number' } } } }] }, 400, 'variants[1].settings.fields');
      // What the settings API refuses as given, a variant refuses too (decision 0092): a weight on a field
      // never indexed for full text was taken (201) and its shoppers were served as the control's.
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { fieldWeights: { refId: 5 } } }] }, 400, 'variants[1].settings.fieldWeights.refId');
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { synonyms: [['™', 'chair']] } }] }, 400, 'variants[1].settings.synonyms[0][0]');
      // The settings check's field is the refusal's, named once in its message (it was named twice).
      const refused = await create({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { fieldWeights: { title: 'heavy' } } }] });
      const messages = Object.values(((await refused.json()) as Problem).errors).flat();
      expect(messages).toEqual([expect.stringMatching(/^experiment: variants\[1\]\.settings\.fieldWeights\.title .+ \(merged over the website's settings\)$/)]);
      expect(messages[0]!.split('variants[1]').length).toBe(2);
      // Settings no search reads were taken (201), and the variant's shoppers were served exactly as the control's.
      for (const [key, value] of [['cors', { origins: ['https://other.example'] }], ['attributionWindowDays', 7], ['currency', 'USD'], ['eventRetentionDays', { clicks: 30 }], ['retailMedia', { adSets: [] }], ['retailBoost', { collections: [] }], ['useStyleIdForVisualSimilarity', true]] as const) {
        await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', settings: { [key]: value } }] }, 400, `variants[1].settings.${key}`);
      }
      await expectRefused({ ...ok, variants: [{ name: 'control' }, { name: 'b', recommendations: { PopularItems: { tactics: ['Popular Items'] } } }] }, 400, 'variants[1].recommendations');
      const rec = { name: 'r', kind: 'recommendations', variants: [{ name: 'control' }, { name: 'b', recommendations: { ProductDetail: { tactics: ['Popular Items'] } } }] };
      await expectRefused({ ...rec, variants: [{ name: 'control' }, { name: 'b', recommendations: { NoSuchMethod: { tactics: ['Popular Items'] } } }] }, 400, 'variants[1].recommendations.NoSuchMethod');
      await expectRefused({ ...rec, variants: [{ name: 'control' }, { name: 'b', recommendations: { ProductDetail: { tactics: ['Popular Items', 'Most Loved'] } } }] }, 400, 'variants[1].recommendations.ProductDetail.tactics[1]');
      await expectRefused({ ...rec, variants: [{ name: 'control' }, { name: 'b', recommendations: { ProductDetail: { tactics: [] } } }] }, 400, 'variants[1].recommendations.ProductDetail.tactics');
      await expectRefused({ ...rec, variants: [{ name: 'control' }, REDIRECTING] }, 400, 'variants[1].settings');
      await expectRefused({ ...ok, method: 'interleaving', variants: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, 400, 'variants');
      await expectRefused({ ...rec, method: 'interleaving' }, 400, 'method');
      await expectRefused({ ...ok, until: new Date(Date.now() - 1000).toISOString() }, 400, 'until');
      await expectRefused({ ...ok, from: new Date(Date.now() + 86_400_000).toISOString(), until: new Date(Date.now() + 3_600_000).toISOString() }, 400, 'until');
      await expectRefused({ ...ok, from: 'yesterday' }, 400, 'from');
      await expectRefused({ ...ok, name: ' ' }, 400, 'name');
      // Text a store cannot hold: on PostgreSQL a NUL was stored (201) and an unpaired surrogate failed
      // the store (503 "unsupported Unicode escape sequence"); both are now 400 on every store.
      await expectRefused({ ...ok, name: 'a\u0000b' }, 400, 'name');
      const surrogate = await post(admin(''), JSON.stringify({ ...ok, name: 'a?' }).replace('a?', 'a\\ud800'), { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' });
      expect(surrogate.status).toBe(400);
      expect(((await expectDocumented(surrogate, EXPERIMENTS, 'POST')) as Problem).errors).toEqual({ name: ['experiment: name must not contain control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates'] });
      // Other control characters (C0, DEL, C1) were taken in the experiment's name (201) and, but for C0, in
      // variant names: invisible in the dashboard and in logs, and a variant name is a key of the roll-ups.
      for (const control of ['\u0001', '\u001f', '\u007f', '\u0085', '\u009f']) {
        for (const [body, field] of [[{ ...ok, name: `a${control}b` }, 'name'], [{ ...ok, variants: [{ name: 'control' }, { name: `b${control}` }] }, 'variants[1].name']] as const) {
          const res = await create(body);
          expect(res.status, JSON.stringify(body)).toBe(400);
          expect(((await expectDocumented(res, EXPERIMENTS, 'POST')) as Problem).errors[field === 'name' ? 'name' : 'variants[1].Name']).toEqual([
            `experiment: ${field} must not contain control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates`,
          ]);
        }
      }
      await expectRefused([ok], 400, '(body)');
      const list = await fetch(admin(''), { headers: bearer(ADMIN_TOKEN) });
      expect(((await expectDocumented(list, EXPERIMENTS, 'GET')) as { experiments: unknown[] }).experiments).toEqual([]);
      const unknown = await fetch(admin('/exp_nope'), { headers: bearer(ADMIN_TOKEN) });
      expect(unknown.status).toBe(404);
      await expectDocumented(unknown, EXPERIMENT, 'GET');
      // An id no experiment can have names none: on PostgreSQL stop and delete answered 503 "the store failed".
      const stopNul = await post(admin('/exp_%00/stop'), '', bearer(ADMIN_TOKEN));
      expect(stopNul.status).toBe(404);
      await expectDocumented(stopNul, STOP, 'POST');
      expect((await fetch(admin('/exp_%00'), { method: 'DELETE', headers: bearer(ADMIN_TOKEN) })).status).toBe(404);
      expect((await fetch(`${url}/admin/v1/websites/site-a/experiments`, { headers: bearer(TOKEN_A) })).status).toBe(401);
    });

    it('starts an experiment whose from is past when it is created, and says so', async () => {
      // The answer and the report said assignment started in 2020: nobody was assigned before the creation.
      const res = await create({ name: 'late', kind: 'search', variants: [{ name: 'control' }, { name: 'b' }], from: '2020-01-01T00:00:00Z' });
      expect(res.status).toBe(201);
      const created = (await expectDocumented(res, EXPERIMENTS, 'POST')) as Created & { from: string; createdAt: string };
      expect(created.from).toBe(created.createdAt);
      expect((await report(created.id)).from).toBe(created.createdAt);
      expect((await stop(created.id)).status).toBe(200);
    });

    it('assigns a customer GUID whatever its case: one shopper, one variant, one user', async () => {
      const created = (await (await create({ name: 'case', kind: 'search', variants: [{ name: 'control' }, { name: 'b' }] })).json()) as Created;
      try {
        const customers = Array.from({ length: 24 }, () => randomUUID());
        for (const customerId of customers) {
          // A storefront whose search sends the GUID in capitals and whose other calls send it in lower case (GUIDs are found whatever their case).
          const lower = (await search({ customer_id: customerId })).settings!.experiment;
          const upper = (await search({ customer_id: customerId.toUpperCase(), q: 'zanzibar espresso' })).settings!.experiment;
          // It was hashed as sent: about half of the shoppers saw both variants.
          expect(upper).toEqual(lower);
        }
        // Counted once per shopper (it was one user per spelling).
        const r = await report(created.id);
        expect(r.variants.reduce((n, v) => n + v.users, 0)).toBe(customers.length);
      } finally {
        expect((await stop(created.id)).status).toBe(200);
      }
    });

    it('runs a search A/B test: sticky tags, variant settings served, clicks and purchases counted per user, stop and delete', async () => {
      // Unicode names are kept as given.
      const res = await create({ name: 'Redirect zanzibar ☕', kind: 'search', variants: [{ name: 'control' }, REDIRECTING] });
      expect(res.status).toBe(201);
      const created = (await expectDocumented(res, EXPERIMENTS, 'POST')) as Created;
      expect(created).toMatchObject({ status: 'running', kind: 'search', method: 'ab', variants: [{ name: 'control', weight: 1 }, { name: 'redirect', weight: 1 }] });
      const second = await create({ name: 'another', kind: 'search', variants: [{ name: 'control' }, { name: 'b' }] });
      expect(second.status).toBe(409);
      await expectDocumented(second, EXPERIMENTS, 'POST');

      // No customer: the control, no tag.
      const anonymous = await search({});
      expect(anonymous.settings?.experiment).toBeUndefined();
      expect(anonymous.payload.redirects.url).toBeUndefined();

      // Events name customers by GUID; a search names the same customer.
      const customers = Array.from({ length: 40 }, () => randomUUID());
      const variantOf = new Map<string, string>();
      let clicks = 0;
      let revenue = 0;
      for (const [i, customerId] of customers.entries()) {
        const page = await search({ customer_id: customerId });
        const tag = page.settings!.experiment!;
        expect(tag.id).toBe(created.id);
        variantOf.set(customerId, tag.variant);
        // The variant's settings are in force for its customers only.
        expect(page.payload.redirects.url).toBe(tag.variant === 'redirect' ? '/zanzibar-shop' : undefined);
        // Sticky: the same customer, the same variant.
        expect((await search({ customer_id: customerId })).settings!.experiment).toEqual(tag);
        if (i % 3 === 0) {
          const clickId = randomUUID();
          await click(customerId, page.query_id, page.payload.result[0]!.refId, 1, clickId);
          clicks++;
          if (i % 2 === 0) {
            await buy(customerId, page.payload.result[0]!.refId, clickId, 10);
            revenue += 10;
          }
        }
      }
      expect(new Set(variantOf.values())).toEqual(new Set(['control', 'redirect']));
      // A search-as-you-type chain of one session counts once.
      const typist = randomUUID();
      for (const q of ['z', 'za', 'zanz', 'zanzibar']) await search({ customer_id: typist, q });
      variantOf.set(typist, (await search({ customer_id: typist, q: 'zanzibar', start: 1 })).settings!.experiment!.variant);

      const r = await report(created.id);
      expect(r).toMatchObject({ id: created.id, status: 'running', kind: 'search', method: 'ab' });
      const users = (v: string) => [...variantOf.values()].filter((x) => x === v).length;
      for (const v of r.variants) {
        expect(v.users).toBe(users(v.name));
        // One search per customer: a repeated query of one session within seconds is one search-as-you-type
        // chain, as is the typist's "z" … "zanzibar"; a second page is no search.
        expect(v.searches).toBe(users(v.name));
        expect(v.ctr.low!).toBeLessThanOrEqual(v.ctr.value!);
        expect(v.ctr.high!).toBeGreaterThanOrEqual(v.ctr.value!);
        // Every figure names its interval's method (the report gave bare numbers, and the mean's was the
        // normal one: too narrow for the small variants a report shows early on).
        expect([v.ctr.interval, v.conversionRate.interval, v.revenuePerUser.interval]).toEqual([
          'Wilson score interval on the effective number of searches (per-user design effect; 95 %)', 'Wilson score interval (95 %)', "Student's t interval of the mean (95 %)",
        ]);
      }
      expect(r.variants.reduce((s, v) => s + v.clicks, 0)).toBe(clicks);
      expect(r.variants.reduce((s, v) => s + v.conversions, 0)).toBe(revenue / 10);
      expect(r.variants.reduce((s, v) => s + v.revenue, 0)).toBeCloseTo(revenue, 6);
      expect(r.variants[0]!.vsControl).toBeUndefined();
      const vs = r.variants[1]!.vsControl!;
      expect(vs.ctr.test).toBe("Welch's t test (two-sided) on the ratio of sums, delta-method variance over users");
      // The comparison is of the ctrs shown (it compared the means of the users' own CTRs under the same name).
      const [control, variant] = r.variants;
      if (vs.ctr.relativeDifference !== null) expect(vs.ctr.relativeDifference).toBeCloseTo(variant!.ctr.value! / control!.ctr.value! - 1, 12);
      expect(vs.conversionRate.test).toMatch(/two-proportion z/);
      expect(vs.revenuePerUser.test).toMatch(/Welch/);
      for (const metric of ['ctr', 'conversionRate', 'revenuePerUser'] as const) expect(vs[metric].interval).toMatch(/^(delta method on the log ratio|MOVER-R)/);
      // Twenty users a variant are far below any horizon: never "significant".
      expect([vs.ctr.significant, vs.conversionRate.significant, vs.revenuePerUser.significant]).toEqual([false, false, false]);
      if (r.minUsers.ctr !== null) expect(r.minUsers.ctr).toBeGreaterThan(20);

      expect((await remove(created.id)).status).toBe(409);
      const stopped = await stop(created.id);
      expect(stopped.status).toBe(200);
      expect(((await expectDocumented(stopped, STOP, 'POST')) as Created).status).toBe('stopped');
      // Stopping again answers it unchanged.
      expect(((await (await stop(created.id)).json()) as Created).status).toBe('stopped');
      expect((await search({ customer_id: customers[0] })).settings?.experiment).toBeUndefined();
      const deleted = await remove(created.id);
      expect(deleted.status).toBe(204);
      expect((await fetch(admin(`/${created.id}`), { headers: bearer(ADMIN_TOKEN) })).status).toBe(404);
      expect((await stop(created.id)).status).toBe(404);
    });

    it('says what it cannot compare: a control with no click or purchase has no relative difference, the reason beside it (decision 0073)', async () => {
      const created = (await (await create({ name: 'control at zero', kind: 'search', variants: [{ name: 'control' }, { name: 'b' }] })).json()) as Created;
      // Only the variant's customers click and buy: the control's CTR and conversion rate stay at 0.
      for (let i = 0; i < 30; i++) {
        const customerId = randomUUID();
        const page = await search({ customer_id: customerId });
        if (page.settings!.experiment!.variant !== 'b') continue;
        const clickId = randomUUID();
        await click(customerId, page.query_id, page.payload.result[0]!.refId, 1, clickId);
        await buy(customerId, page.payload.result[0]!.refId, clickId, 10);
      }
      const r = await report(created.id);
      const [control, variant] = r.variants;
      expect(control!.users).toBeGreaterThanOrEqual(2);
      expect(variant!.users).toBeGreaterThanOrEqual(2);
      expect(control!.conversionRate.value).toBe(0);
      expect(variant!.conversionRate.value).toBe(1);
      expect(r.minUsers).toEqual({ ctr: null, conversionRate: null });
      const vs = variant!.vsControl!;
      for (const [metric, noun] of [['ctr', 'rate'], ['conversionRate', 'rate'], ['revenuePerUser', 'mean']] as const) {
        expect(vs[metric]).toMatchObject({ relativeDifference: null, low: null, high: null, significant: false });
        expect(vs[metric].note).toContain(`The control's ${noun} is 0`);
      }
      // The two-proportion test is defined with the control at 0 (every variant user converted, no control user did).
      expect(vs.conversionRate.pValue).toBeLessThan(0.05);
      expect(((await (await stop(created.id)).json()) as Created).status).toBe('stopped');
    });

    it('reports a variant without users with null figures, not 0 with an interval of no width, and a single user\'s mean without one', async () => {
      // Every customer in the control (weights 1000 : tiny): the variant's CTR read {value: 0, low: 0, high: 0}.
      const created = (await (await create({ name: 'no users', kind: 'search', variants: [{ name: 'control', weight: 1000 }, { name: 'b', weight: 0.001 }] })).json()) as Created;
      const customerId = randomUUID();
      expect((await search({ customer_id: customerId })).settings!.experiment).toEqual({ id: created.id, variant: 'control' });
      const r = await report(created.id);
      const [control, variant] = r.variants;
      expect(variant).toMatchObject({ users: 0, ctr: { value: null, low: null, high: null }, conversionRate: { value: null, low: null, high: null }, revenuePerUser: { value: null, low: null, high: null } });
      expect(control!.users).toBe(1);
      expect(control!.ctr.value).toBe(0);
      expect(control!.ctr.high!).toBeGreaterThan(0);
      expect(control!.revenuePerUser).toEqual({ value: 0, low: null, high: null, interval: "Student's t interval of the mean (95 %)" });
      expect(variant!.vsControl!.ctr).toMatchObject({ relativeDifference: null, pValue: null, significant: false });
      expect((await stop(created.id)).status).toBe(200);
    });

    it('runs a recommendations experiment: the variant\'s cascade for the methods it names, served and clicks per tactic', async () => {
      const res = await create({ name: 'popular first', kind: 'recommendations', variants: [{ name: 'control', weight: 1 }, { name: 'popular', weight: 3, recommendations: { productdetail: { tactics: ['Popular Items'] } } }] });
      expect(res.status).toBe(201);
      const created = (await res.json()) as Created;
      const productRef = testProducts()[0]!.refId;
      let popularClicks = 0;
      const variants = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const customerId = randomUUID();
        const r = await fetch(`${url}/1.0/ClientRecom/site-a/ProductDetail?productRef=${encodeURIComponent(productRef)}&customerId=${customerId}&count=5`);
        const list = (await expectDocumented(r, '/1.0/ClientRecom/{website_id}/ProductDetail', 'GET')) as Recommended;
        expect(list.experiment?.id).toBe(created.id);
        variants.add(list.experiment!.variant);
        if (list.experiment!.variant === 'popular') expect(new Set(list.slots.map((s) => s.tacticLabel))).toEqual(new Set(['Popular Items']));
        // A method the variant does not name keeps its own cascade, tagged all the same.
        const other = (await (await fetch(`${url}/1.0/ClientRecom/site-a/PopularItems?customerId=${customerId}`)).json()) as Recommended;
        expect(other.experiment).toEqual(list.experiment);
        if (list.experiment!.variant === 'popular' && list.slots.length > 0) {
          await click(customerId, list.queryId, list.slots[0]!.refId, 1, randomUUID(), list.slots[0]!.tacticId);
          popularClicks++;
        }
      }
      expect(variants).toEqual(new Set(['control', 'popular']));
      const r = await report(created.id);
      const popular = r.variants.find((v) => v.name === 'popular')!;
      expect(popular.served).toBeGreaterThan(0);
      expect(popular.clicks).toBe(popularClicks);
      const tactic = popular.tactics!.find((t) => t.tactic === 'Popular Items')!;
      expect(tactic.clicks).toBe(popularClicks);
      expect(tactic.served).toBeGreaterThan(0);
      expect(r.variants[0]!.tactics!.length).toBeGreaterThan(0);
      expect((await stop(created.id)).status).toBe(200);
    });

    it('reports an interleaving experiment without preferring users with a null p-value and a note, not p = 1', async () => {
      const res = await create({
        name: 'quiet', kind: 'search', method: 'interleaving',
        variants: [{ name: 'current' }, { name: 'synonym', settings: { synonyms: [['zanzibar', 'unguja']] } }],
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as Created;
      for (let i = 0; i < 3; i++) await search({ customer_id: randomUUID() });
      const r = await report(created.id);
      expect(r.interleaving).toEqual({
        credits: { current: 0, synonym: 0 }, users: 3, preferring: { current: 0, synonym: 0 }, preferred: null,
        pValue: null, test: expect.stringMatching(/sign test/), note: expect.stringMatching(/no user preferred either ranking/),
      });
      expect((await stop(created.id)).status).toBe(200);
    });

    it('runs an interleaving experiment: every answer interleaved, clicks credited to the ranking that placed the item, a sign test', async () => {
      const control = await search({});
      const top = control.payload.result[0]!.refId;
      const pinned = control.payload.result.find((p) => p.refId !== top)!.refId;
      const res = await create({
        name: 'pin', kind: 'search', method: 'interleaving',
        variants: [{ name: 'current' }, { name: 'pinned', settings: { rules: [{ id: 'p', query: 'zanzibar', pin: [{ refId: pinned, position: 1 }] }] } }],
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as Created;
      const credits = { current: 0, pinned: 0 };
      for (let i = 0; i < 24; i++) {
        const customerId = randomUUID();
        const page = await search({ customer_id: customerId });
        expect(page.settings!.experiment).toEqual({ id: created.id, variant: 'interleaved' });
        const first = page.payload.result[0]!.refId;
        // The first position is one ranking's best: the team that placed it is known.
        expect([top, pinned]).toContain(first);
        expect(new Set(page.payload.result.map((p) => p.refId)).size).toBe(page.payload.result.length);
        await click(customerId, page.query_id, first, 1);
        credits[first === top ? 'current' : 'pinned']++;
      }
      const r = await report(created.id);
      expect(r.variants).toEqual([]);
      expect(r.interleaving).toMatchObject({ credits, users: 24, preferring: credits, test: expect.stringMatching(/sign test/) });
      expect(r.interleaving!.pValue).toBeGreaterThan(0);
      expect(r.interleaving!.pValue).toBeLessThanOrEqual(1);
      expect((await stop(created.id)).status).toBe(200);
    });
  });
}

runExperimentsSuite('embedded store', async () => ({ dataDir: mkdtempSync(path.join(tmp, 'embedded-')) }));
runExperimentsSuite('PostgreSQL', async () => {
  await requirePostgres();
  return { store: { type: 'postgres', url: TEST_PG_URL, schema: schemas.next() } };
});
