/**
 * Result ids, clicks and conversions through the engine (memory store): every answered list gets an
 * id, clicks naming it are checked against it, stored once per clickId, and purchases convert them
 * (the analytics hook and the attribution report agree).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { StoreConfig } from '../contract/config-schema.js';
import { requirePostgres, TEST_PG_URL, TestSchemas } from '../store/pg-test-env.js';
import type { Engine } from '../engine-api.js';
import { ValidationError } from '../errors.js';
import type { ClickOutcome } from '../events/click-attribution.js';
import type { Product } from '../types.js';
import { badInput } from '../__tests__/bad-input.js';

const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
const siteB = { websiteId: 'site-b', client: 'client-b', tokens: ['token-b'], hmacSecret: 'secret-b' };
const customer = '0f8fad5b-d9cb-469f-a165-70867728950e';
const session = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const clickId = 'a3bb189e-8bf9-4888-9912-ace4e6543002';
const tactic = '44444444-4444-4444-8444-444444444444';

const products: Product[] = Array.from({ length: 30 }, (_, i) => ({ refId: `p${i + 1}`, title: `Red shoe ${i + 1}`, price: 10 + i }));

type ClicksBody = Parameters<Engine['recordClicks']>[1];

/** A clicks body built from loose records: some tests send invalid events or fields on purpose. */
function clicks(events: Record<string, unknown>[], extra: Record<string, unknown> = {}): ClicksBody {
  return badInput({ customerId: customer, sessionId: session, events, ...extra });
}

function click(extra: Record<string, unknown>): Record<string, unknown> {
  return { eventTime: '2026-11-20T10:00:00Z', refId: 'p1', type: 'click', ...extra };
}

