/**
 * The one contract suite every {@link Store} implementation runs (hono's router pattern): each
 * implementation's test file calls {@link runStoreContract} with a factory for a fresh, empty store.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  AnalyticsBatch, ClickAppend, ClickEventData, LoggedResponse, PurchaseAppend, PurchaseEventData, ResponseOutcome, ResultPageRecord, RollupCounters,
  RollupDelta, RollupTotal, SearchKeyRecord, Store, ViewAppend, ExperimentRecord, AnalyticsKind, ExperimentSums,
} from './store.js';
import { experimentSumsOf } from './analytics-rows.js';

/** Options of {@link runStoreContract}. */
export interface StoreContractOptions {
  /** Closes a store and opens it again on the same data (durable stores only). */
  reopen?: (store: Store) => Promise<Store>;
}

/** A minimal valid purchase event for the suite. */
export function contractPurchaseEvent(orderId: string, extra: Partial<PurchaseEventData> = {}): PurchaseEventData {
  return {
    orderId, currentUrl: 'https://shop.example/checkout', eventTime: '2024-05-01T12:00:00Z', eventTimeMs: Date.UTC(2024, 4, 1, 12),
    products: [{ refId: 'sku-1', quantity: 2, price: 9.5 }], priceBeatPromotions: [], ...extra,
  };
}

/** A purchase append with fresh ids. */
export function contractPurchaseAppend(websiteId: string, events: PurchaseEventData[], extra: Partial<PurchaseAppend> = {}): PurchaseAppend {
  return {
    websiteId, transactionId: randomUUID(), customerId: 'c-1', sessionId: 's-1', origin: 'contract', receivedAt: Date.now(), events, ...extra,
  };
}

function viewAppend(websiteId: string, refIds: string[]): ViewAppend {
  return {
    websiteId, transactionId: randomUUID(), customerId: 'c-1', sessionId: 's-1', origin: 'contract', receivedAt: Date.now(),
    views: refIds.map((refId, i) => ({ refId, currentUrl: `https://shop.example/p/${refId}`, eventTime: '2024-05-01T12:00:00Z', eventTimeMs: Date.UTC(2024, 4, 1, 12) + i })),
  };
}

/** A click append with a fresh transaction id (session `s-1` unless given). */
export function contractClickAppend(websiteId: string, clicks: Partial<ClickEventData>[], extra: Partial<ClickAppend> = {}): ClickAppend {
  return {
    websiteId, transactionId: randomUUID(), customerId: 'c-1', sessionId: 's-1', origin: 'contract', receivedAt: Date.now(), ...extra,
    clicks: clicks.map((c, i) => ({ refId: 'sku-1', type: 'click', eventTime: '2024-05-01T12:00:00Z', eventTimeMs: Date.UTC(2024, 4, 1, 12) + i, ...c })),
  };
}

/** A result page of the suite. */
export function contractResultPage(websiteId: string, queryId: string, createdAt: number, refIds = ['a', 'b']): ResultPageRecord {
  return { websiteId, queryId, kind: 'search', source: 'red shoes', customerId: null, sessionId: 's-1', variant: null, firstPosition: 21, refIds, createdAt };
}

