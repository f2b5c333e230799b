import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from './engine.js';
import type { Engine } from './engine-api.js';
import { isAisleError, type ErrorCode } from './errors.js';
import type { Product } from './types.js';
import { badInput } from './__tests__/bad-input.js';

const siteA = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
const siteB = { websiteId: 'site-b', client: 'client-b', tokens: ['token-b'], hmacSecret: 'secret-b' };

const products: Product[] = [
  { refId: 'p1', title: 'Red running shoe', brand: 'Swift', search_category: 'Shoes', price: 59.9, availability: 3 },
  { refId: 'p2', title: 'Blue running shoe', brand: 'Swift', search_category: 'Shoes', price: '64.50', availability: 0 },
  { refId: 'p3', title: 'Trail sock', brand: 'Woolly', search_category: 'Socks', price: 9.5, availability: -1 },
  { refId: 'p4', title: 'Water bottle', brand: 'Aqua', search_category: 'Accessories', price: 12, availability: 7 },
];

const customer = '0f8fad5b-d9cb-469f-a165-70867728950e';
const session = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

function purchase(orderId: string, refIds: string[], eventTime = '2026-11-20T10:00:00Z') {
  return {
    customerId: customer, sessionId: session,
    events: [{ currentUrl: 'https://shop.example/checkout', eventTime, orderId, currencyCode: 'EUR',
      products: refIds.map((refId) => ({ refId, quantity: 1, price: 10 })) }],
  };
}

function views(refIds: string[], sessionId = session) {
  return {
    customerId: customer, sessionId,
    events: refIds.map((refId, i) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: `2026-11-20T09:0${i}:00Z`, refId })),
  };
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  try {
    await promise;
  } catch (err) {
    expect(isAisleError(err) ? err.code : err).toBe(code);
    return;
  }
  throw new Error(`expected ${code}`);
}

const search = (engine: Engine, body: Record<string, unknown>) =>
  engine.search({ website_id: 'site-a', client: 'client-a', start: 0, q: '', ...body });

/** A search response without its query_id (unique per response), for comparing two answers. */
const answer = async (response: Promise<Awaited<ReturnType<Engine['search']>>>) => {
  const { query_id: _id, ...rest } = await response;
  return rest;
};

