/**
 * Click ranking through the engine (memory store; inline and on the worker pool): a query re-ranks
 * only once `minSessions` distinct sessions searched it; then the products shoppers picked rise, the
 * set, totals and facets stay; `sort_fields` turns it off; pins stay pinned; `settings.ranked_by`
 * says what re-ranked; a spam shopper counts once; `_popularity` sorts and breaks ties.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import type { Product, SearchRequest, SearchResponse } from '../types.js';

const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
const products: Product[] = Array.from({ length: 40 }, (_, i) => ({
  refId: `p${i + 1}`, title: `Red shoe ${i + 1}`, brand: i % 2 === 0 ? 'Acme' : 'Zeta', price: 10 + i,
}));

/** A GUID for shopper `n`. */
function guid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('click ranking', () => {
  const engines: Engine[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.close()));
  });

  async function open(options: { workers?: number; poolThreshold?: number } = {}): Promise<Engine> {
    const engine = await createEngine({ workers: 0, ...options, websites: [{ ...site, settings: { clickRanking: { minSessions: 3 } } }] });
    engines.push(engine);
    await engine.upsertProducts('site-a', products);
    return engine;
  }

  const search = (engine: Engine, extra: Partial<SearchRequest> = {}): Promise<SearchResponse> =>
    engine.search({ website_id: 'site-a', client: 'client-a', q: 'red shoe', start: 0, size: 10, aggregations: ['brand'], ...extra });

  /** Shopper `n` searches, then clicks `refId` at its position (`times` times). */
  async function shop(engine: Engine, n: number, refId: string, times = 1, q = 'red shoe'): Promise<void> {
    const page = await engine.search({ website_id: 'site-a', client: 'client-a', q, start: 0, size: 40, session_id: guid(n) });
    const position = page.payload.result.findIndex((p) => p.refId === refId) + 1;
    expect(position).toBeGreaterThan(0);
    const events = Array.from({ length: times }, () => ({ eventTime: new Date().toISOString(), refId, type: 'click' as const, queryId: page.query_id, position }));
    for (let i = 0; i < events.length; i += 100) await engine.recordClicks('site-a', { customerId: guid(n), sessionId: guid(n), events: events.slice(i, i + 100) });
  }

  for (const [mode, options] of [['inline', {}], ['on the worker pool', { workers: 2, poolThreshold: 1 }]] as const) {
    it(`re-ranks a query only from minSessions sessions on, keeping the set, totals and facets (${mode})`, async () => {
      const engine = await open(options);
      const before = await search(engine);
      const plain = before.payload.result.map((p) => p.refId);
      expect(before.settings).toBeUndefined();
      await shop(engine, 1, 'p30');
      await shop(engine, 2, 'p30');
      // The searches' chains end (as they do 10 s later) when a report is read.
      await engine.searchReport('site-a');
      await new Promise((r) => setTimeout(r, 100));
      // Two sessions: below minSessions 3, nothing moves.
      expect((await search(engine)).payload.result.map((p) => p.refId)).toEqual(plain);
      await shop(engine, 3, 'p30');
      await engine.searchReport('site-a');
      await eventually(async () => (await search(engine)).payload.result[0]!.refId === 'p30');
      const after = await search(engine);
      expect(after.settings).toEqual({ ranked_by: ['clicks'] });
      expect(after.payload.total_results).toBe(before.payload.total_results);
      expect(after.payload.aggregations).toEqual(before.payload.aggregations);
      // The same set, in another order.
      const all = async () => (await search(engine, { size: 40 })).payload.result.map((p) => p.refId).sort();
      expect(await all()).toEqual([...products.map((p) => p.refId)].sort());
      // sort_fields turns it off.
      const sorted = await search(engine, { sort_fields: [{ price: { order: 'asc', type: 'number' } }] });
      expect(sorted.payload.result[0]!.refId).toBe('p1');
      expect(sorted.settings).toBeUndefined();
      // Another query learns nothing from these clicks.
      expect((await search(engine, { q: 'shoe red' })).payload.result.map((p) => p.refId)).toEqual(plain);
    });
  }

  it('keeps pins pinned and names the stages that re-ranked', async () => {
    const engine = await open();
    for (let n = 1; n <= 3; n++) await shop(engine, n, 'p25');
    await engine.searchReport('site-a');
    await eventually(async () => (await search(engine)).payload.result[0]!.refId === 'p25');
    await engine.updateSettings('site-a', { rules: [{ id: 'pin', query: 'red shoe', pin: [{ refId: 'p7', position: 1 }] }] }, { merge: true });
    const pinned = await search(engine);
    expect(pinned.payload.result.slice(0, 2).map((p) => p.refId)).toEqual(['p7', 'p25']);
    expect(pinned.settings).toEqual({ ranked_by: ['rules', 'clicks'] });
    // Off: the plain order (with the pin).
    await engine.updateSettings('site-a', { clickRanking: false }, { merge: true });
    expect((await search(engine)).settings).toEqual({ ranked_by: ['rules'] });
  });

  it('counts a spam shopper clicking one product thousands of times as one shopper', async () => {
    const spammed = await open();
    const honest = await open();
    for (const engine of [spammed, honest]) {
      for (let n = 1; n <= 3; n++) await shop(engine, n, 'p20');
      await shop(engine, 4, 'p35', engine === spammed ? 2000 : 1);
      await engine.searchReport('site-a');
      await eventually(async () => (await search(engine)).payload.result[0]!.refId === 'p20');
    }
    await new Promise((r) => setTimeout(r, 200));
    const orderOf = async (engine: Engine) => (await search(engine, { size: 40 })).payload.result.map((p) => p.refId);
    expect(await orderOf(spammed)).toEqual(await orderOf(honest));
  });

  it('shows the defaults filled in, and refuses bad values naming the key', async () => {
    const engine = await open();
    expect((await engine.getSettings('site-a')).clickRanking).toEqual({ weight: 1, minSessions: 3, halfLifeDays: 30 });
    await engine.updateSettings('site-a', { clickRanking: true }, { merge: true });
    expect((await engine.getSettings('site-a')).clickRanking).toEqual({ weight: 1, minSessions: 5, halfLifeDays: 30 });
    await engine.updateSettings('site-a', { clickRanking: null }, { merge: true });
    expect((await engine.getSettings('site-a')).clickRanking).toBe(false);
    for (const bad of [{ minSessions: 0 }, { minSessions: 21 }, { halfLifeDays: 0 }, { weight: -1 }, { extra: 1 }, 'yes']) {
      await expect(engine.updateSettings('site-a', { clickRanking: bad }, { merge: true })).rejects.toThrow(/clickRanking/);
    }
  });

  for (const [mode, options] of [['inline', {}], ['on the worker pool', { workers: 2, poolThreshold: 1 }]] as const) it(`sorts and breaks ties by _popularity, whatever a product field of that name holds (${mode})`, async () => {
    const engine = await open(options);
    await engine.upsertProducts('site-a', [{ refId: 'p40', title: 'Red shoe 40', brand: 'Zeta', price: 49, _popularity: 1e9 }]);
    await shop(engine, 1, 'p12', 1);
    await shop(engine, 2, 'p12', 1);
    await shop(engine, 3, 'p33', 1);
    await engine.recordPurchases('site-a', {
      customerId: guid(3), sessionId: guid(3),
      events: [{ eventTime: new Date().toISOString(), orderId: 'o-1', currentUrl: 'https://shop.example/checkout', products: [{ refId: 'p33', quantity: 1, price: 42 }] }],
    });
    const top = async (extra: Partial<SearchRequest>) => (await search(engine, { q: '', ...extra })).payload.result.slice(0, 3).map((p) => p.refId);
    // p33: a click (1) and a purchase (4) of one shopper: 4; p12: two shoppers' clicks: 2.
    await eventually(async () => (await top({ sort_fields: [{ _popularity: { order: 'desc', type: 'number' } }] }))[0] === 'p33');
    expect(await top({ sort_fields: [{ _popularity: { order: 'desc', type: 'number' } }] })).toEqual(['p33', 'p12', 'p1']);
    await expect(search(engine, { sort_fields: [{ _popularity: { order: 'desc', type: 'text' } }] })).rejects.toThrow(/_popularity/);
    await engine.updateSettings('site-a', { clickRanking: false, ranking: { tieBreakers: [{ field: '_popularity', order: 'desc' }] } }, { merge: true });
    // Browsing: every product ties, so the tie-breaker decides.
    expect(await top({})).toEqual(['p33', 'p12', 'p1']);
  });
});