/** Runs the store contract against stores made by `newStore` (each test gets a fresh, empty one). */
export function runStoreContract(name: string, newStore: () => Promise<Store>, options: StoreContractOptions = {}): void {
  describe(`store contract: ${name}`, () => {
    const open: Store[] = [];
    async function fresh(): Promise<Store> {
      const s = await newStore();
      open.push(s);
      return s;
    }
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('records purchases in order with increasing sequence numbers', async () => {
      const store = await fresh();
      const r = await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1'), contractPurchaseEvent('o2')]));
      expect(r.orders.map((o) => o.status)).toEqual(['recorded', 'recorded']);
      await store.appendViews(viewAppend('w1', ['a', 'b']));
      await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o3')]));
      const events = await store.readEvents({ afterSeq: 0, limit: 100 });
      expect(events.map((e) => (e.kind === 'purchase' ? e.purchase.orderId : e.view.refId))).toEqual(['o1', 'o2', 'a', 'b', 'o3']);
      for (let i = 1; i < events.length; i++) expect(events[i]!.seq).toBeGreaterThan(events[i - 1]!.seq);
      expect(await store.lastSequence()).toBe(events.at(-1)!.seq);
      const first = events[0]!;
      expect(first.kind === 'purchase' && first.purchase.products).toEqual([{ refId: 'sku-1', quantity: 2, price: 9.5 }]);
      expect(await store.counts('w1')).toEqual({ views: 2, purchases: 2, orders: 3, coupons: { issued: 0, used: 0 } });
    });

    it('pages and filters events after a cursor', async () => {
      const store = await fresh();
      expect(await store.lastSequence()).toBe(0);
      await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1')]));
      await store.appendViews(viewAppend('w2', ['x', 'y', 'z']));
      await store.appendPurchases(contractPurchaseAppend('w2', [contractPurchaseEvent('o1')]));
      const all = await store.readEvents({ afterSeq: 0, limit: 100 });
      expect(all).toHaveLength(5);
      const page = await store.readEvents({ afterSeq: all[1]!.seq, limit: 2 });
      expect(page.map((e) => e.seq)).toEqual([all[2]!.seq, all[3]!.seq]);
      expect((await store.readEvents({ afterSeq: 0, limit: 100, websiteId: 'w2' })).length).toBe(4);
      expect((await store.readEvents({ afterSeq: 0, limit: 100, websiteId: 'w2', kind: 'purchase' })).length).toBe(1);
      expect((await store.readEvents({ afterSeq: all[4]!.seq, limit: 100 })).length).toBe(0);
    });

    it('acknowledges a replayed orderId with its first transactionId and counts it once', async () => {
      const store = await fresh();
      const first = contractPurchaseAppend('w1', [contractPurchaseEvent('o1')]);
      const r1 = await store.appendPurchases(first);
      const r2 = await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1')]));
      expect(r1.transactionId).toBe(first.transactionId);
      expect(r2.transactionId).toBe(first.transactionId);
      expect(r2.orders).toEqual([{ orderId: 'o1', status: 'duplicate', transactionId: first.transactionId }]);
      // A request mixing a new order with a replayed one answers its own id; the replay keeps the first.
      const mixed = contractPurchaseAppend('w1', [contractPurchaseEvent('o1'), contractPurchaseEvent('o2')]);
      const r3 = await store.appendPurchases(mixed);
      expect(r3.transactionId).toBe(mixed.transactionId);
      expect(r3.orders.map((o) => [o.status, o.transactionId])).toEqual([['duplicate', first.transactionId], ['recorded', mixed.transactionId]]);
      expect((await store.counts('w1')).orders).toBe(2);
      // The same orderId on another website is another order.
      expect((await store.appendPurchases(contractPurchaseAppend('w2', [contractPurchaseEvent('o1')]))).orders[0]!.status).toBe('recorded');
    });

    it('refuses a whole request that replays an orderId with other content, and stores none of it', async () => {
      const store = await fresh();
      const first = contractPurchaseAppend('w1', [contractPurchaseEvent('o1', { priceBeatPromotions: [{ code: 'PB', discount: 2 }] })]);
      await store.appendPurchases(first);
      // The same content (the time written with another offset, the store's `reused` flag aside) is a replay.
      const same = await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1', {
        eventTime: '2024-05-01T14:00:00+02:00', priceBeatPromotions: [{ code: 'PB', discount: 2 }],
      })]));
      expect(same.orders).toEqual([{ orderId: 'o1', status: 'duplicate', transactionId: first.transactionId }]);
      const changed = [
        contractPurchaseAppend('w1', [contractPurchaseEvent('o2'), contractPurchaseEvent('o1', { products: [{ refId: 'sku-1', quantity: 3, price: 9.5 }], priceBeatPromotions: [{ code: 'PB', discount: 2 }] })]),
        contractPurchaseAppend('w1', [contractPurchaseEvent('o1', { priceBeatPromotions: [{ code: 'PB', discount: 2 }] })], { customerId: 'someone-else' }),
        contractPurchaseAppend('w1', [contractPurchaseEvent('o1', { eventTime: '2024-05-02T12:00:00Z', eventTimeMs: Date.UTC(2024, 4, 2, 12), priceBeatPromotions: [{ code: 'PB', discount: 2 }] })]),
      ];
      for (const append of changed) {
        const r = await store.appendPurchases(append);
        expect(r.orders).toEqual([{ orderId: 'o1', status: 'conflict', transactionId: first.transactionId }]);
      }
      // Nothing of the refused requests was stored: o2 is new and still absent.
      expect((await store.counts('w1')).orders).toBe(1);
      expect((await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o2')]))).orders[0]!.status).toBe('recorded');
      // Within one request, the same orderId twice with other content conflicts too.
      const twice = await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o3'), contractPurchaseEvent('o3', { currencyCode: 'EUR' })]));
      expect(twice.orders.map((o) => o.status)).toEqual(['conflict']);
      expect((await store.counts('w1')).orders).toBe(2);
    });

    it('records concurrent duplicate orderIds once', async () => {
      const store = await fresh();
      const appends = Array.from({ length: 25 }, () => contractPurchaseAppend('w1', [contractPurchaseEvent('dup')]));
      const results = await Promise.all(appends.map((a) => store.appendPurchases(a)));
      const recorded = results.filter((r) => r.orders[0]!.status === 'recorded');
      expect(recorded).toHaveLength(1);
      expect(new Set(results.map((r) => r.transactionId)).size).toBe(1);
      expect(results[0]!.transactionId).toBe(recorded[0]!.transactionId);
      expect((await store.counts('w1')).orders).toBe(1);
      expect(await store.readEvents({ afterSeq: 0, limit: 100 })).toHaveLength(1);
    });

    it('keeps one order when a request repeats it', async () => {
      const store = await fresh();
      const a = contractPurchaseAppend('w1', [contractPurchaseEvent('o1'), contractPurchaseEvent('o1')]);
      const r = await store.appendPurchases(a);
      expect(r.orders.map((o) => o.status)).toEqual(['recorded', 'duplicate']);
      expect(r.orders[1]!.transactionId).toBe(a.transactionId);
      expect((await store.counts('w1')).orders).toBe(1);
    });

    it('issues coupons and marks them used exactly once', async () => {
      const store = await fresh();
      expect(await store.issueCoupons('w1', [{ code: 'A' }, { code: 'B', customerId: 'c-9', discount: 5 }], 1000)).toEqual({ issued: 2 });
      expect(await store.issueCoupons('w1', [{ code: 'A' }, { code: 'C' }], 1000)).toEqual({ issued: 1 });
      expect(await store.getCoupon('w1', 'B')).toMatchObject({ code: 'B', customerId: 'c-9', discount: 5, state: 'issued', source: 'admin' });
      expect(await store.markCouponUsed('w1', 'A', 2000)).toEqual({ status: 'used', usedAt: 2000 });
      expect(await store.markCouponUsed('w1', 'A', 3000)).toEqual({ status: 'already_used', usedAt: 2000 });
      expect(await store.markCouponUsed('w1', 'nope', 3000)).toEqual({ status: 'not_found' });
      expect(await store.markCouponUsed('w2', 'B', 3000)).toEqual({ status: 'not_found' });
      expect(await store.counts('w1')).toMatchObject({ coupons: { issued: 3, used: 1 } });
    });

    it('refuses a whole issue naming a known code with another customer or discount; the same content is a replay', async () => {
      const store = await fresh();
      await store.issueCoupons('w1', [{ code: 'B5', customerId: 'c-9', discount: 5 }, { code: 'FREE' }], 1000);
      // It answered 1 new code and kept discount 5: the 7 was dropped without a word.
      expect(await store.issueCoupons('w1', [{ code: 'NEW' }, { code: 'B5', discount: 7 }, { code: 'FREE', customerId: 'c-1' }], 2000)).toEqual({
        issued: 0, conflicts: [{ index: 1, code: 'B5', fields: ['discount'], storedDiscount: 5, storedBound: true }, { index: 2, code: 'FREE', fields: ['customerId'], storedDiscount: null, storedBound: false }],
      });
      expect(await store.getCoupon('w1', 'NEW')).toBeUndefined();
      expect(await store.issueCoupons('w1', [{ code: 'B5', customerId: 'c-8', discount: 6 }], 2000)).toEqual({
        issued: 0, conflicts: [{ index: 0, code: 'B5', fields: ['customerId', 'discount'], storedDiscount: 5, storedBound: true }],
      });
      // What the issue leaves out is not compared; the same content is a replay.
      expect(await store.issueCoupons('w1', [{ code: 'B5' }, { code: 'B5X', discount: 1 }, { code: 'FREE' }], 3000)).toEqual({ issued: 1 });
      expect(await store.issueCoupons('w1', [{ code: 'B5', customerId: 'c-9', discount: 5 }], 3000)).toEqual({ issued: 0 });
      expect(await store.getCoupon('w1', 'B5')).toMatchObject({ customerId: 'c-9', discount: 5, issuedAt: 1000 });
      expect((await store.counts('w1')).coupons).toEqual({ issued: 3, used: 0 });
    });

    it('lets exactly one of many concurrent mark-as-used calls succeed', async () => {
      const store = await fresh();
      await store.issueCoupons('w1', [{ code: 'RACE' }], 1000);
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.markCouponUsed('w1', 'RACE', 2000 + i)));
      expect(outcomes.filter((o) => o.status === 'used')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'already_used')).toHaveLength(19);
    });

    it('learns codes from purchases, binds them and flags a reuse by the same customer', async () => {
      const store = await fresh();
      const promo = { priceBeatPromotions: [{ code: 'PB1', discount: 3 }] };
      await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1', promo)], { customerId: 'alice' }));
      expect(await store.getCoupon('w1', 'PB1')).toMatchObject({ customerId: 'alice', state: 'issued', source: 'purchase', discount: 3 });
      expect((await store.markCouponUsed('w1', 'PB1', 5000)).status).toBe('used');
      const again = await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o2', promo)], { customerId: 'alice' }));
      expect(again.orders[0]!.event!.priceBeatPromotions).toEqual([{ code: 'PB1', discount: 3, reused: true }]);
      const other = await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o3', promo)], { customerId: 'bob' }));
      expect(other.orders[0]!.event!.priceBeatPromotions).toEqual([{ code: 'PB1', discount: 3 }]);
      const stored = await store.readEvents({ afterSeq: 0, limit: 10, kind: 'purchase' });
      expect(stored.map((e) => e.kind === 'purchase' && e.purchase.priceBeatPromotions[0]!.reused === true)).toEqual([false, true, false]);
      // An admin-issued unbound code is bound by the first purchase carrying it.
      await store.issueCoupons('w1', [{ code: 'FREE' }], 1000);
      await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o4', { priceBeatPromotions: [{ code: 'FREE', discount: 1 }] })], { customerId: 'carol' }));
      expect(await store.getCoupon('w1', 'FREE')).toMatchObject({ customerId: 'carol', source: 'admin' });
      expect(await store.counts('w1')).toMatchObject({ orders: 4, coupons: { issued: 2, used: 1 } });
    });

    it('does not touch coupons for a replayed order', async () => {
      const store = await fresh();
      await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1')]));
      await store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1', { priceBeatPromotions: [{ code: 'X', discount: 1 }] })]));
      expect(await store.getCoupon('w1', 'X')).toBeUndefined();
    });

    it('stores website settings with increasing versions, compare-and-set, per website', async () => {
      const store = await fresh();
      expect(await store.getSettings('w1')).toBeUndefined();
      expect(await store.settingsSince(0)).toEqual([]);
      const first = await store.putSettings('w1', { synonyms: [['tv', 'télé']], rules: [{ id: 'r', query: '' }] }, 0);
      expect(first).toMatchObject({ websiteId: 'w1', settings: { synonyms: [['tv', 'télé']] } });
      // A writer that read an older version loses; nothing is written.
      expect(await store.putSettings('w1', { synonyms: [] }, 0)).toBeUndefined();
      const second = await store.putSettings('w1', { personalization: true }, first!.version);
      expect(second!.version).toBeGreaterThan(first!.version);
      expect(await store.getSettings('w1')).toEqual({ websiteId: 'w1', settings: { personalization: true }, version: second!.version });
      const odd = JSON.parse('{"__proto__": 1, "nested": {"a": [1, {"b": null}]}}') as Record<string, unknown>;
      const other = await store.putSettings('w2', odd, 0);
      expect(other!.version).toBeGreaterThan(second!.version);
      expect(JSON.stringify((await store.getSettings('w2'))!.settings)).toBe(JSON.stringify(odd));
      expect((await store.settingsSince(0)).map((r) => [r.websiteId, r.version])).toEqual([['w1', second!.version], ['w2', other!.version]]);
      expect((await store.settingsSince(second!.version)).map((r) => r.websiteId)).toEqual(['w2']);
      expect(await store.getSettings('w3')).toBeUndefined();
    });

    it('lets exactly one of concurrent settings writes from one version win', async () => {
      const store = await fresh();
      const base = await store.putSettings('w1', { n: 0 }, 0);
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => store.putSettings('w1', { n: i + 1 }, base!.version)));
      const winners = outcomes.filter((o) => o !== undefined);
      expect(winners).toHaveLength(1);
      expect((await store.getSettings('w1'))!.settings).toEqual(winners[0]!.settings);
    });

    it('lets exactly one of concurrent first settings writes win, and never writes from a version the row is not at', async () => {
      const store = await fresh();
      const firsts = await Promise.all(Array.from({ length: 10 }, (_, i) => store.putSettings('w1', { n: i }, 0)));
      const winners = firsts.filter((o) => o !== undefined);
      expect(winners).toHaveLength(1);
      expect(await store.getSettings('w1')).toEqual(winners[0]);
      // A version the row never had (ahead of it), and one for a website with no row: nothing written.
      expect(await store.putSettings('w1', { n: 'ahead' }, winners[0]!.version + 1)).toBeUndefined();
      expect(await store.putSettings('w2', { n: 'none' }, winners[0]!.version)).toBeUndefined();
      expect(await store.getSettings('w1')).toEqual(winners[0]);
      expect(await store.getSettings('w2')).toBeUndefined();
    });

    const H = 3_600_000;
    const D = 24 * H;
    const counters = (totals: RollupTotal[]) => Object.fromEntries(totals.map((t) => [`${t.key}|${t.tactic}`, t.counters]));
    const delta = (websiteId: string, hour: number, key: string, c: Partial<RollupCounters>, tactic = ''): RollupDelta => ({ websiteId, kind: 'search', hour, key, tactic, counters: c });
    const batch = (b: Partial<AnalyticsBatch>): AnalyticsBatch => ({ responses: [], rollups: [], outcomes: [], sessions: [], ...b });

    it('adds roll-up deltas per hour and day, and sums a window from whole days and edge hours', async () => {
      const store = await fresh();
      // Day 1 at 22:00 and 23:00, day 2 at 05:00, day 3 at 01:00; another website; another kind.
      await store.writeAnalytics(batch({ rollups: [
        delta('w1', D + 22 * H, 'shoe', { responses: 3, results: 30 }), delta('w1', D + 23 * H, 'shoe', { responses: 1, noResults: 1 }),
        delta('w1', 2 * D + 5 * H, 'shoe', { responses: 2, results: 4 }), delta('w1', 3 * D + H, 'été', { responses: 1, revenue: 2.5 }),
        delta('w2', D + 22 * H, 'shoe', { responses: 9 }), { ...delta('w1', D + 22 * H, 'Popular', { responses: 7 }), kind: 'recommendation' },
      ] }));
      await store.writeAnalytics(batch({ rollups: [delta('w1', D + 22 * H, 'shoe', { responses: 1, results: 2 })] }));
      const all = counters(await store.rollupTotals('w1', 'search', { fromHour: 0, toHour: 10 * D }));
      expect(all['shoe|']).toMatchObject({ responses: 7, results: 36, noResults: 1, clicks: 0 });
      expect(all['été|']).toMatchObject({ responses: 1, revenue: 2.5 });
      expect(Object.keys(all).sort()).toEqual(['shoe|', 'été|']);
      // 23:00 of day 1 to 01:00 of day 3: the hour 23:00, day 2 whole, the hours of day 3 up to 01:00.
      const window = counters(await store.rollupTotals('w1', 'search', { fromHour: D + 23 * H, toHour: 3 * D + H + 59_000 }));
      expect(window['shoe|']).toMatchObject({ responses: 3, results: 4, noResults: 1 });
      expect(window['été|']).toMatchObject({ responses: 1 });
      expect(counters(await store.rollupTotals('w1', 'search', { fromHour: 2 * D, toHour: 2 * D + 4 * H }))).toEqual({});
      expect(counters(await store.rollupTotals('w1', 'recommendation', { fromHour: 0, toHour: 10 * D }))['Popular|']).toMatchObject({ responses: 7 });
    });

    it('sums an experiment\'s roll-ups per customer (its lifetime rows), then per variant and tactic, as experimentSumsOf does', async () => {
      const store = await fresh();
      const kind = 'experiment:e1' as AnalyticsKind;
      const x = (hour: number, variant: string, customer: string, c: Partial<RollupCounters>, tactic = ''): RollupDelta =>
        ({ websiteId: 'w1', kind, hour, key: `${variant}\u001f${customer}`, tactic, counters: c });
      const rollups: RollupDelta[] = [];
      for (let i = 0; i < 40; i++) {
        const variant = i % 3 === 0 ? 'control' : 'b';
        // Rows of a customer on several days and hours: summed per customer before the per-customer values.
        rollups.push(x(D + (i % 5) * H, variant, `c${i}`, { responses: 1 + (i % 4), results: 10, clicked: i % 3 === 0 ? 0 : 1, clicks: i % 3 }));
        if (i % 2 === 0) rollups.push(x(3 * D + (i % 7) * H, variant, `c${i}`, { responses: 1, clicked: 1, clicks: 2, conversions: i % 4 === 0 ? 1 : 0, revenue: i % 4 === 0 ? 19.99 + i / 7 : 0 }));
        if (i % 5 === 0) rollups.push(x(2 * D, variant, `c${i}`, { results: 3, clicks: 1, conversions: 1, revenue: 4.25 }, i % 10 === 0 ? 'Viewed With' : 'Popular'));
      }
      // A customer whose only row is an outcome (not a user); more clicked searches than searches (CTR capped at 1);
      // a customer id holding the separator; another experiment, another website.
      rollups.push(x(D, 'b', 'ghost', { clicks: 1 }), x(D, 'control', 'eager', { responses: 1, clicked: 3, clicks: 3 }), x(D, 'b', 'odd\u001fid', { responses: 2, clicked: 1 }),
        { ...x(D, 'b', 'c1', { responses: 9 }), kind: 'experiment:e2' }, { ...x(D, 'b', 'c1', { responses: 9 }), websiteId: 'w2' });
      await store.writeAnalytics(batch({ rollups: rollups.slice(0, 50) }));
      await store.writeAnalytics(batch({ rollups: rollups.slice(50) }));
      const window = { fromHour: 0, toHour: 10 * D };
      const order = (sums: ExperimentSums[]) => [...sums].sort((a, b) => (a.variant + a.tactic < b.variant + b.tactic ? -1 : 1));
      const sums = order(await store.experimentSums('w1', kind));
      const expected = order(experimentSumsOf(await store.rollupTotals('w1', kind, window)));
      expect(sums.map((s) => [s.variant, s.tactic])).toEqual([['b', ''], ['b', 'Popular'], ['b', 'Viewed With'], ['control', ''], ['control', 'Popular'], ['control', 'Viewed With']]);
      expect(expected.map((s) => [s.variant, s.tactic])).toEqual(sums.map((s) => [s.variant, s.tactic]));
      expect(sums.map((s) => [s.users, s.converters, s.counters.responses, s.counters.clicks])).toEqual(expected.map((s) => [s.users, s.converters, s.counters.responses, s.counters.clicks]));
      // 26 of c0…c39 and the one whose id holds the separator (not the ghost); 14 and the eager one.
      expect(sums.filter((s) => s.tactic === '').map((s) => s.users)).toEqual([27, 15]);
      for (const [i, s] of sums.entries()) {
        // Floating sums: the same values, added in the database's order.
        for (const f of ['ctrClicked', 'ctrClickedSquares', 'responsesSquares', 'ctrClickedResponses', 'revenueSquares'] as const) expect(s[f]).toBeCloseTo(expected[i]![f], 9);
        expect(s.counters.revenue).toBeCloseTo(expected[i]!.counters.revenue, 9);
        expect({ ...s.counters, revenue: 0 }).toEqual({ ...expected[i]!.counters, revenue: 0 });
      }
      // The lifetime rows are no window's: a window sums its own grains only.
      expect(counters(await store.rollupTotals('w1', kind, { fromHour: D, toHour: D }))[`control\u001feager|`]).toEqual(expect.objectContaining({ responses: 1, clicked: 3, clicks: 3 }));
      expect(await store.experimentSums('w1', 'experiment:none')).toEqual([]);
    });

    it('counts a response once in clicked and converted, through the search its chain counts as', async () => {
      const store = await fresh();
      const at = D + 10 * H + 5;
      const response = (queryId: string, key: string, countedAs: string | null = null): LoggedResponse => ({ websiteId: 'w1', queryId, kind: 'search', at, key, countedAs });
      const click = (queryId: string | undefined, key: string, position: number): ResponseOutcome => ({
        websiteId: 'w1', kind: 'search', at: at + 2 * H, key, counters: { clicks: 1, positionedClicks: 1, clickPositions: position }, flag: 'clicked', ...(queryId !== undefined && { queryId }),
      });
      await store.writeAnalytics(batch({
        responses: [response('q-final', 'wardrobe'), response('q-typed', 'war', 'q-final')],
        rollups: [delta('w1', D + 10 * H, 'wardrobe', { responses: 1, results: 3 })],
        outcomes: [click('q-typed', 'war', 2), click('q-final', 'wardrobe', 4)],
      }));
      await store.writeAnalytics(batch({ outcomes: [click('q-final', 'wardrobe', 1), { ...click('q-final', 'wardrobe', 0), counters: { conversions: 1, revenue: 10 }, flag: 'converted' }] }));
      // Unknown to the store (never logged, or another website's): counted under its own key and hour, no flag.
      await store.writeAnalytics(batch({ outcomes: [click('q-other', 'lamp', 3), click(undefined, 'lamp', 1), { ...click('q-final', 'wardrobe', 5), websiteId: 'w2' }] }));
      const totals = counters(await store.rollupTotals('w1', 'search', { fromHour: D + 10 * H, toHour: D + 10 * H }));
      expect(totals['wardrobe|']).toEqual({ responses: 1, results: 3, noResults: 0, clicks: 3, positionedClicks: 3, clickPositions: 7, clicked: 1, conversions: 1, converted: 1, revenue: 10 });
      const later = counters(await store.rollupTotals('w1', 'search', { fromHour: D + 12 * H, toHour: D + 12 * H }));
      expect(later['lamp|']).toMatchObject({ responses: 0, clicks: 2, clickPositions: 4, clicked: 0 });
      expect(counters(await store.rollupTotals('w2', 'search', { fromHour: 0, toHour: 10 * D }))['wardrobe|']).toMatchObject({ clicks: 1, clicked: 0 });
    });

    it('adds a recommendation outcome to its method and to its tactic', async () => {
      const store = await fresh();
      await store.writeAnalytics(batch({
        responses: [{ websiteId: 'w1', queryId: 'r1', kind: 'recommendation', at: H, key: 'Popular', countedAs: null }],
        outcomes: [{ websiteId: 'w1', kind: 'recommendation', queryId: 'r1', at: H, key: 'Popular', tactic: 'Top', counters: { clicks: 1 }, flag: 'clicked' }],
      }));
      const totals = counters(await store.rollupTotals('w1', 'recommendation', { fromHour: 0, toHour: D }));
      expect(totals['Popular|']).toMatchObject({ clicks: 1, clicked: 1 });
      expect(totals['Popular|Top']).toMatchObject({ clicks: 1, clicked: 0 });
    });

    it('keeps each session once per query and lists the queries with the most sessions', async () => {
      const store = await fresh();
      const session = (query: string, s: string, websiteId = 'w1') => ({ websiteId, query, session: s, hour: H });
      await store.writeAnalytics(batch({ sessions: [session('sofa', 'a'), session('sofa', 'b'), session('lamp', 'a'), session('sofa', 'x', 'w2')] }));
      await store.writeAnalytics(batch({ sessions: [session('sofa', 'a'), session('sofa', 'c')] }));
      const found = await store.querySessions('w1', 10);
      expect(found.map((q) => [q.query, [...q.sessions].sort()])).toEqual([['sofa', ['a', 'b', 'c']], ['lamp', ['a']]]);
      expect((await store.querySessions('w1', 1)).map((q) => q.query)).toEqual(['sofa']);
    });

    it('deletes expired raw rows in batches and keeps the roll-ups', async () => {
      const store = await fresh();
      await store.writeAnalytics(batch({
        responses: [1, 2, 3].map((i) => ({ websiteId: 'w1', queryId: `old-${i}`, kind: 'search' as const, at: i, key: 'sofa', countedAs: null }))
          .concat([{ websiteId: 'w1', queryId: 'new', kind: 'search', at: 10 * D, key: 'sofa', countedAs: null }]),
        rollups: [delta('w1', 0, 'sofa', { responses: 3 })],
        sessions: [{ websiteId: 'w1', query: 'sofa', session: 'a', hour: 0 }],
      }));
      expect(await store.deleteExpired('w1', 'searches', D, 2)).toBe(3); // two responses, one session row
      expect(await store.deleteExpired('w1', 'searches', D, 2)).toBe(1);
      expect(await store.deleteExpired('w1', 'searches', D, 2)).toBe(0);
      expect(await store.querySessions('w1', 10)).toEqual([]);
      // A click on the expired search still counts as a click, not in ctr; one on the kept one does.
      const click = (queryId: string): ResponseOutcome => ({ websiteId: 'w1', kind: 'search', queryId, at: 10 * D, key: 'sofa', counters: { clicks: 1 }, flag: 'clicked' });
      await store.writeAnalytics(batch({ outcomes: [click('old-1'), click('new')] }));
      expect(counters(await store.rollupTotals('w1', 'search', { fromHour: 0, toHour: 11 * D }))['sofa|']).toMatchObject({ responses: 3, clicks: 2, clicked: 1 });
      const view = (receivedAt: number): ViewAppend => ({
        websiteId: 'w1', transactionId: randomUUID(), customerId: 'c', sessionId: 's', origin: 'contract', receivedAt,
        views: [{ refId: 'a', currentUrl: 'https://shop.example/a', eventTime: '2024-05-01T12:00:00Z', eventTimeMs: Date.UTC(2024, 4, 1, 12) }],
      });
      await store.appendViews(view(1_000));
      await store.appendViews(view(2_000));
      await store.appendViews(view(50 * D));
      expect(await store.deleteExpired('w2', 'views', 40 * D, 10)).toBe(0);
      expect(await store.deleteExpired('w1', 'purchases', 40 * D, 10)).toBe(0);
      expect(await store.deleteExpired('w1', 'views', 40 * D, 10)).toBe(2);
      expect((await store.readEvents({ afterSeq: 0, limit: 10, websiteId: 'w1' })).map((e) => e.receivedAt)).toEqual([50 * D]);
    });

    it('deletes expired clicks in batches, oldest first, and never gives a deleted number again', async () => {
      const store = await fresh();
      await store.appendClicks(contractClickAppend('w1', [{ clickId: 'c1' }, { clickId: 'c2' }, { clickId: 'c3' }], { receivedAt: 1_000 }));
      await store.appendClicks(contractClickAppend('w2', [{ clickId: 'c1' }], { receivedAt: 1_000 }));
      await store.appendClicks(contractClickAppend('w1', [{ clickId: 'c4' }], { receivedAt: 50 * D }));
      expect(await store.deleteExpired('w1', 'clicks', 40 * D, 2)).toBe(2);
      expect(await store.deleteExpired('w1', 'clicks', 40 * D, 2)).toBe(1);
      expect(await store.deleteExpired('w1', 'clicks', 40 * D, 2)).toBe(0);
      expect((await store.readClicks('w1', 0, 10)).map((c) => c.click.clickId)).toEqual(['c4']);
      expect((await store.readClicks('w2', 0, 10)).map((c) => c.click.clickId)).toEqual(['c1']);
      // Events: the newest ones expire too; the sequence goes on after them (a checkpoint naming them still fits).
      const view = (receivedAt: number): ViewAppend => ({
        websiteId: 'w1', transactionId: randomUUID(), customerId: 'c', sessionId: 's', origin: 'contract', receivedAt,
        views: [{ refId: 'a', currentUrl: 'https://shop.example/a', eventTime: '2024-05-01T12:00:00Z', eventTimeMs: Date.UTC(2024, 4, 1, 12) }],
      });
      await store.appendViews(view(1_000));
      await store.appendViews(view(2_000));
      const last = await store.lastSequence();
      expect(await store.deleteExpired('w1', 'views', 40 * D, 10)).toBe(2);
      await store.appendViews(view(50 * D));
      const [kept] = await store.readEvents({ afterSeq: 0, limit: 10 });
      expect(kept!.seq).toBeGreaterThan(last);
      expect((await store.readEvents({ afterSeq: last, limit: 10 })).map((e) => e.seq)).toEqual([kept!.seq]);
    });

    const key = (websiteId: string, id: string, extra: Partial<SearchKeyRecord> = {}): SearchKeyRecord => ({
      websiteId, id, keyHash: `${id}`.padEnd(64, '0'), keyPrefix: `sk_${id}`, actions: ['search'], scope: null, expiresAt: null, createdAt: 1000, ...extra,
    });

    it('stores, finds, lists and deletes search keys per website', async () => {
      const store = await fresh();
      const scoped = key('w1', 'k2', { scope: { brand: ['Acme', 'Ünï'], price: { min: 1, max: 9.5 } }, expiresAt: 9_000_000_000_000, createdAt: 2000 });
      await store.insertSearchKey(key('w1', 'k1'), 10);
      await store.insertSearchKey(scoped, 10);
      await store.insertSearchKey(key('w2', 'k3'), 10);
      expect(await store.findSearchKey(scoped.keyHash)).toEqual(scoped);
      expect(await store.findSearchKey('f'.repeat(64))).toBeUndefined();
      expect((await store.listSearchKeys('w1')).map((k) => k.id)).toEqual(['k1', 'k2']);
      expect(await store.listSearchKeys('nobody')).toEqual([]);
      // A website cannot delete another website's key.
      expect(await store.deleteSearchKey('w1', 'k3')).toBe(false);
      expect(await store.findSearchKey(key('w2', 'k3').keyHash)).toBeDefined();
      expect(await store.deleteSearchKey('w1', 'k1')).toBe(true);
      expect(await store.deleteSearchKey('w1', 'k1')).toBe(false);
      expect(await store.findSearchKey(key('w1', 'k1').keyHash)).toBeUndefined();
      expect((await store.listSearchKeys('w1')).map((k) => k.id)).toEqual(['k2']);
    });

    it('stores a search key only while its website holds fewer than the limit, concurrent inserts included', async () => {
      const store = await fresh();
      const inserted = await Promise.all(Array.from({ length: 8 }, (_, i) => store.insertSearchKey(key('w1', `c${i}`), 3)));
      expect(inserted.filter(Boolean)).toHaveLength(3);
      expect(await store.listSearchKeys('w1')).toHaveLength(3);
      // Counted per website.
      expect(await store.insertSearchKey(key('w2', 'd0'), 3)).toBe(true);
      const kept = (await store.listSearchKeys('w1'))[0]!;
      expect(await store.deleteSearchKey('w1', kept.id)).toBe(true);
      expect(await store.insertSearchKey(key('w1', 'e0'), 3)).toBe(true);
      expect(await store.insertSearchKey(key('w1', 'e1'), 3)).toBe(false);
      // Keys expired at the new key's creation take no room: they are deleted to make it, the live ones kept.
      await store.insertSearchKey(key('w3', 'x0', { expiresAt: 1500 }), 2);
      await store.insertSearchKey(key('w3', 'x1'), 2);
      expect(await store.insertSearchKey(key('w3', 'x2', { createdAt: 1400 }), 2)).toBe(false);
      expect(await store.insertSearchKey(key('w3', 'x3', { createdAt: 2000 }), 2)).toBe(true);
      expect((await store.listSearchKeys('w3')).map((k) => k.id).sort()).toEqual(['x1', 'x3']);
      expect(await store.insertSearchKey(key('w3', 'x4', { createdAt: 3000 }), 2)).toBe(false);
    });

    it('refuses a second search key with the same id or hash', async () => {
      const store = await fresh();
      await store.insertSearchKey(key('w1', 'k1'), 10);
      await expect(store.insertSearchKey(key('w2', 'k1', { keyHash: 'a'.repeat(64) }), 10)).rejects.toThrow();
      await expect(store.insertSearchKey(key('w2', 'other', { keyHash: key('w1', 'k1').keyHash }), 10)).rejects.toThrow();
      expect((await store.listSearchKeys('w2'))).toEqual([]);
    });

    it('stores clicks once per clickId (within a request, across requests, concurrently) and reads them back per website', async () => {
      const store = await fresh();
      // The repeated k1 is the same click (the fixture times clicks by their index: give it the first's time).
      const first = contractClickAppend('w1', [{ clickId: 'k1' }, { clickId: 'k1', eventTimeMs: Date.UTC(2024, 4, 1, 12) }, { refId: 'sku-2' }, { refId: 'sku-2' }]);
      expect(await store.appendClicks(first)).toEqual({ transactionId: first.transactionId, stored: [0, 2, 3] });
      const replay = contractClickAppend('w1', [{ clickId: 'k1' }]);
      expect(await store.appendClicks(replay)).toEqual({ transactionId: first.transactionId, stored: [] });
      const concurrent = await Promise.all([1, 2, 3].map(() => store.appendClicks(contractClickAppend('w1', [{ clickId: 'k2' }]))));
      expect(concurrent.map((r) => r.stored.length).sort()).toEqual([0, 0, 1]);
      await store.appendClicks(contractClickAppend('w2', [{ clickId: 'k1', list: { kind: 'recommendation', source: 'PopularItems', variant: null } }]));
      const w1 = await store.readClicks('w1', 0, 100);
      expect(w1.map((c) => [c.click.clickId ?? null, c.click.refId])).toEqual([['k1', 'sku-1'], [null, 'sku-2'], [null, 'sku-2'], ['k2', 'sku-1']]);
      for (let i = 1; i < w1.length; i++) expect(w1[i]!.seq).toBeGreaterThan(w1[i - 1]!.seq);
      expect(w1[0]).toMatchObject({ websiteId: 'w1', transactionId: first.transactionId, customerId: 'c-1', sessionId: 's-1' });
      expect((await store.readClicks('w1', w1[1]!.seq, 1)).map((c) => c.seq)).toEqual([w1[2]!.seq]);
      const w2 = await store.readClicks('w2', 0, 100);
      expect(w2.map((c) => c.click.list)).toEqual([{ kind: 'recommendation', source: 'PopularItems', variant: null }]);
    });

    it('refuses a request whose clickId the website holds with other content, storing nothing of it', async () => {
      const store = await fresh();
      const first = contractClickAppend('w1', [{ clickId: 'k1' }]);
      await store.appendClicks(first);
      // Another product, another customer, or a clickId twice in one request with two contents.
      for (const [clicks, extra] of [
        [[{ clickId: 'k9' }, { clickId: 'k1', refId: 'sku-2' }], {}],
        [[{ clickId: 'k1' }], { customerId: 'c-2' }],
      ] as [Partial<ClickEventData>[], Partial<ClickAppend>][]) {
        const refused = await store.appendClicks(contractClickAppend('w1', clicks, extra));
        expect(refused.stored).toEqual([]);
        expect(refused.conflicts).toEqual([{ index: clicks.findIndex((c) => c.clickId === 'k1'), clickId: 'k1', transactionId: first.transactionId }]);
      }
      const inRequest = contractClickAppend('w1', [{ clickId: 'k5', refId: 'a' }, { clickId: 'k5', refId: 'b' }]);
      expect(await store.appendClicks(inRequest)).toEqual({ transactionId: inRequest.transactionId, stored: [], conflicts: [{ index: 1, clickId: 'k5', transactionId: inRequest.transactionId }] });
      // Nothing of the refused requests was stored (k9 and k5 are new), and the same content still replays.
      expect((await store.readClicks('w1', 0, 100)).map((c) => c.click.clickId)).toEqual(['k1']);
      expect(await store.appendClicks(contractClickAppend('w1', [{ clickId: 'k1' }]))).toEqual({ transactionId: first.transactionId, stored: [] });
    });

    it('finds the clicks a purchase may convert: by clickId, or by session, refId and time', async () => {
      const store = await fresh();
      const t = Date.UTC(2024, 4, 1, 12);
      await store.appendClicks(contractClickAppend('w1', [
        { refId: 'a', eventTimeMs: t }, { refId: 'b', eventTimeMs: t }, { refId: 'a', eventTimeMs: t - 10_000 }, { refId: 'a', eventTimeMs: t + 10_000 },
      ]));
      await store.appendClicks(contractClickAppend('w1', [{ refId: 'a', eventTimeMs: t }], { sessionId: 's-2' }));
      await store.appendClicks(contractClickAppend('w1', [{ refId: 'z', clickId: 'named', eventTimeMs: 0 }], { sessionId: 's-3' }));
      await store.appendClicks(contractClickAppend('w2', [{ refId: 'a', eventTimeMs: t }]));
      const found = await store.clickCandidates('w1', { clickIds: ['named'], sessionId: 's-1', refIds: ['a'], since: t - 5_000, until: t });
      expect(found.map((c) => [c.sessionId, c.click.refId, c.click.eventTimeMs])).toEqual([['s-1', 'a', t], ['s-3', 'z', 0]]);
      expect(await store.clickCandidates('w1', { clickIds: [], sessionId: 's-9', refIds: ['a'], since: 0, until: t })).toEqual([]);
    });

    it('keeps result pages per website, first write wins, and prunes them by age and count', async () => {
      const store = await fresh();
      await store.addResultPages([contractResultPage('w1', 'q1', 1_000), contractResultPage('w1', 'q2', 2_000, ['c']), contractResultPage('w2', 'q3', 1_000)]);
      await store.addResultPages([contractResultPage('w1', 'q1', 9_000, ['other'])]);
      const found = await store.findResultPages('w1', ['q1', 'q2', 'q3', 'nope']);
      expect(found.sort((a, b) => (a.queryId < b.queryId ? -1 : 1))).toEqual([contractResultPage('w1', 'q1', 1_000), contractResultPage('w1', 'q2', 2_000, ['c'])]);
      await store.addResultPages([contractResultPage('w1', 'q4', 3_000), contractResultPage('w1', 'q5', 4_000)]);
      expect(await store.pruneResultPages([{ websiteId: 'w1', before: 1_500, keep: 2 }], 100)).toBe(2);
      expect((await store.findResultPages('w1', ['q1', 'q2', 'q4', 'q5'])).map((p) => p.queryId).sort()).toEqual(['q4', 'q5']);
      expect((await store.findResultPages('w2', ['q3'])).map((p) => p.queryId)).toEqual(['q3']);
    });

    it('hands back an outcome that waits for a response it does not hold, applies it once the response is there', async () => {
      const store = await fresh();
      const at = Date.UTC(2026, 0, 1, 10);
      const click = (queryId: string, wait: boolean): ResponseOutcome => ({
        websiteId: 'w1', kind: 'search', at, key: 'sofa', counters: { clicks: 1 }, flag: 'clicked', queryId, wait,
      });
      // Index 1 waits (its response is not there yet); 0 is known, 2 does not wait: both applied.
      expect(await store.writeAnalytics({
        responses: [{ websiteId: 'w1', queryId: 'known', kind: 'search', at, key: 'sofa', countedAs: null }], rollups: [], sessions: [],
        outcomes: [click('known', true), click('later', true), click('never', false)],
      })).toEqual([1]);
      const totals = async () => (await store.rollupTotals('w1', 'search', { fromHour: at, toHour: at })).find((t) => t.key === 'sofa' && t.tactic === '')!.counters;
      expect(await totals()).toMatchObject({ clicks: 2, clicked: 1 });
      // Another replica's write brings the response: the outcome, tried again, counts with its flag.
      expect(await store.writeAnalytics({
        responses: [{ websiteId: 'w1', queryId: 'later', kind: 'search', at, key: 'sofa', countedAs: null }], rollups: [], sessions: [],
        outcomes: [click('later', true)],
      })).toEqual([]);
      expect(await totals()).toMatchObject({ clicks: 3, clicked: 2 });
    });

    it('keeps the span of answers a result list stands for (decision 0091)', async () => {
      const store = await fresh();
      const spanned = { ...contractResultPage('w1', 'qs.0', 1_000), span: 64 };
      await store.addResultPages([spanned, contractResultPage('w1', 'qs.1s', 1_001)]);
      const found = await store.findResultPages('w1', ['qs.0', 'qs.1s']);
      expect(found.sort((a, b) => (a.queryId < b.queryId ? -1 : 1))).toEqual([spanned, contractResultPage('w1', 'qs.1s', 1_001)]);
    });

    it('keeps the experiment of a result list', async () => {
      const store = await fresh();
      const page = { ...contractResultPage('w1', 'qx', 1_000), variant: 'interleaved', experiment: { id: 'e1', variant: 'interleaved', customerId: 'c-ü', teams: ['A', 'B'] } };
      await store.addResultPages([page]);
      expect(await store.findResultPages('w1', ['qx'])).toEqual([page]);
    });

    it('stores experiments, one not stopped per website and kind (also concurrently), stops and deletes stopped ones', async () => {
      const store = await fresh();
      const exp = (id: string, kind: 'search' | 'recommendations', extra: Partial<ExperimentRecord> = {}): ExperimentRecord => ({
        websiteId: 'w1', id, kind, name: `n-${id}`, method: 'ab', variants: [{ name: 'control', weight: 1 }, { name: 'b', weight: 2, settings: { fieldWeights: { title: 3 } } }],
        from: null, until: null, createdAt: 1_000, stoppedAt: null, ...extra,
      });
      const results = await Promise.all([store.createExperiment(exp('e1', 'search'), 1_000), store.createExperiment(exp('e2', 'search'), 1_000)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results[0] ? 'e1' : 'e2';
      expect(await store.createExperiment(exp('e3', 'recommendations'), 1_000)).toBe(true);
      expect(await store.createExperiment({ ...exp('e4', 'search'), websiteId: 'w2' }, 1_000)).toBe(true);
      expect((await store.listExperiments('w1')).map((e) => e.id).sort()).toEqual([winner, 'e3'].sort());
      expect((await store.activeExperiments()).length).toBe(3);
      expect(await store.deleteExperiment('w1', winner)).toBe(false);
      const stopped = await store.stopExperiment('w1', winner, 5_000);
      expect(stopped).toEqual({ ...exp(winner, 'search'), stoppedAt: 5_000 });
      // Stopping again keeps the first stop time.
      expect((await store.stopExperiment('w1', winner, 6_000))?.stoppedAt).toBe(5_000);
      expect(await store.stopExperiment('w1', 'nope', 6_000)).toBeUndefined();
      // An experiment whose until has passed is stopped (at its until) by the next creation of its kind.
      expect(await store.createExperiment(exp('e5', 'search', { until: 8_000 }), 7_000)).toBe(true);
      expect(await store.createExperiment(exp('e6', 'search'), 7_500)).toBe(false);
      expect(await store.createExperiment(exp('e6', 'search'), 8_000)).toBe(true);
      expect((await store.listExperiments('w1')).find((e) => e.id === 'e5')?.stoppedAt).toBe(8_000);
      expect(await store.deleteExperiment('w1', winner)).toBe(true);
      expect(await store.deleteExperiment('w1', winner)).toBe(false);
      expect((await store.listExperiments('w1')).map((e) => e.id).sort()).toEqual(['e3', 'e5', 'e6']);
    });

    it('prunes result pages in batches of at most the limit per condition, oldest first', async () => {
      const store = await fresh();
      await store.addResultPages(['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((id, i) => contractResultPage('w1', id, 1_000 * (i + 1))));
      // q1, q2 expired; of the rest only the 2 newest are kept.
      const retention = [{ websiteId: 'w1', before: 2_500, keep: 2 }];
      const left = async () => (await store.findResultPages('w1', ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'])).map((p) => p.queryId).sort();
      expect(await store.pruneResultPages(retention, 1)).toBe(2);
      expect(await left()).toEqual(['q3', 'q4', 'q5', 'q6']);
      expect(await store.pruneResultPages(retention, 1)).toBe(1);
      expect(await left()).toEqual(['q4', 'q5', 'q6']);
      expect(await store.pruneResultPages(retention, 1)).toBe(1);
      expect(await store.pruneResultPages(retention, 1)).toBe(0);
      expect(await left()).toEqual(['q5', 'q6']);
    });

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      it('keeps clicks and result pages across a reopen', async () => {
        const store = await fresh();
        const a = contractClickAppend('w1', [{ clickId: 'k1' }]);
        await store.appendClicks(a);
        await store.addResultPages([contractResultPage('w1', 'q1', 1_000)]);
        open.splice(open.indexOf(store), 1);
        const again = await reopen(store);
        open.push(again);
        expect(await again.appendClicks(contractClickAppend('w1', [{ clickId: 'k1' }]))).toEqual({ transactionId: a.transactionId, stored: [] });
        expect(await again.findResultPages('w1', ['q1'])).toEqual([contractResultPage('w1', 'q1', 1_000)]);
      });
      it('keeps settings across a reopen', async () => {
        const store = await fresh();
        const written = await store.putSettings('w1', { redirects: [{ queries: ['help'], url: '/help' }] }, 0);
        open.splice(open.indexOf(store), 1);
        const again = await reopen(store);
        open.push(again);
        expect(await again.getSettings('w1')).toEqual(written);
        expect((await again.putSettings('w1', {}, written!.version))!.version).toBeGreaterThan(written!.version);
      });

      it('keeps search keys across a reopen', async () => {
        const store = await fresh();
        await store.insertSearchKey(key('w1', 'k1', { scope: { brand: { not: ['x'] } } }), 10);
        open.splice(open.indexOf(store), 1);
        const again = await reopen(store);
        open.push(again);
        expect(await again.listSearchKeys('w1')).toEqual([key('w1', 'k1', { scope: { brand: { not: ['x'] } } })]);
      });

      it('keeps everything across a reopen', async () => {
        const store = await fresh();
        const a = contractPurchaseAppend('w1', [contractPurchaseEvent('o1', { priceBeatPromotions: [{ code: 'K', discount: 2 }] })]);
        await store.appendPurchases(a);
        await store.appendViews(viewAppend('w1', ['v']));
        await store.markCouponUsed('w1', 'K', 7000);
        open.splice(open.indexOf(store), 1);
        const again = await reopen(store);
        open.push(again);
        expect(await again.counts('w1')).toEqual({ views: 1, purchases: 1, orders: 1, coupons: { issued: 1, used: 1 } });
        const r = await again.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1', { priceBeatPromotions: [{ code: 'K', discount: 2 }] })]));
        expect(r.transactionId).toBe(a.transactionId);
        expect(await again.lastSequence()).toBe(2);
      });
    }
  });
}

/** A unique name for test schemas, files and websites. */
export function uniqueTestName(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}
