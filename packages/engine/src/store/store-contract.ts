/**
 * The one contract suite every {@link Store} implementation runs (hono's router pattern): each
 * implementation's test file calls {@link runStoreContract} with a factory for a fresh, empty store.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { PurchaseAppend, PurchaseEventData, SearchKeyRecord, Store, ViewAppend } from './store.js';

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
      expect(await store.issueCoupons('w1', [{ code: 'A' }, { code: 'B', customerId: 'c-9', discount: 5 }], 1000)).toBe(2);
      expect(await store.issueCoupons('w1', [{ code: 'A' }, { code: 'C' }], 1000)).toBe(1);
      expect(await store.getCoupon('w1', 'B')).toMatchObject({ code: 'B', customerId: 'c-9', discount: 5, state: 'issued', source: 'admin' });
      expect(await store.markCouponUsed('w1', 'A', 2000)).toEqual({ status: 'used', usedAt: 2000 });
      expect(await store.markCouponUsed('w1', 'A', 3000)).toEqual({ status: 'already_used', usedAt: 2000 });
      expect(await store.markCouponUsed('w1', 'nope', 3000)).toEqual({ status: 'not_found' });
      expect(await store.markCouponUsed('w2', 'B', 3000)).toEqual({ status: 'not_found' });
      expect(await store.counts('w1')).toMatchObject({ coupons: { issued: 3, used: 1 } });
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

    const key = (websiteId: string, id: string, extra: Partial<SearchKeyRecord> = {}): SearchKeyRecord => ({
      websiteId, id, keyHash: `${id}`.padEnd(64, '0'), keyPrefix: `sk_${id}`, actions: ['search'], scope: null, expiresAt: null, createdAt: 1000, ...extra,
    });

    it('stores, finds, lists and deletes search keys per website', async () => {
      const store = await fresh();
      const scoped = key('w1', 'k2', { scope: { brand: ['Acme', 'Ünï'], price: { min: 1, max: 9.5 } }, expiresAt: 9_000_000_000_000, createdAt: 2000 });
      await store.insertSearchKey(key('w1', 'k1'));
      await store.insertSearchKey(scoped);
      await store.insertSearchKey(key('w2', 'k3'));
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

    it('refuses a second search key with the same id or hash', async () => {
      const store = await fresh();
      await store.insertSearchKey(key('w1', 'k1'));
      await expect(store.insertSearchKey(key('w2', 'k1', { keyHash: 'a'.repeat(64) }))).rejects.toThrow();
      await expect(store.insertSearchKey(key('w2', 'other', { keyHash: key('w1', 'k1').keyHash }))).rejects.toThrow();
      expect((await store.listSearchKeys('w2'))).toEqual([]);
    });

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      it('keeps search keys across a reopen', async () => {
        const store = await fresh();
        await store.insertSearchKey(key('w1', 'k1', { scope: { brand: { not: ['x'] } } }));
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
        const r = await again.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1')]));
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
