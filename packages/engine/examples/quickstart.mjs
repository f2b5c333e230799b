// Run from the repository root after the build: node packages/engine/examples/quickstart.mjs
import { randomUUID } from 'node:crypto';
import { createEngine } from '@aisle/engine';

const engine = await createEngine({
  // dataDir: './data',   // embedded SQLite store + catalog snapshots and change log; omitted: in memory
  websites: [{ websiteId: 'shop-1', client: 'shop1', tokens: ['a-website-token'], hmacSecret: 'a-secret' }],
});
// A path to an NDJSON or JSON feed, a stream, or an (async) iterable of products.
await engine.replaceProducts('shop-1', [
  { refId: 'sku-1', title: 'Linen shirt', brand: 'Acme', price: 49 },
  { refId: 'sku-2', title: 'Linen trousers', brand: 'Acme', price: 69 },
  { refId: 'sku-3', title: 'Wool scarf', brand: 'Borealis', price: 25 },
]);
const page = await engine.search({ website_id: 'shop-1', client: 'shop1', q: 'linen shirt', start: 0, size: 20 });
console.log('search:', page.payload.result.map((p) => p.refId));
// Resolves once the events are durable.
await engine.recordPurchases('shop-1', {
  customerId: randomUUID(), sessionId: randomUUID(),
  events: [{
    orderId: 'A-1001', currentUrl: 'https://shop.example/checkout', eventTime: new Date().toISOString(),
    products: [{ refId: 'sku-1', quantity: 1, price: 49 }, { refId: 'sku-2', quantity: 1, price: 69 }],
  }],
});
const recs = await engine.recommend('shop-1', 'ProductDetail', { productRef: 'sku-1', filterOutOfStock: true });
console.log('recommended:', recs.slots.map((s) => `${s.refId} (${s.tacticLabel})`));
// Stored, and applied to the next search.
await engine.updateSettings('shop-1', { synonyms: [['tee', 't-shirt']] }, { merge: true });
await engine.close();
