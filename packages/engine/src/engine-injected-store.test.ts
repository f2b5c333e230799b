/**
 * An engine made with a store instance instead of a store configuration, through the public API: the
 * engine uses the instance it is given (reads what it holds, writes into it, closes it), and what a
 * store can do is told by the store itself — an injected PostgreSQL store shares the catalogs of the
 * engines using its schema as the configured one does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, MemoryStore, type Store } from './index.js';
import { PostgresStore } from './store/postgres-store.js';
import { TEST_PG_URL, TestSchemas, requirePostgres } from './store/pg-test-env.js';

const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
const customerId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const sessionId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

function purchase(orderId: string) {
  return {
    customerId, sessionId,
    events: [{ currentUrl: 'https://shop.example/checkout', eventTime: '2026-11-20T10:00:00Z', orderId, products: [{ refId: 'p1', quantity: 1, price: 10 }] }],
  };
}

describe('createEngine with a store instance', () => {
  it('reads the events already in it, writes new ones into it, and closes it with itself', async () => {
    const store = new MemoryStore();
    // Events written before the engine exists (say, by a host's import) are the engine's history.
    await store.appendPurchases({
      websiteId: 'site-a', transactionId: 'a3bb189e-8bf9-3888-9912-ace4e6543002', customerId, sessionId, origin: 'import', receivedAt: Date.now(),
      events: [{ orderId: 'o-0', currentUrl: 'https://shop.example/checkout', eventTime: '2026-11-20T09:00:00Z', eventTimeMs: Date.UTC(2026, 10, 20, 9), products: [{ refId: 'p1', quantity: 1, price: 10 }], priceBeatPromotions: [] }],
    });
    const engine = await createEngine({ store, workers: 0, websites: [site] });
    expect(await engine.stats('site-a')).toMatchObject({ orders: 1 });
    await engine.recordPurchases('site-a', purchase('o-1'));
    expect((await store.counts('site-a')).orders).toBe(2);
    await engine.close();
    // Closed with the engine: it takes no more writes.
    await expect(store.issueCoupons('site-a', [{ code: 'C1' }], Date.now())).rejects.toThrow('store is closed');
  });

  it('keeps the catalogs in the data directory when the store is not shared, whatever store it is', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-injected-'));
    try {
      const first = await createEngine({ store: new MemoryStore(), dataDir, workers: 0, websites: [site] });
      await first.upsertProducts('site-a', [{ refId: 'p1', title: 'Red running shoe' }]);
      await first.close();
      // A new process: the events are gone with the memory store, the catalog is in the data directory.
      const second = await createEngine({ store: new MemoryStore(), dataDir, workers: 0, websites: [site] });
      expect((await second.getProduct('site-a', 'p1'))?.title).toBe('Red running shoe');
      expect(await second.stats('site-a')).toMatchObject({ products: 1, orders: 0 });
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a configuration store it does not know, still naming the key', async () => {
    await expect(createEngine({ store: { type: 'nope' } as never, workers: 0, websites: [site] })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('store') });
  });
});

describe('createEngine with a shared store instance (PostgreSQL)', () => {
  const schemas = new TestSchemas();
  afterAll(() => schemas.dropAll());

  it('shares the catalogs between the engines of one schema, as its capabilities say', async () => {
    await requirePostgres();
    const schema = schemas.next();
    const open = (): Promise<Store> => PostgresStore.open({ url: TEST_PG_URL, schema, pollIntervalMs: 50 });
    const first = await createEngine({ store: await open(), workers: 0, websites: [site] });
    const second = await createEngine({ store: await open(), workers: 0, websites: [site] });
    try {
      await first.upsertProducts('site-a', [{ refId: 'p1', title: 'Red running shoe' }]);
      // The second engine applies the shared log on its own (NOTIFY, or the 50 ms poll).
      await expect.poll(async () => (await second.getProduct('site-a', 'p1'))?.title, { timeout: 10_000 }).toBe('Red running shoe');
    } finally {
      await first.close();
      await second.close();
    }
  });
});
