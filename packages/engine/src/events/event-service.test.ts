import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../config.js';
import { AisleError, ValidationError } from '../errors.js';
import { EventService } from './event-service.js';
import { lineReader, spawnTs } from './__tests__/child-process.js';
import {
  AD_SET, CAMPAIGN, CUSTOMER, CUSTOMER_2, REC, RecordingSink, SESSION, TACTIC, WEBSITE, WEBSITE_B, WIDGET, event, product, purchaseBody,
  signedRetailMedia, viewBody,
} from './__tests__/fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;

const open: EventService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function service(kind: 'memory' | 'sqlite', sink = new RecordingSink(), extra: { file?: string; onSinkError?: (e: unknown) => void } = {}) {
  const store: StoreConfig = kind === 'memory' ? { type: 'memory' } : { type: 'embedded', path: extra.file ?? `svc-${fileNo++}.sqlite` };
  const s = await EventService.open({ store, dataDir: dir, websites: [WEBSITE, WEBSITE_B], sink, ...(extra.onSinkError && { onSinkError: extra.onSinkError }) });
  open.push(s);
  return { s, sink };
}

async function rejection(p: Promise<unknown>): Promise<AisleError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AisleError);
    return err as AisleError;
  }
  throw new Error('expected a rejection');
}

for (const kind of ['memory', 'sqlite'] as const) {
  describe(`EventService on ${kind}`, () => {
    it('stores purchases, acknowledges and then feeds the sink one record per order', async () => {
      const { s, sink } = await service(kind);
      const ack = await s.recordPurchases('site-a', purchaseBody([
        event('o-1', { products: [product({ refId: 'a', quantity: 2, price: '3.5' }), product({ refId: 'b' })] }), event('o-2'),
      ]));
      expect(ack.status).toBe('Accepted');
      expect(ack.transactionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(sink.purchases).toEqual([
        { websiteId: 'site-a', customerId: CUSTOMER, sessionId: SESSION, orderId: 'o-1', eventTime: Date.UTC(2024, 4, 1, 12), items: [{ refId: 'a', quantity: 2, price: 3.5 }, { refId: 'b', quantity: 1, price: 10 }] },
        { websiteId: 'site-a', customerId: CUSTOMER, sessionId: SESSION, orderId: 'o-2', eventTime: Date.UTC(2024, 4, 1, 12), items: [{ refId: 'sku-1', quantity: 1, price: 10 }] },
      ]);
      await s.recordViews('site-a', viewBody(['a', 'b']));
      expect(sink.views.map((v) => v.refId)).toEqual(['a', 'b']);
      expect(await s.counts('site-a')).toEqual({ views: 2, purchases: 1, orders: 2, coupons: { issued: 0, used: 0 } });
      expect(await s.counts('site-b')).toEqual({ views: 0, purchases: 0, orders: 0, coupons: { issued: 0, used: 0 } });
    });

    it('answers a replayed order with its first transactionId, once in the sink and the counts', async () => {
      const { s, sink } = await service(kind);
      const first = await s.recordPurchases('site-a', purchaseBody([event('o-1')]));
      const again = await s.recordPurchases('site-a', purchaseBody([event('o-1')]));
      expect(again.transactionId).toBe(first.transactionId);
      const concurrent = await Promise.all(Array.from({ length: 30 }, () => s.recordPurchases('site-a', purchaseBody([event('o-2')]))));
      expect(new Set(concurrent.map((a) => a.transactionId)).size).toBe(1);
      expect(sink.purchases.map((p) => p.orderId)).toEqual(['o-1', 'o-2']);
      expect((await s.counts('site-a')).orders).toBe(2);
    });

    it('stores nothing for an invalid body and throws the problem details', async () => {
      const { s, sink } = await service(kind);
      const err = await rejection(s.recordPurchases('site-a', purchaseBody([event('ok'), event('bad', { products: [] })])));
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.problem?.errors).toEqual({ 'events[1].Products': ['The Products field must have at least 1 entry.'] });
      await rejection(s.recordViews('site-a', { customerId: CUSTOMER }));
      expect(sink.purchases).toEqual([]);
      expect(await s.counts('site-a')).toMatchObject({ views: 0, orders: 0 });
      expect((await rejection(s.recordPurchases('nope', purchaseBody()))).code).toBe('WEBSITE_NOT_FOUND');
    });

    it('runs the coupon call: by website id or client, bad request, not found, already used', async () => {
      const { s } = await service(kind);
      expect(await s.issueCoupons('site-a', [{ code: 'A' }, { code: 'B', customerId: CUSTOMER.toUpperCase(), discount: 5 }])).toEqual({ issued: 2 });
      const used = await s.markCouponUsed('site-a', 'A');
      expect(used).toMatchObject({ code: 'A', websiteId: 'site-a' });
      expect(Number.isNaN(Date.parse(used.usedAt))).toBe(false);
      expect((await s.markCouponUsed('client-a', 'B')).websiteId).toBe('site-a');
      expect((await rejection(s.markCouponUsed('site-a', 'A'))).code).toBe('COUPON_ALREADY_USED');
      expect((await rejection(s.markCouponUsed('site-a', 'Z'))).code).toBe('COUPON_NOT_FOUND');
      expect((await rejection(s.markCouponUsed('site-b', 'A'))).code).toBe('COUPON_NOT_FOUND');
      expect((await rejection(s.markCouponUsed('nobody', 'A'))).code).toBe('COUPON_NOT_FOUND');
      expect((await rejection(s.markCouponUsed('site-a', ''))).code).toBe('COUPON_BAD_REQUEST');
      expect((await rejection(s.markCouponUsed('', 'A'))).code).toBe('COUPON_BAD_REQUEST');
      expect((await rejection(s.markCouponUsed(undefined as never, 'A'))).code).toBe('COUPON_BAD_REQUEST');
      expect((await rejection(s.issueCoupons('site-a', [{ code: '' }]))).problem?.errors).toEqual({ 'coupons[0].Code': ['The Code field must be a non-empty string.'] });
      // Every failure is listed, by the contract's schema (the adapter runs the same one).
      const bad = (await rejection(s.issueCoupons('site-a', [{ code: 'C'.repeat(1000) }, { code: 'D', discount: 'cheap' }]))).problem?.errors;
      expect(Object.keys(bad ?? {}).sort()).toEqual(['coupons[0].Code', 'coupons[1].Discount']);
      expect(await s.counts('site-a')).toMatchObject({ coupons: { issued: 2, used: 2 } });
      // A decimal string is a discount, as everywhere on the events wire.
      expect(await s.issueCoupons('site-a', [{ code: 'DEC', discount: '12.50' }])).toEqual({ issued: 1 });
    });

    it('lets exactly one of many concurrent coupon calls succeed', async () => {
      const { s } = await service(kind);
      await s.issueCoupons('site-a', [{ code: 'RACE' }]);
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => s.markCouponUsed('client-a', 'RACE')));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.every((r) => r.status === 'fulfilled' || (r.reason as AisleError).code === 'COUPON_ALREADY_USED')).toBe(true);
    });

    it('learns a code from a purchase and flags its reuse by the same customer', async () => {
      const { s } = await service(kind);
      const promo = { priceBeatPromotions: [{ code: 'PB-1', discount: 4 }] };
      await s.recordPurchases('site-a', purchaseBody([event('o-1', promo)]));
      await s.markCouponUsed('site-a', 'PB-1');
      await s.recordPurchases('site-a', purchaseBody([event('o-2', promo)]));
      await s.recordPurchases('site-a', purchaseBody([event('o-3', promo)], { customerId: CUSTOMER_2 }));
      const report = await s.attributionReport('site-a');
      expect(report.priceBeat).toEqual([{ code: 'PB-1', discount: 12, orders: 3, reused: 1 }]);
      expect(await s.counts('site-a')).toMatchObject({ orders: 3, coupons: { issued: 1, used: 1 } });
    });

    it('verifies retail-media slot data and keeps flagged items out of spend', async () => {
      const { s } = await service(kind);
      const bad = { ...signedRetailMedia(), hmac: signedRetailMedia({ secret: 'wrong' }).hmac };
      await s.recordPurchases('site-a', purchaseBody([event('o-1', {
        products: [
          product({ refId: 'ok', quantity: 3, price: 20, ...signedRetailMedia({ costPerAction: 1.5, costPerClick: 0.25 }) }),
          product({ refId: 'forged', quantity: 1, price: 20, ...bad }),
          product({ refId: 'future', ...signedRetailMedia({ timeStamp: '2024-05-01T12:06:00Z' }) }),
          product({ refId: 'soon', ...signedRetailMedia({ timeStamp: '2024-05-01T12:04:00Z' }) }),
          product({ refId: 'old', ...signedRetailMedia({ timeStamp: '2024-03-01T12:00:00Z' }) }),
        ],
      })]));
      const report = await s.attributionReport('site-a');
      expect(report.retailMedia).toEqual([{ adSetId: AD_SET, units: 4, revenue: 70, spend: 5, clicksCost: 0.25, milleCost: 0, flagged: 3 }]);
      expect(report.flagged).toEqual([
        { orderId: 'o-1', refId: 'forged', reason: 'hmac_invalid' },
        { orderId: 'o-1', refId: 'future', reason: 'timestamp_in_future' },
        { orderId: 'o-1', refId: 'old', reason: 'timestamp_too_old' },
      ]);
      expect(report.totals).toMatchObject({ revenue: 110, units: 7, orders: 1, attributedRevenue: 70 });
    });

    it('reports attribution per recommender, widget, campaign, tactic and ATS model', async () => {
      const { s } = await service(kind);
      await s.recordPurchases('site-a', purchaseBody([
        event('o-1', { recommenderId: REC, products: [product({ refId: 'a', quantity: 2, price: 5, widgetId: WIDGET }), product({ refId: 'b', price: 7, atsModel: 'ats-1' })] }),
        event('o-2', { eventTime: '2024-06-01T00:00:00Z', products: [product({ price: 3, campaignId: CAMPAIGN, tacticId: TACTIC }), product({ price: 100 })] }),
      ]));
      const r = await s.attributionReport('site-a');
      expect(r.byRecommender).toEqual([{ key: REC, revenue: 17, orders: 1, units: 3 }]);
      expect(r.byWidget).toEqual([{ key: WIDGET, revenue: 10, orders: 1, units: 2 }]);
      expect(r.byAtsModel).toEqual([{ key: 'ats-1', revenue: 7, orders: 1, units: 1 }]);
      expect(r.byCampaign).toEqual([{ key: CAMPAIGN, revenue: 3, orders: 1, units: 1 }]);
      expect(r.byTactic).toEqual([{ key: TACTIC, revenue: 3, orders: 1, units: 1 }]);
      expect(r.totals).toEqual({ revenue: 120, orders: 2, units: 5, attributedRevenue: 20, clickAttributedRevenue: 0 });
      const may = await s.attributionReport('site-a', { from: '2024-05-01T00:00:00Z', to: '2024-05-31T23:59:59Z' });
      expect(may.totals).toEqual({ revenue: 17, orders: 1, units: 3, attributedRevenue: 17, clickAttributedRevenue: 0 });
      expect(may.from).toBe('2024-05-01T00:00:00Z');
      expect((await rejection(s.attributionReport('site-a', { from: 'never' }))).problem?.errors).toHaveProperty('from');
    });

    it('keeps acknowledging when the sink throws', async () => {
      const errors: unknown[] = [];
      const sink = new RecordingSink();
      sink.onPurchase = () => { throw new Error('model broke'); };
      const { s } = await service(kind, sink, { onSinkError: (e) => errors.push(e) });
      expect((await s.recordPurchases('site-a', purchaseBody())).status).toBe('Accepted');
      expect(errors).toHaveLength(1);
      expect((await s.counts('site-a')).orders).toBe(1);
    });
  });
}

