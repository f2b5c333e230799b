import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AisleError } from '../errors.js';
import { CuttableProxy, TEST_PG_URL, TestSchemas, requirePostgres } from '../store/pg-test-env.js';
import { EventService } from './event-service.js';
import { RecordingSink, WEBSITE, event, purchaseBody, viewBody } from './__tests__/fixtures.js';
import { lineReader, spawnTs } from './__tests__/child-process.js';

const schemas = new TestSchemas();
beforeAll(requirePostgres);
afterAll(() => schemas.dropAll());

const open: EventService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function replica(schema: string, pollIntervalMs = 60_000) {
  const sink = new RecordingSink();
  const s = await EventService.open({ store: { type: 'postgres', url: TEST_PG_URL, schema, pollIntervalMs }, websites: [WEBSITE], sink });
  open.push(s);
  return { s, sink };
}

describe('EventService on PostgreSQL with several replicas', () => {
  it('feeds purchases written through one replica to the other replica by polling', async () => {
    const schema = schemas.next();
    const a = await replica(schema);
    const b = await replica(schema);
    await a.s.recordPurchases('site-a', purchaseBody([event('o-1')]));
    await a.s.recordViews('site-a', viewBody(['v']));
    expect(b.sink.purchases).toEqual([]);
    await b.s.pollOnce();
    expect(b.sink.purchases.map((p) => p.orderId)).toEqual(['o-1']);
    expect(b.sink.views.map((v) => v.refId)).toEqual(['v']);
    // A replica does not feed its own events twice.
    await a.s.pollOnce();
    expect(a.sink.purchases).toHaveLength(1);
    await b.s.pollOnce();
    expect(b.sink.purchases).toHaveLength(1);
  });

  it('polls on its own every pollIntervalMs', async () => {
    const schema = schemas.next();
    const a = await replica(schema);
    const b = await replica(schema, 20);
    await a.s.recordPurchases('site-a', purchaseBody([event('o-1')]));
    await vi.waitFor(() => expect(b.sink.purchases).toHaveLength(1), { timeout: 10_000, interval: 20 });
  });

  it('records concurrent duplicates across replicas once, and a third replica sees every event exactly once', async () => {
    const schema = schemas.next();
    const a = await replica(schema);
    const b = await replica(schema);
    const c = await replica(schema);
    const polling = (async () => {
      for (let i = 0; i < 20; i++) await c.s.pollOnce();
    })();
    const writes = [];
    for (let i = 0; i < 40; i++) {
      writes.push(a.s.recordPurchases('site-a', purchaseBody([event(`o-${i}`)])));
      writes.push(b.s.recordPurchases('site-a', purchaseBody([event(`o-${i}`)])));
    }
    const acks = await Promise.all(writes);
    await polling;
    for (let i = 0; i < 40; i++) expect(acks[2 * i]!.transactionId).toBe(acks[2 * i + 1]!.transactionId);
    expect((await a.s.counts('site-a')).orders).toBe(40);
    expect(a.sink.purchases.length + b.sink.purchases.length).toBe(40);
    await c.s.pollOnce();
    const seen = c.sink.purchases.map((p) => p.orderId);
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
  });

  it('lets exactly one coupon call succeed across two replicas', async () => {
    const schema = schemas.next();
    const a = await replica(schema);
    const b = await replica(schema);
    await a.s.issueCoupons('site-a', [{ code: 'RACE' }]);
    const results = await Promise.allSettled([...Array.from({ length: 10 }, () => a.s.markCouponUsed('site-a', 'RACE')), ...Array.from({ length: 10 }, () => b.s.markCouponUsed('client-a', 'RACE'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').every((r) => (r.reason as AisleError).code === 'COUPON_ALREADY_USED')).toBe(true);
  });

  it('answers a coupon call naming a code no code can be (a NUL, an unpaired surrogate) as unknown, not as a store failure', async () => {
    const { s } = await replica(schemas.next());
    // PostgreSQL refused the text: 503 "the event store failed" on a public, unauthenticated call.
    for (const code of ['A\u0000', 'A\udc00']) await expect(s.markCouponUsed('site-a', code)).rejects.toMatchObject({ code: 'COUPON_NOT_FOUND', status: 404 });
  });

  it('lets exactly one coupon call succeed across two processes', async () => {
    const schema = schemas.next();
    const a = await replica(schema);
    await a.s.issueCoupons('site-a', [{ code: 'PROC' }]);
    const children = [0, 1].map(() => spawnTs('./coupon-child.ts', [TEST_PG_URL, schema, 'PROC']));
    try {
      const readers = children.map(lineReader);
      await Promise.all(readers.map((r) => r.waitFor((l) => l === 'ready')));
      for (const c of children) c.stdin.write('go\n');
      const outcomes = (await Promise.all(readers.map((r) => r.waitFor((l) => l.startsWith('['))))).flatMap((l) => JSON.parse(l) as string[]);
      expect(outcomes).toHaveLength(10);
      expect(outcomes.filter((o) => o === 'used')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'COUPON_ALREADY_USED')).toHaveLength(9);
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    }
  });
});

describe('EventService replay through a PostgreSQL outage', () => {
  it('fails while the store is away, then, called again, feeds every stored event once and in order', async () => {
    const schema = schemas.next();
    const writer = await replica(schema);
    for (let i = 0; i < 3; i++) await writer.s.recordPurchases('site-a', purchaseBody([event(`o-${i}`)]));
    await writer.s.recordViews('site-a', viewBody(['v']));
    const proxy = new CuttableProxy();
    try {
      const sink = new RecordingSink();
      const s = await EventService.open({ store: { type: 'postgres', url: await proxy.start(), schema, pollIntervalMs: 60_000 }, websites: [WEBSITE], sink });
      open.push(s);
      proxy.cut();
      await expect(s.replay()).rejects.toThrow();
      proxy.restore();
      await s.replay();
      expect(sink.purchases.map((p) => p.orderId)).toEqual(['o-0', 'o-1', 'o-2']);
      expect(sink.views.map((v) => v.refId)).toEqual(['v']);
    } finally {
      await Promise.all(open.splice(0).map((s) => s.close()));
      await proxy.close();
    }
  }, 60_000);
});
