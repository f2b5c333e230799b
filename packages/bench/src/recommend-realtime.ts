/**
 * Real time: how long from recording a purchase or a view until the affected recommendation lists
 * show it, through the public engine with a durable store (docs/recommendations.md, "Real time").
 *
 *   node --import tsx packages/bench/src/recommend-realtime.ts [--products 10000] [--rounds 500] [--store embedded|memory]
 *
 * A generated catalog and history (generateCatalog / generateInteractions) are loaded first. Then, per
 * round: a purchase of two products never bought together is recorded (`recordPurchases`, which answers
 * once the event is durable), and `recommend('BoughtTogether', {productRef: a})` is asked until it lists
 * b; likewise a view of a fresh session, until `RecentlyViewed` of that customer lists it and
 * `ViewedTogether` of the session's first item lists the second. Reported: the time from the start of
 * the record call to the first list showing the change — median, p99, max — per kind.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@aisle/engine';
import { generateCatalog, generateInteractions } from '@aisle/engine/demo';

function argValue(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

/** A GUID-shaped id (the event contract requires GUIDs) made of a kind and a counter. */
const guid = (kind: number, i: number): string => `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { rounds: s.length, medianMs: r(quantile(s, 0.5)), p99Ms: r(quantile(s, 0.99)), maxMs: r(s[s.length - 1]!) };
};

async function main(): Promise<void> {
  const productCount = Number(argValue('--products', '10000'));
  const rounds = Number(argValue('--rounds', '500'));
  const storeKind = argValue('--store', 'embedded');
  const dir = await mkdtemp(path.join(tmpdir(), 'aisle-realtime-'));
  const site = { websiteId: 'rt', client: 'rt', tokens: ['rt-token'], hmacSecret: 'rt-secret' };
  const engine = await createEngine({ workers: 0, websites: [site], ...(storeKind === 'embedded' ? { dataDir: dir } : {}) });
  try {
    const products = generateCatalog({ count: productCount, seed: 9 });
    await engine.upsertProducts(site.websiteId, products);
    const history = generateInteractions({ products, sessions: 2000, seed: 9 });
    for (const body of history.views) await engine.recordViews(site.websiteId, body);
    for (const body of history.purchases) await engine.recordPurchases(site.websiteId, body);
    const purchaseMs: number[] = [];
    const viewMs: number[] = [];
    const time = '2030-01-01T00:00:00Z';
    for (let i = 0; i < rounds; i++) {
      // Two products far apart in the catalog order: no co-purchase yet.
      const a = products[(i * 7919) % products.length]!.refId;
      const b = products[(i * 7919 + products.length / 2) % products.length]!.refId;
      const customerId = guid(1, i);
      const sessionId = guid(2, i);
      let t0 = performance.now();
      await engine.recordPurchases(site.websiteId, {
        customerId, sessionId,
        events: [{ currentUrl: 'https://shop.example/checkout', eventTime: time, orderId: `rt-order-${i}`, products: [{ refId: a, quantity: 1, price: 1 }, { refId: b, quantity: 1, price: 1 }] }],
      });
      for (;;) {
        const list = (await engine.recommend(site.websiteId, 'BoughtTogether', { productRef: a, count: 100 })).payload;
        if (list.includes(b)) break;
        await new Promise((r) => setImmediate(r));
      }
      purchaseMs.push(performance.now() - t0);
      t0 = performance.now();
      await engine.recordViews(site.websiteId, {
        customerId, sessionId,
        events: [a, b].map((refId) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: time, refId })),
      });
      for (;;) {
        const recent = (await engine.recommend(site.websiteId, 'RecentlyViewed', { customerId })).payload;
        const together = (await engine.recommend(site.websiteId, 'ViewedTogether', { productRef: a, count: 100 })).payload;
        if (recent[0] === b && together.includes(b)) break;
        await new Promise((r) => setImmediate(r));
      }
      viewMs.push(performance.now() - t0);
    }
    console.log(JSON.stringify({ products: productCount, store: storeKind, purchase: summary(purchaseMs), view: summary(viewMs) }, null, 2));
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