describe('createEngine', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  async function open(options: Parameters<typeof createEngine>[0]): Promise<Engine> {
    const engine = await createEngine(options);
    cleanups.push(() => engine.close());
    return engine;
  }

  it('keeps websites apart and routes every operation to the right one', async () => {
    const engine = await open({ workers: 0, websites: [siteA, { ...siteB, settings: { semanticSearch: true } }] });
    await engine.upsertProducts('site-a', products);
    await engine.upsertProducts('site-b', [{ refId: 'b1', title: 'Red kettle' }]);

    const a = await search(engine, { q: 'running' });
    expect(a.type).toBe(1);
    expect(a.payload.result.map((p) => p.refId).sort()).toEqual(['p1', 'p2']);
    expect(a.payload.result.find((p) => p.refId === 'p2')?.price).toBe('64.50');
    expect(a.settings).toBeUndefined();

    const b = await engine.search({ website_id: 'site-b', client: 'client-b', start: 0, q: 'red' });
    expect(b.payload.result.map((p) => p.refId)).toEqual(['b1']);
    // One result: no model can rank it, so no `settings.ats_model` (see semantic-search.test.ts).
    expect(b.settings).toBeUndefined();

    await expectCode(engine.search({ website_id: 'site-a', client: 'client-b', start: 0, q: '' }), 'CLIENT_NOT_FOUND');
    await expectCode(engine.search({ website_id: 'nope', client: 'client-a', start: 0, q: '' }), 'WEBSITE_NOT_FOUND');
    await expectCode(engine.search(badInput({ website_id: 'site-a', client: 'client-a', q: '' })), 'SEARCH_BAD_REQUEST');
    await expectCode(engine.recommend('nope', 'PopularItems', {}), 'WEBSITE_NOT_FOUND');
    await expectCode(engine.recordPurchases('nope', purchase('o-x', ['p1'])), 'WEBSITE_NOT_FOUND');

    await engine.recordViews('site-a', views(['p1', 'p3', 'p4']));
    const ack = await engine.recordPurchases('site-a', purchase('o-1', ['p1', 'p3']));
    expect(ack.status).toBe('Accepted');
    expect((await engine.recordPurchases('site-a', purchase('o-1', ['p1', 'p3']))).transactionId).toBe(ack.transactionId);

    const bought = await engine.recommend('site-a', 'BoughtTogether', { productRef: 'p1' });
    expect(bought.payload).toContain('p3');
    expect(bought.payload).not.toContain('p1');
    const viewed = await engine.recommend('site-a', 'ViewedTogether', { productRef: 'p1' });
    expect(viewed.payload).toEqual(expect.arrayContaining(['p3', 'p4']));
    // site-b saw none of site-a's events
    expect((await engine.recommend('site-b', 'BoughtTogether', { productRef: 'p1' })).payload).toEqual([]);

    const stats = await engine.stats('site-a');
    expect(stats).toMatchObject({ websiteId: 'site-a', products: 4, orders: 1 });
    expect((await engine.stats('site-b')).orders).toBe(0);

    expect(await engine.deleteProducts('site-a', ['p3', 'unknown'])).toEqual({ deleted: 1, catalogSize: 3 });
    expect((await engine.recommend('site-a', 'BoughtTogether', { productRef: 'p1' })).payload).not.toContain('p3');
  });

  it('gives the same search answers inline and on the worker pool', async () => {
    const inline = await open({ workers: 0, websites: [siteA] });
    const pooled = await open({ workers: 1, poolThreshold: 0, websites: [siteA] });
    for (const engine of [inline, pooled]) await engine.replaceProducts('site-a', products);
    const body = { q: 'shoe', aggregations: ['brand'], range_fields: ['price'], sort_fields: [{ price: { order: 'desc', type: 'number' } }] };
    expect(await answer(search(pooled, body))).toEqual(await answer(search(inline, body)));
  });

  it('survives a restart: catalog from its snapshot, models and order ids from the store', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-engine-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await createEngine({ dataDir, workers: 0, websites: [siteA] });
    await first.replaceProducts('site-a', products);
    await first.recordViews('site-a', views(['p1', 'p4']));
    const ack = await first.recordPurchases('site-a', purchase('o-9', ['p1', 'p4']));
    const before = await answer(search(first, { q: 'shoe', aggregations: ['brand'] }));
    await first.close();
    await expectCode(first.search({ website_id: 'site-a', client: 'client-a', start: 0, q: '' }), 'ENGINE_CLOSED');

    const second = await open({ dataDir, workers: 0, websites: [siteA] });
    // Searches are served at once; the stored events are replayed into the models in the background
    // (not ready until then), and a recommendation waits for that replay.
    const readiness = second.readiness();
    const searched = await answer(search(second, { q: 'shoe', aggregations: ['brand'] }));
    expect((await readiness).checks).toContainEqual({ name: 'events', ok: false, reason: 'the stored events are being replayed into the recommendation models' });
    expect(searched).toEqual(before);
    expect((await second.recommend('site-a', 'BoughtTogether', { productRef: 'p1' })).payload).toContain('p4');
    expect((await second.readiness()).checks).toContainEqual({ name: 'events', ok: true });
    expect((await second.recordPurchases('site-a', purchase('o-9', ['p1', 'p4']))).transactionId).toBe(ack.transactionId);
    expect((await second.stats('site-a')).orders).toBe(1);
  });

  it('adds websites at run time and refuses a token used by another website', async () => {
    const engine = await open({ workers: 0, websites: [siteA] });
    await engine.addWebsite(siteB);
    expect(engine.websites().map((w) => w.websiteId)).toEqual(['site-a', 'site-b']);
    await expectCode(engine.addWebsite({ ...siteB, websiteId: 'site-c', tokens: ['token-a'] }), 'CONFIG_INVALID');
  });
});

describe('createEngine with an unreadable snapshot', () => {
  it('refuses to start, naming the file, the website and the way back', async () => {
    const { writeFile, mkdir } = await import('node:fs/promises');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-engine-'));
    try {
      await mkdir(path.join(dataDir, 'catalogs'), { recursive: true });
      await writeFile(path.join(dataDir, 'catalogs', 'site-a.aislesnap'), 'not a snapshot');
      await expect(createEngine({ dataDir, workers: 0, websites: [siteA] }))
        .rejects.toThrow(/site-a\.aislesnap.*website "site-a" cannot be read: move .* reload the feed/s);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('event times far in the future', () => {
  it('do not move the popularity window: a purchase dated 2099 leaves today\'s popular items in place', async () => {
    const engine = await createEngine({ workers: 0, websites: [siteA] });
    try {
      await engine.upsertProducts('site-a', products);
      const now = new Date().toISOString();
      await engine.recordPurchases('site-a', purchase('o-now', ['p1'], now));
      const ack = await engine.recordPurchases('site-a', purchase('o-2099', ['p3'], '2099-01-01T00:00:00Z'));
      expect(ack.status).toBe('Accepted');
      // Stored as sent and counted, and the models read it as arriving now (within the skew).
      expect((await engine.stats('site-a')).orders).toBe(2);
      expect((await engine.recommend('site-a', 'PopularItems', {})).payload).toEqual(expect.arrayContaining(['p1', 'p3']));
    } finally {
      await engine.close();
    }
  });
});
