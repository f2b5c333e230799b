/**
 * Offline evaluation of the recommendation models on the UCI Online Retail purchase log.
 *
 *   node --import tsx packages/bench/src/recommend-eval.ts [--json]
 *
 * Protocol (docs/recommendations.md, "Offline evaluation"):
 * - catalog: ../shared/datasets/uci-online-retail-items.ndjson (3,941 items);
 * - training: every 'purchase' invoice before 2011-10-01, fed in time order through
 *   `RecommendationModels.applyPurchase` (one PurchaseRecord per invoice);
 * - test: later invoices with at least 2 distinct items; the seed is the invoice's first item; a hit
 *   when any other item of the invoice is in the top 10 of `recommend('BoughtTogether', {productRef})`
 *   (pure: only co-bought items) and of the ProductDetail cascade; hit@10 and MRR@10 (reciprocal rank of
 *   the first hit). Baselines: `recommend('PopularItems')`; references computed here: plain
 *   co-occurrence counts, and co-occurrence completed with the all-time best sellers.
 * - sessions: deterministic generated browsing sessions (one per invoice: the invoice's items in a
 *   seeded shuffle, plus 1–3 noise items drawn by popularity) fed through `applyView`; for test
 *   sessions the seed is the first viewed item and a hit is any other item of the session in the top 10
 *   of ViewedTogether / the ProductDetail cascade (customer unknown to the models, so it is product based),
 *   against PopularItems.
 * The figures therefore describe the product's own code paths.
 *
 *   node --import tsx packages/bench/src/recommend-eval.ts --scale [--views 10000000] [--products 1000000]
 *
 * Scale run: a synthetic website (1M products by default, Zipf-like item draws, sessions of 8 views,
 * 200k customers) fed N views (default 2M) and N/20 orders of 1–8 items, then 20k look-ups
 * (ProductDetail and BoughtTogether); reports µs per event, look-up median/p99 and memory.
 *
 *   node --import tsx packages/bench/src/recommend-eval.ts --visual [--products 100000] [--nprobe 17]
 *
 * Visual run: a generated catalog (`generateCatalog`, seed 5, 70 % of the products with a 16-float
 * `image_vector`) indexed in the background with the approximate (IVF) index forced on; reports the
 * build time, the longest event-loop gap during the build, recall@10 of the IVF look-up against the
 * exact scan over 500 seeds, and both look-up times (uncached).
 * @module
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { CatalogView, Product } from '@aisle/engine';
import { generateCatalog } from '@aisle/engine/demo';
import { Interner, MapCatalog, objectProductList, RecommendationModels, VisualSimilarity, type RecommendationTuning } from '@aisle/engine/internal';
import { DATASETS_DIR } from './datasets.js';
import { seededRandom } from './seeded-random.js';
import { watchEventLoopStalls } from './event-loop-stalls.js';

const DATA_DIR = DATASETS_DIR;
const EVENTS = `${DATA_DIR}/uci-online-retail-events.ndjson.gz`;
const ITEMS = `${DATA_DIR}/uci-online-retail-items.ndjson`;
const CUTOFF = Date.parse('2011-10-01T00:00:00Z');
const K = 10;

interface Invoice {
  id: string;
  time: number;
  userId: string | null;
  items: { refId: string; quantity: number; price: number }[];
}


async function loadInvoices(): Promise<Invoice[]> {
  const byId = new Map<string, Invoice>();
  const lines = createInterface({ input: createReadStream(EVENTS).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const e = JSON.parse(line) as { eventType: string; invoiceId: string; userId: string | null; itemId: string; quantity: number; unitPrice: number; timestamp: string };
    if (e.eventType !== 'purchase') continue;
    let inv = byId.get(e.invoiceId);
    if (!inv) {
      inv = { id: e.invoiceId, time: Date.parse(`${e.timestamp}Z`), userId: e.userId, items: [] };
      byId.set(e.invoiceId, inv);
    }
    if (!inv.items.some((i) => i.refId === e.itemId)) inv.items.push({ refId: e.itemId, quantity: e.quantity, price: e.unitPrice });
  }
  // Stable by time (the file is in invoice order; equal times keep it).
  return [...byId.values()].sort((a, b) => a.time - b.time);
}


interface Score {
  cases: number;
  hits: number;
  rr: number;
}

function scoreOf(s: Score): { hitAt10: number; mrrAt10: number; hits: number; cases: number } {
  // The hit count too: a change of a few hits is below the rounding of hit@10.
  return { hitAt10: round(s.hits / s.cases), mrrAt10: round(s.rr / s.cases), hits: s.hits, cases: s.cases };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function judge(score: Score, list: readonly string[], relevant: ReadonlySet<string>): void {
  score.cases++;
  for (let r = 0; r < Math.min(K, list.length); r++) {
    if (relevant.has(list[r]!)) {
      score.hits++;
      score.rr += 1 / (r + 1);
      return;
    }
  }
}

const website = { websiteId: 'uci-eval', client: 'uci', tokens: [], hmacSecret: 'eval' };

function tuningFromEnv(): Partial<RecommendationTuning> {
  const raw = process.env.AISLE_TUNING;
  return raw ? (JSON.parse(raw) as Partial<RecommendationTuning>) : {};
}

async function main(): Promise<void> {
  const started = Date.now();
  const products = readFileSync(ITEMS, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Product);
  const catalog = new MapCatalog(products);
  const invoices = await loadInvoices();
  const train = invoices.filter((i) => i.time < CUTOFF);
  const test = invoices.filter((i) => i.time >= CUTOFF && i.items.length >= 2);

  // --- purchases: BoughtTogether vs PopularItems -------------------------------------------------
  const models = new RecommendationModels({ website, catalog, tuning: tuningFromEnv() });
  const applyStart = process.hrtime.bigint();
  for (const inv of train) {
    models.applyPurchase({ websiteId: website.websiteId, customerId: inv.userId ?? '', sessionId: inv.id, orderId: inv.id, eventTime: inv.time, items: inv.items });
  }
  const applyNs = Number(process.hrtime.bigint() - applyStart) / train.length;
  // References, computed here (not through the library): plain co-occurrence counts over the training
  // invoices (ties: more orders), alone and completed with the all-time best sellers.
  const co = new Map<string, Map<string, number>>();
  const orders = new Map<string, number>();
  for (const inv of train) {
    const refs = [...new Set(inv.items.map((i) => i.refId))];
    for (const a of refs) {
      orders.set(a, (orders.get(a) ?? 0) + 1);
      let row = co.get(a);
      if (!row) co.set(a, (row = new Map()));
      for (const b of refs) if (b !== a) row.set(b, (row.get(b) ?? 0) + 1);
    }
  }
  const bestSellers = [...orders.entries()].sort((x, y) => y[1] - x[1]).map(([r]) => r);
  const coOccurring = (seed: string): string[] =>
    [...(co.get(seed) ?? new Map<string, number>()).entries()]
      .sort((x, y) => y[1] - x[1] || (orders.get(y[0]) ?? 0) - (orders.get(x[0]) ?? 0))
      .slice(0, K).map(([r]) => r);
  const coRef: Score = { cases: 0, hits: 0, rr: 0 };
  const coPopRef: Score = { cases: 0, hits: 0, rr: 0 };
  const bought: Score = { cases: 0, hits: 0, rr: 0 };
  const detail: Score = { cases: 0, hits: 0, rr: 0 };
  const popular: Score = { cases: 0, hits: 0, rr: 0 };
  const popularList = models.recommend('PopularItems', {}).payload;
  const lookupNs: number[] = [];
  for (const inv of test) {
    const seed = inv.items[0]!.refId;
    const relevant = new Set(inv.items.slice(1).map((i) => i.refId));
    const t0 = process.hrtime.bigint();
    const list = models.recommend('BoughtTogether', { productRef: seed, count: K }).payload;
    lookupNs.push(Number(process.hrtime.bigint() - t0));
    judge(bought, list, relevant);
    judge(detail, models.recommend('ProductDetail', { productRef: seed, count: K }).payload, relevant);
    const plain = coOccurring(seed);
    judge(coRef, plain, relevant);
    judge(coPopRef, [...plain, ...bestSellers.filter((r) => r !== seed && !plain.includes(r))].slice(0, K), relevant);
    judge(popular, popularList.filter((r) => r !== seed).slice(0, K), relevant);
  }
  lookupNs.sort((a, b) => a - b);

  // --- generated sessions: ViewedTogether / ProductDetail vs PopularItems --------------------------
  const sessionModels = new RecommendationModels({ website, catalog, tuning: tuningFromEnv() });
  const rand = seededRandom(20111001);
  // Noise items drawn by training popularity (cumulative table).
  const freq = new Map<string, number>();
  for (const inv of train) for (const i of inv.items) freq.set(i.refId, (freq.get(i.refId) ?? 0) + 1);
  const noiseRefs = [...freq.keys()];
  const cumulative: number[] = [];
  let total = 0;
  for (const r of noiseRefs) cumulative.push((total += freq.get(r)!));
  const drawNoise = (): string => {
    const x = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return noiseRefs[lo]!;
  };
  const sessionOf = (inv: Invoice): string[] => {
    const refs = inv.items.slice(0, 12).map((i) => i.refId);
    for (let k = refs.length - 1; k > 0; k--) {
      const j = Math.floor(rand() * (k + 1));
      [refs[k], refs[j]] = [refs[j]!, refs[k]!];
    }
    const noise = 1 + Math.floor(rand() * 3);
    for (let n = 0; n < noise; n++) refs.splice(Math.floor(rand() * (refs.length + 1)), 0, drawNoise());
    return [...new Set(refs)];
  };
  let views = 0;
  const viewStart = process.hrtime.bigint();
  for (const inv of train) {
    const refs = sessionOf(inv);
    refs.forEach((refId, k) => {
      sessionModels.applyView({ websiteId: website.websiteId, customerId: `c-${inv.userId ?? inv.id}`, sessionId: `s-${inv.id}`, refId, eventTime: inv.time + k * 30_000 });
      views++;
    });
  }
  const viewNs = Number(process.hrtime.bigint() - viewStart) / views;
  const viewedTogether: Score = { cases: 0, hits: 0, rr: 0 };
  const productDetail: Score = { cases: 0, hits: 0, rr: 0 };
  const sessionPopular: Score = { cases: 0, hits: 0, rr: 0 };
  const sessionPopularList = sessionModels.recommend('PopularItems', {}).payload;
  for (const inv of test) {
    const refs = sessionOf(inv);
    if (refs.length < 2) continue;
    const seed = refs[0]!;
    const relevant = new Set(refs.slice(1));
    judge(viewedTogether, sessionModels.recommend('ViewedTogether', { productRef: seed, count: K }).payload, relevant);
    judge(productDetail, sessionModels.recommend('ProductDetail', { productRef: seed, customerId: 'eval-visitor', count: K }).payload, relevant);
    judge(sessionPopular, sessionPopularList.filter((r) => r !== seed).slice(0, K), relevant);
  }

  const report = {
    protocol: { trainInvoices: train.length, testInvoices: test.length, cutoff: '2011-10-01', k: K },
    purchases: {
      BoughtTogether: scoreOf(bought), ProductDetail: scoreOf(detail), PopularItems: scoreOf(popular),
      referenceCoOccurrence: scoreOf(coRef), referenceCoOccurrenceThenPopular: scoreOf(coPopRef),
    },
    sessions: { views, ViewedTogether: scoreOf(viewedTogether), ProductDetail: scoreOf(productDetail), PopularItems: scoreOf(sessionPopular) },
    timing: {
      applyPurchaseMeanUs: round(applyNs / 1000),
      applyViewMeanUs: round(viewNs / 1000),
      boughtTogetherMedianMs: round(lookupNs[Math.floor(lookupNs.length / 2)]! / 1e6),
      boughtTogetherP99Ms: round(lookupNs[Math.floor(lookupNs.length * 0.99)]! / 1e6),
    },
    models: models.modelStats(),
    seconds: round((Date.now() - started) / 1000),
  };
  if (process.argv.includes('--json')) console.log(JSON.stringify(report));
  else console.log(JSON.stringify(report, null, 2));
}

function argValue(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? Number(process.argv[at + 1]) : fallback;
}

/** The synthetic scale run (see the module notes). */
async function scale(): Promise<void> {
  const productCount = argValue('--products', 1_000_000);
  const viewCount = argValue('--views', 2_000_000);
  const orderCount = Math.floor(viewCount / 20);
  const catalog: CatalogView = {
    version: 1,
    liveCount: productCount,
    has: (refId) => refId.startsWith('p'),
    getProduct: (refId) => (refId.startsWith('p') ? { refId } : undefined),
    isInStock: () => true,
    liveProducts: () => objectProductList([]),
  };
  const rand = seededRandom(7);
  // Skewed item draws: a few items are hot, most of the catalog is a long tail.
  const draw = (): string => `p${Math.floor(productCount * rand() ** 3)}`;
  const before = process.memoryUsage();
  const models = new RecommendationModels({ website, catalog, tuning: tuningFromEnv() });
  const start = Date.UTC(2026, 0, 1);
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < viewCount; i++) {
    const session = Math.floor(i / 8);
    models.applyView({ websiteId: website.websiteId, customerId: `c${session % 200_000}`, sessionId: `s${session}`, refId: draw(), eventTime: start + i * 100 });
  }
  const viewUs = Number(process.hrtime.bigint() - t0) / viewCount / 1000;
  t0 = process.hrtime.bigint();
  for (let i = 0; i < orderCount; i++) {
    const n = 1 + Math.floor(rand() * 8);
    const items = Array.from({ length: n }, () => ({ refId: draw(), quantity: 1, price: 1 }));
    models.applyPurchase({ websiteId: website.websiteId, customerId: `c${i % 200_000}`, sessionId: 's', orderId: `o${i}`, eventTime: start + viewCount * 100 + i * 1000, items });
  }
  const purchaseUs = Number(process.hrtime.bigint() - t0) / orderCount / 1000;
  const lookups: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const a = process.hrtime.bigint();
    models.recommend(i % 2 ? 'ProductDetail' : 'BoughtTogether', { productRef: draw(), customerId: `c${i % 200_000}` });
    lookups.push(Number(process.hrtime.bigint() - a));
  }
  lookups.sort((a, b) => a - b);
  if (globalThis.gc) globalThis.gc();
  const after = process.memoryUsage();
  console.log(JSON.stringify({
    products: productCount,
    views: viewCount,
    orders: orderCount,
    applyViewMeanUs: round(viewUs),
    applyPurchaseMeanUs: round(purchaseUs),
    recommendMedianMs: round(lookups[lookups.length >> 1]! / 1e6),
    recommendP99Ms: round(lookups[Math.floor(lookups.length * 0.99)]! / 1e6),
    memoryMB: round((after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 1e6),
    models: models.modelStats(),
  }, null, 2));
}