async function problemOf(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ValidationError) return err.problem.errors;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('result ids, clicks and conversions', () => {
  const engines: Engine[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.close()));
  });

  async function open(outcomes: ClickOutcome[] = []): Promise<Engine> {
    const engine = await createEngine({ workers: 0, websites: [site, siteB], onClickOutcome: (o) => outcomes.push(o) });
    engines.push(engine);
    await engine.upsertProducts('site-a', products);
    await engine.upsertProducts('site-b', products);
    return engine;
  }

  it('gives every search page, recommendation and bundle response its own id', async () => {
    const engine = await open();
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red', start: 0 })).query_id);
    ids.add((await engine.recommend('site-a', 'PopularItems', {})).queryId);
    ids.add((await engine.bundles('site-a', { product_ref_ids: ['p1'] })).queryId);
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{11}\.[0-9a-z]{1,3}$/);
  });

  it('accepts a click at the position the page held it (1-based over the whole list) and reports it to the hook', async () => {
    const outcomes: ClickOutcome[] = [];
    const engine = await open(outcomes);
    const page = await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red shoe', start: 20, size: 5, session_id: 'tab-7' });
    const third = page.payload.result[2]!.refId;
    const ack = await engine.recordClicks('site-a', clicks([click({ refId: third, queryId: page.query_id, position: 23, tacticId: tactic })]));
    expect(ack.status).toBe('Accepted');
    expect(outcomes).toEqual([{
      websiteId: 'site-a', at: Date.parse('2026-11-20T10:00:00Z'), kind: 'search', queryId: page.query_id, query: 'red shoe', variant: null, type: 'click', tacticId: tactic, position: 23,
    }]);
    const errors = await problemOf(engine.recordClicks('site-a', clicks([click({ refId: third, queryId: page.query_id, position: 22 })])));
    expect(errors).toEqual({ 'events[0].Position': [`The result list of QueryId did not hold RefId "${third}" at position 22.`] });
  });

  it('lists every failure: schema, unknown ids, ids of another website, wrong positions; and stores nothing', async () => {
    const outcomes: ClickOutcome[] = [];
    const engine = await open(outcomes);
    const mine = await engine.recommend('site-a', 'PopularItems', { count: 3 });
    const theirs = await engine.search({ website_id: 'site-b', client: 'client-b', q: 'red', start: 0 });
    const page = await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red', start: 0 });
    const errors = await problemOf(engine.recordClicks('site-a', clicks([
      click({ queryId: theirs.query_id, position: 1 }),
      click({ queryId: 'never-issued', position: 1 }),
      click({ queryId: mine.queryId }),
      click({ type: 'hover', refId: '' }),
      click({ queryId: page.query_id, position: 1, refId: page.payload.result[1]!.refId }),
      click({ queryId: mine.queryId, position: 0, clickId: 'not-a-guid' }),
    ], { sessionId: 'nope' })));
    expect(Object.keys(errors).sort()).toEqual([
      'events[0].QueryId', 'events[1].QueryId', 'events[2].Position', 'events[3].RefId', 'events[3].Type', 'events[4].Position',
      'events[5].ClickId', 'events[5].Position', 'sessionId',
    ]);
    expect(errors['events[0].QueryId']![0]).toMatch(/not issued for this website/);
    expect(errors['events[2].Position']).toEqual(['The Position field is required.']);
    // Position 0: the schema's message only (the list is not asked about a position that cannot be).
    expect(errors['events[5].Position']).toHaveLength(1);
    expect(outcomes).toEqual([]);
    expect(await problemOf(engine.recordClicks('site-a', clicks([])))).toHaveProperty('events');
    const tooMany = Array.from({ length: 101 }, () => click({}));
    expect(await problemOf(engine.recordClicks('site-a', clicks(tooMany)))).toHaveProperty('events');
  });

  it('stores a clickId once, and converts the purchase of a product naming it, or the session\'s latest click on it', async () => {
    const outcomes: ClickOutcome[] = [];
    const engine = await open(outcomes);
    // An earlier order makes p29 popular (so PopularItems lists it).
    await engine.recordPurchases('site-a', {
      customerId: customer, sessionId: customer,
      events: [{ currentUrl: 'https://shop.example/thanks', eventTime: '2026-11-19T11:00:00Z', orderId: 'o-0', products: [{ refId: 'p29', quantity: 1, price: 1 }] }],
    });
    const page = await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red', start: 0, size: 10 });
    const rec = await engine.recommend('site-a', 'PopularItems', { count: 5 });
    expect(rec.payload[0]).toBe('p29');
    const [first, second] = page.payload.result.map((p) => p.refId);
    const body = clicks([click({ refId: first, queryId: page.query_id, position: 1, clickId })]);
    const ack = await engine.recordClicks('site-a', body);
    expect(await engine.recordClicks('site-a', body)).toEqual(ack);
    // A later click on the same product from the recommendation, and an earlier one from search.
    await engine.recordClicks('site-a', clicks([
      click({ refId: second, queryId: page.query_id, position: 2, eventTime: '2026-11-20T09:00:00Z' }),
      click({ refId: rec.payload[0], queryId: rec.queryId, position: 1, type: 'addToCart', eventTime: '2026-11-20T10:30:00Z', tacticId: rec.slots[0]!.tacticId }),
    ]));
    expect(outcomes.map((o) => [o.type, o.kind, o.position])).toEqual([['click', 'search', 1], ['click', 'search', 2], ['addToCart', 'recommendation', 1]]);
    outcomes.length = 0;
    await engine.recordPurchases('site-a', {
      customerId: customer, sessionId: session,
      events: [{ currentUrl: 'https://shop.example/thanks', eventTime: '2026-11-20T11:00:00Z', orderId: 'o-1', products: [
        { refId: first!, quantity: 1, price: 5, clickId },
        { refId: second!, quantity: 2, price: 7 },
        { refId: rec.payload[0]!, quantity: 1, price: 3 },
        { refId: 'not-clicked', quantity: 1, price: 100 },
      ] }],
    });
    expect(outcomes).toEqual([
      { websiteId: 'site-a', at: Date.parse('2026-11-20T11:00:00Z'), kind: 'search', queryId: page.query_id, query: 'red', variant: null, type: 'purchase', position: 1, revenue: 5 },
      { websiteId: 'site-a', at: Date.parse('2026-11-20T11:00:00Z'), kind: 'search', queryId: page.query_id, query: 'red', variant: null, type: 'purchase', position: 2, revenue: 14 },
      { websiteId: 'site-a', at: Date.parse('2026-11-20T11:00:00Z'), kind: 'recommendation', queryId: rec.queryId, method: 'PopularItems', variant: null, type: 'purchase', tacticId: rec.slots[0]!.tacticId, position: 1, revenue: 3 },
    ]);
    const report = await engine.attributionReport('site-a');
    expect(report.totals).toMatchObject({ revenue: 123, clickAttributedRevenue: 22, attributedRevenue: 22 });
    expect(report.bySearchQuery).toEqual([{ key: 'red', revenue: 19, orders: 1, units: 3 }]);
    expect(report.byRecommendationMethod).toEqual([{ key: 'PopularItems', revenue: 3, orders: 1, units: 1 }]);
    // The search analytics count the conversion against the response and its tactic (named by id in the click).
    const recommendations = await engine.recommendationReport('site-a', { from: '2026-11-01T00:00:00Z' });
    const popular = recommendations.methods.find((m) => m.method === 'PopularItems')!;
    expect(popular).toMatchObject({ conversions: 1, revenue: 3 });
    expect(popular.tactics.find((t) => t.tactic === rec.slots[0]!.tacticLabel)).toMatchObject({ conversions: 1, revenue: 3 });
    expect(report.byClickPosition).toEqual([
      { kind: 'recommendation', position: 1, revenue: 3, orders: 1, units: 1 },
      { kind: 'search', position: 1, revenue: 5, orders: 1, units: 1 },
      { kind: 'search', position: 2, revenue: 14, orders: 1, units: 2 },
    ]);
  });

  it('credits a click on the sponsored slot to its tactic ("Retail Media"), under which the report lists the slot\'s items', async () => {
    const adSet = { adSetId: '5b1c3a9e-0f2d-4c8b-9e7a-1d2c3b4a5f60', version: 1, products: ['p30'], costPerClick: 1 };
    const engine = await createEngine({ workers: 0, websites: [{ ...site, settings: { retailMedia: { adSets: [adSet] } } }] });
    engines.push(engine);
    await engine.upsertProducts('site-a', products.map((p) => ({ ...p, search_category: 'shoes' })));
    await engine.recordPurchases('site-a', {
      customerId: customer, sessionId: customer,
      events: [{ currentUrl: 'https://shop.example/thanks', eventTime: '2026-11-19T11:00:00Z', orderId: 'o-ad', products: [{ refId: 'p1', quantity: 1, price: 1 }, { refId: 'p2', quantity: 1, price: 1 }] }],
    });
    const rec = await engine.recommend('site-a', 'PopularItems', { count: 5 });
    const ad = rec.slots.find((s) => s.retailMedia !== undefined)!;
    expect(ad.tacticLabel).toBe('Retail Media');
    // The click was taken and credited to no tactic: the sponsored tactic read its items with 0 clicks.
    await engine.recordClicks('site-a', clicks([click({ refId: ad.refId, queryId: rec.queryId, position: rec.slots.indexOf(ad) + 1, tacticId: ad.tacticId })]));
    const report = await engine.recommendationReport('site-a', { from: '2026-11-01T00:00:00Z' });
    expect(report.methods.find((m) => m.method === 'PopularItems')!.tactics.find((t) => t.tactic === 'Retail Media')).toMatchObject({ items: 1, clicks: 1, ctr: 1 });
  });

  it('does not convert a click older than the attribution window, nor one of another session', async () => {
    const outcomes: ClickOutcome[] = [];
    const engine = await open(outcomes);
    await engine.updateSettings('site-a', { attributionWindowDays: 1 });
    const page = await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red', start: 0 });
    const refId = page.payload.result[0]!.refId;
    await engine.recordClicks('site-a', clicks([click({ refId, queryId: page.query_id, position: 1, eventTime: '2026-11-18T10:00:00Z' })]));
    await engine.recordClicks('site-a', clicks([click({ refId, queryId: page.query_id, position: 1 })], { sessionId: customer }));
    outcomes.length = 0;
    await engine.recordPurchases('site-a', {
      customerId: customer, sessionId: session,
      events: [{ currentUrl: 'https://shop.example/thanks', eventTime: '2026-11-20T11:00:00Z', orderId: 'o-1', products: [{ refId, quantity: 1, price: 5 }] }],
    });
    expect(outcomes).toEqual([]);
    expect((await engine.attributionReport('site-a')).totals.clickAttributedRevenue).toBe(0);
  });

  it('checks the queryId and position of views as it does those of clicks', async () => {
    const engine = await open();
    const page = await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red', start: 0 });
    const refId = page.payload.result[0]!.refId;
    const view = (extra: Record<string, unknown>) => ({ customerId: customer, sessionId: session, events: [{ currentUrl: 'https://shop.example/p', eventTime: '2026-11-20T10:00:00Z', refId, ...extra }] });
    expect((await engine.recordViews('site-a', view({ queryId: page.query_id, position: 1 }))).status).toBe('Accepted');
    expect(Object.keys(await problemOf(engine.recordViews('site-a', view({ queryId: page.query_id, position: 2 }))))).toEqual(['events[0].Position']);
    expect(Object.keys(await problemOf(engine.recordViews('site-a', view({ queryId: page.query_id }))))).toEqual(['events[0].Position']);
  });
});