describe('EventService store selection and replay', () => {
  it('uses memory without store and dataDir, SQLite in dataDir by default', async () => {
    const mem = await EventService.open({ websites: [WEBSITE], sink: new RecordingSink() });
    open.push(mem);
    expect(mem.store.kind).toBe('memory');
    const d = mkdtempSync(path.join(dir, 'dd-'));
    const emb = await EventService.open({ dataDir: d, websites: [WEBSITE], sink: new RecordingSink() });
    open.push(emb);
    expect(emb.store.kind).toBe('embedded');
    expect(existsSync(path.join(d, 'aisle.sqlite'))).toBe(true);
  });

  it('replays every stored event in order after a restart', async () => {
    const file = `replay-${fileNo++}.sqlite`;
    const { s } = await service('sqlite', new RecordingSink(), { file });
    await s.recordPurchases('site-a', purchaseBody([event('o-1')]));
    await s.recordViews('site-a', viewBody(['v1']));
    await s.recordPurchases('site-b', purchaseBody([event('o-1'), event('o-2')]));
    await s.close();
    const { s: again, sink } = await service('sqlite', new RecordingSink(), { file });
    expect(sink.purchases).toEqual([]);
    await again.replay();
    expect(sink.purchases.map((p) => `${p.websiteId}/${p.orderId}`)).toEqual(['site-a/o-1', 'site-b/o-1', 'site-b/o-2']);
    expect(sink.views.map((v) => v.refId)).toEqual(['v1']);
    expect((await again.recordPurchases('site-a', purchaseBody([event('o-1')]))).status).toBe('Accepted');
    expect((await again.counts('site-a')).orders).toBe(1);
  });

  it('feeds an event recorded during the replay once, after the stored ones', async () => {
    const file = `replay-${fileNo++}.sqlite`;
    const { s } = await service('sqlite', new RecordingSink(), { file });
    await s.recordPurchases('site-a', purchaseBody([event('o-1')]));
    await s.recordViews('site-a', viewBody(['v1']));
    await s.close();
    const { s: again, sink } = await service('sqlite', new RecordingSink(), { file });
    // Stored before the replay reads (so the replay reads it back too) and acknowledged while it runs.
    const recorded = again.recordPurchases('site-a', purchaseBody([event('o-2')]));
    const replayed = again.replay();
    expect((await recorded).status).toBe('Accepted');
    await again.recordViews('site-a', viewBody(['v2']));
    await replayed;
    expect(sink.purchases.map((p) => p.orderId)).toEqual(['o-1', 'o-2']);
    expect(sink.views.map((v) => v.refId)).toEqual(['v1', 'v2']);
    // Once the replay is over, events reach the sink at once.
    await again.recordViews('site-a', viewBody(['v3']));
    expect(sink.views.map((v) => v.refId)).toEqual(['v1', 'v2', 'v3']);
  });

  it('fails to open with STORE_FAILURE when PostgreSQL is unreachable', async () => {
    const err = await rejection(EventService.open({ store: { type: 'postgres', url: 'postgres://postgres@127.0.0.1:1/none' }, websites: [], sink: new RecordingSink() }));
    expect(err.code).toBe('STORE_FAILURE');
  });

  it('lets exactly one coupon call succeed across two processes on one SQLite file', async () => {
    const d = mkdtempSync(path.join(dir, 'procs-'));
    const s = await EventService.open({ dataDir: d, websites: [WEBSITE], sink: new RecordingSink() });
    open.push(s);
    await s.issueCoupons('site-a', [{ code: 'PROC' }]);
    const children = [0, 1].map(() => spawnTs('./coupon-child.ts', [d, '-', 'PROC']));
    try {
      const readers = children.map(lineReader);
      await Promise.all(readers.map((r) => r.waitFor((l) => l === 'ready')));
      for (const c of children) c.stdin.write('go\n');
      const outcomes = (await Promise.all(readers.map((r) => r.waitFor((l) => l.startsWith('['))))).flatMap((l) => JSON.parse(l) as string[]);
      expect(outcomes.filter((o) => o === 'used')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'COUPON_ALREADY_USED')).toHaveLength(9);
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    }
  });

  it('adds websites at run time and refuses calls after close', async () => {
    const s = await EventService.open({ websites: [], sink: new RecordingSink() });
    s.addWebsite(WEBSITE);
    expect((await s.recordPurchases('site-a', purchaseBody())).status).toBe('Accepted');
    await s.close();
    expect((await rejection(s.recordPurchases('site-a', purchaseBody()))).code).toBe('ENGINE_CLOSED');
  });
});