/** The visual run (see the module notes): IVF recall@10 against the exact scan, and timings. */
async function visual(): Promise<void> {
  const productCount = argValue('--products', 100_000);
  const nprobe = argValue('--nprobe', Number.NaN);
  const products = generateCatalog({ count: productCount, seed: 5 });
  const byRef = new Map(products.map((p) => [p.refId, p]));
  const catalog: CatalogView = {
    version: 1, liveCount: byRef.size, has: (r) => byRef.has(r), getProduct: (r) => byRef.get(r), isInStock: () => true,
    liveProducts: () => objectProductList(products),
  };
  const items = new Interner();
  const index = new VisualSimilarity(catalog, items, { syncLimit: 0, annThreshold: 0, cacheSize: 1, nprobe: Number.isNaN(nprobe) ? undefined : nprobe });
  const stalls = watchEventLoopStalls();
  const t0 = performance.now();
  await index.whenReady();
  const buildMs = performance.now() - t0;
  const maxGap = stalls.stop();
  const seeds = products.filter((p) => p.image_vector !== undefined).filter((_, i) => i % 7 === 0).slice(0, 500).map((p) => items.intern(p.refId));
  let recall = 0;
  let annMs = 0;
  let exactMs = 0;
  for (const seed of seeds) {
    let a = performance.now();
    const approx = index.byProduct(seed, K);
    annMs += performance.now() - a;
    a = performance.now();
    const exact = index.exactByProduct(seed, K);
    exactMs += performance.now() - a;
    const truth = new Set(exact.map((e) => e.item));
    recall += approx.filter((x) => truth.has(x.item)).length / Math.max(1, truth.size);
  }
  const report = {
    products: productCount,
    vectors: products.filter((p) => p.image_vector !== undefined).length,
    seeds: seeds.length,
    buildMs: Math.round(buildMs),
    longestEventLoopGapMs: round(maxGap),
    recallAt10: round(recall / seeds.length),
    ivfLookupMeanMs: round(annMs / seeds.length),
    exactLookupMeanMs: round(exactMs / seeds.length),
  };
  console.log(JSON.stringify(report, null, 2));
}

if (process.argv.includes('--scale')) await scale();
else if (process.argv.includes('--visual')) await visual();
else await main();