/**
 * A purchase line's clickId converts only a click on that line's product (decision 0086): a click on
 * another product cannot have turned into this purchase. The line then converts as it would without a
 * clickId. The pure conversion rule is the same for every store; each store is run because each one
 * answers the candidate clicks the rule reads.
 */
describe.each<[string, () => Promise<{ store: StoreConfig; dataDir?: string; cleanup: () => Promise<void> | void }>]>([
  ['memory', async () => ({ store: { type: 'memory' }, cleanup: () => undefined })],
  ['embedded', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'aisle-clickid-'));
    return { store: { type: 'embedded' }, dataDir, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
  }],
  ['postgres', async () => {
    await requirePostgres();
    const schemas = new TestSchemas();
    return { store: { type: 'postgres', url: TEST_PG_URL, schema: schemas.next() }, cleanup: () => schemas.dropAll() };
  }],
])('a purchase line\'s clickId on the %s store', (_name, storeOf) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('converts only a click on the line\'s product; naming a click on another product, the line converts as without a clickId', async () => {
    const { store, dataDir, cleanup } = await storeOf();
    cleanups.push(cleanup);
    const outcomes: ClickOutcome[] = [];
    const engine = await createEngine({ workers: 0, websites: [site], store, ...(dataDir !== undefined && { dataDir }), onClickOutcome: (o) => outcomes.push(o) });
    try {
      await engine.upsertProducts('site-a', products);
      const page = await engine.search({ website_id: 'site-a', client: 'client-a', q: 'red', start: 0, size: 10 });
      const [a, b, c] = page.payload.result.map((p) => p.refId) as [string, string, string];
      // The clickId's click is on a; the session also clicked b, earlier, at position 2; c was never clicked.
      await engine.recordClicks('site-a', clicks([
        click({ refId: b, queryId: page.query_id, position: 2, eventTime: '2026-11-20T09:00:00Z' }),
        click({ refId: a, queryId: page.query_id, position: 1, clickId }),
      ]));
      outcomes.length = 0;
      await engine.recordPurchases('site-a', {
        customerId: customer, sessionId: session,
        events: [{ currentUrl: 'https://shop.example/thanks', eventTime: '2026-11-20T11:00:00Z', orderId: 'o-cross', products: [
          // Was attributed to the click on a (position 1): now the session's click on b (position 2).
          { refId: b, quantity: 1, price: 7, clickId },
          // Was attributed to the click on a: now nothing (c was never clicked).
          { refId: c, quantity: 1, price: 11, clickId },
        ] }],
      });
      expect(outcomes.map((o) => [o.type, o.position, o.revenue])).toEqual([['purchase', 2, 7]]);
      const report = await engine.attributionReport('site-a');
      expect(report.totals).toMatchObject({ revenue: 18, clickAttributedRevenue: 7 });
      expect(report.byClickPosition).toEqual([{ kind: 'search', position: 2, revenue: 7, orders: 1, units: 1 }]);
    } finally {
      await engine.close();
    }
  });
});
