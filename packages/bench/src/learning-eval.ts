/**
 * Evaluation of click ranking (`settings.clickRanking`; writes docs/learning-evaluation.md):
 *   node --expose-gc --max-old-space-size=8000 packages/bench/dist/learning-eval.js [--queries 100] [--seed 11] [--cost-products 200000] [--out docs/learning-evaluation.md]
 *
 * Simulated shoppers (experiments/shoppers.ts's position-based click model: rank k examined with
 * probability 1/k, a wanted product clicked with 0.6, any other with 0.05 — noisy clicks —, a wanted
 * product bought after its click with 0.25) on the real Flipkart and Best Buy catalogs
 * (../shared/datasets), through the engine's whole path: a search (first page of 10, `session_id`),
 * clicks with `queryId` and `position` to `recordClicks`, purchases to `recordPurchases`; the learned
 * state is read back from the store as in production.
 *
 * Intents: known items (relevance/known-item.ts: 2–3 words of a product's title) whose wanted product
 * the text ranking shows on the first page but not necessarily first — ambiguous queries. Behind each
 * query, a shopper wants the known item with probability 0.8, else another product of the query's
 * first page (the second intent of an ambiguous query). MRR@10 and success@1 are the exact
 * expectations over that intent mix (no sampling noise in the measure), on the first page each query
 * gets, before learning and after 10, 30 and 100 sessions per query (`minSessions` 5).
 *
 * Checks (asserted; the run fails otherwise): after 4 sessions per query (below `minSessions`) every
 * query's page is the text ranking's; a spam shopper clicking one product 2,000 times leaves the same
 * order as the same shopper clicking it once. Costs in the same run: search latency with click ranking
 * on vs off (A/B alternated, one process) on the real catalogs and on a generated catalog of
 * `--cost-products` products; bytes of learned state per million clicks.
 * @module
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, type ClickEventBody, type Engine, type Product, type WebsiteSettings } from '@aisle/engine';
import { generateCatalog } from '@aisle/engine/demo';
import { ClickEvidence } from '@aisle/engine/internal';
import { DATASETS_DIR, loadDataset } from './datasets.js';
import { examination, NOISE_ATTRACTIVENESS, PURCHASE_AFTER_CLICK, RELEVANT_ATTRACTIVENESS } from './experiments/shoppers.js';
import { machineInfo } from './machine.js';
import { relevantSet, sampleKnownItems } from './relevance/known-item.js';
import { seededRandom } from './seeded-random.js';
import { quantile, summarize } from './stats.js';

const CATALOGS = [
  { label: 'Flipkart (20,000 products)', file: 'flipkart-products.ndjson' },
  { label: 'Best Buy (3,291 products)', file: 'bestbuy-products-typesense.ndjson' },
];
const MIN_SESSIONS = 5;
const CHECKPOINTS = [10, 30, 100];
const PAGE = 10;
/** Share of a query's shoppers who want its known item (the rest want another product of its first page). */
const MAIN_INTENT = 0.8;
const SITE = { websiteId: 'eval', client: 'eval', tokens: ['eval-token'], hmacSecret: 'eval-secret' };

interface Options { queries: number; seed: number; costProducts: number; out: string }

function parseArgs(argv: string[]): Options {
  const opts: Options = { queries: 100, seed: 11, costProducts: 200_000, out: fileURLToPath(new URL('../../../docs/learning-evaluation.md', import.meta.url)) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--queries') opts.queries = Number(argv[++i]);
    else if (a === '--seed') opts.seed = Number(argv[++i]);
    else if (a === '--cost-products') opts.costProducts = Number(argv[++i]);
    else if (a === '--out') opts.out = path.resolve(argv[++i]!);
    else throw new Error(`unknown argument ${a} (usage: learning-eval [--queries 100] [--seed 11] [--cost-products 200000] [--out file])`);
  }
  return opts;
}

/** A query and what its shoppers want: each intent a set of products that satisfy it, with its share. */
interface Query { q: string; intents: { relevant: ReadonlySet<string>; share: number }[] }

const guid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openEngine(products: readonly Product[], settings: WebsiteSettings): Promise<Engine> {
  const engine = await createEngine({ workers: 0, websites: [{ ...SITE, settings }] });
  await engine.upsertProducts('eval', products);
  return engine;
}

async function page(engine: Engine, q: string, session?: string): Promise<{ queryId: string; refIds: string[] }> {
  const r = await engine.search({ website_id: 'eval', client: 'eval', q, start: 0, size: PAGE, ...(session !== undefined && { session_id: session }) });
  return { queryId: r.query_id, refIds: r.payload.result.map((p) => p.refId) };
}

/** Ambiguous known-item queries of a catalog (see the module doc). */
async function queriesOf(engine: Engine, products: readonly Product[], count: number, seed: number): Promise<Query[]> {
  const relevantOf = relevantSet(products);
  const byId = new Map(products.map((p) => [p.refId, p]));
  const random = seededRandom(seed + 1);
  const out: Query[] = [];
  const seen = new Set<string>();
  for (const item of sampleKnownItems(products, count * 20, seed)) {
    if (out.length >= count) break;
    const q = item.queries.clean!;
    if (seen.has(q)) continue;
    seen.add(q);
    const relevant = relevantOf(item);
    const { refIds } = await page(engine, q);
    if (refIds.length < PAGE || !refIds.some((id) => relevant.has(id))) continue;
    const others = refIds.filter((id) => !relevant.has(id));
    if (others.length === 0) continue; // not ambiguous: the whole page is the wanted product
    const second = others[Math.floor(random() * others.length)]!;
    const secondRelevant = relevantOf({ refId: second, title: String(byId.get(second)!.title), queries: {} });
    out.push({ q, intents: [{ relevant, share: MAIN_INTENT }, { relevant: secondRelevant, share: 1 - MAIN_INTENT }] });
  }
  return out;
}

/** Exact MRR@10 and success@1 of the pages over the intent mix. */
function quality(queries: readonly Query[], pages: readonly string[][]): { mrr: number; success: number } {
  let mrr = 0;
  let success = 0;
  queries.forEach((query, i) => {
    for (const { relevant, share } of query.intents) {
      const rank = pages[i]!.findIndex((id) => relevant.has(id)) + 1;
      if (rank > 0) mrr += share / rank;
      if (rank === 1) success += share;
    }
  });
  return { mrr: mrr / queries.length, success: success / queries.length };
}

async function pagesOf(engine: Engine, queries: readonly Query[]): Promise<string[][]> {
  const out: string[][] = [];
  for (const query of queries) out.push((await page(engine, query.q)).refIds);
  return out;
}

/** One session of query `query` by shopper `n`: search, position-biased noisy clicks, maybe a purchase. */
async function session(engine: Engine, query: Query, n: number, random: () => number, prices: ReadonlyMap<string, number>): Promise<number> {
  const shopper = guid(n);
  const intent = random() < query.intents[0]!.share ? query.intents[0]! : query.intents[1]!;
  const { queryId, refIds } = await page(engine, query.q, shopper);
  const clicks: ClickEventBody[] = [];
  const bought: string[] = [];
  refIds.forEach((refId, i) => {
    const wanted = intent.relevant.has(refId);
    if (random() >= examination(i + 1) * (wanted ? RELEVANT_ATTRACTIVENESS : NOISE_ATTRACTIVENESS)) return;
    clicks.push({ eventTime: new Date().toISOString(), refId, type: 'click', queryId, position: i + 1 });
    if (wanted && random() < PURCHASE_AFTER_CLICK) bought.push(refId);
  });
  if (clicks.length > 0) await engine.recordClicks('eval', { customerId: shopper, sessionId: shopper, events: clicks });
  if (bought.length > 0) {
    await engine.recordPurchases('eval', {
      customerId: shopper, sessionId: shopper,
      events: [{ eventTime: new Date().toISOString(), orderId: `o-${n}`, currentUrl: 'https://shop.example/thanks', products: bought.map((refId) => ({ refId, quantity: 1, price: prices.get(refId) ?? 1 })) }],
    });
  }
  return clicks.length;
}

/** Lets the engine read back the clicks just stored and end the search chains (as 10 s would). */
async function settle(engine: Engine): Promise<void> {
  await engine.searchReport('eval');
  await pause(100);
}

interface CatalogResult {
  label: string; queries: number; rows: { sessions: number; mrr: number; success: number; clicks: number }[];
  belowUnchanged: string; spam: string; latency: { on: number; off: number; p95on: number; p95off: number };
}

async function evaluateCatalog(label: string, file: string, opts: Options): Promise<CatalogResult> {
  const products = await loadDataset({ kind: 'file', path: file, label });
  const prices = new Map<string, number>();
  for (const p of products) if (typeof p.price === 'number') prices.set(p.refId, p.price);
  const engine = await openEngine(products, { clickRanking: { minSessions: MIN_SESSIONS } });
  try {
    const queries = await queriesOf(engine, products, opts.queries, opts.seed);
    const plain = await pagesOf(engine, queries);
    const rows: CatalogResult['rows'] = [{ sessions: 0, ...quality(queries, plain), clicks: 0 }];
    const random = seededRandom(opts.seed + 2);
    let shopper = 0;
    let clicks = 0;
    let belowUnchanged = '';
    for (let round = 1; round <= CHECKPOINTS.at(-1)!; round++) {
      for (const query of queries) clicks += await session(engine, query, ++shopper, random, prices);
      await settle(engine);
      if (round === MIN_SESSIONS - 1) {
        const pages = await pagesOf(engine, queries);
        const same = pages.filter((p, i) => p.join() === plain[i]!.join()).length;
        if (same !== queries.length) throw new Error(`below minSessions, ${queries.length - same} queries changed`);
        belowUnchanged = `${same}/${queries.length} queries unchanged after ${round} sessions each (asserted)`;
      }
      if (CHECKPOINTS.includes(round)) rows.push({ sessions: round, ...quality(queries, await pagesOf(engine, queries)), clicks });
    }
    const latency = await latencyOnOff(engine, queries.map((q) => q.q));
    const spam = await spamCheck(products, queries[0]!, opts.seed);
    return { label, queries: queries.length, rows, belowUnchanged, spam, latency };
  } finally {
    await engine.close();
  }
}

/** Median and p95 search latency (ms) with click ranking on and off, alternated per query in one process. */
async function latencyOnOff(engine: Engine, qs: readonly string[], rounds = 5): Promise<{ on: number; off: number; p95on: number; p95off: number }> {
  const on: number[] = [];
  const off: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const [setting, samples] of [[{ minSessions: MIN_SESSIONS }, on], [false, off]] as const) {
      await engine.updateSettings('eval', { clickRanking: setting }, { merge: true });
      for (const q of qs) {
        const t = performance.now();
        await engine.search({ website_id: 'eval', client: 'eval', q, start: 0, size: PAGE });
        samples.push(performance.now() - t);
      }
    }
  }
  await engine.updateSettings('eval', { clickRanking: { minSessions: MIN_SESSIONS } }, { merge: true });
  const p95 = (xs: number[]) => quantile([...xs].sort((x, y) => x - y), 0.95);
  return { on: summarize(on).median, off: summarize(off).median, p95on: p95(on), p95off: p95(off) };
}

/**
 * Two engines with the same history on one query (10 sessions of honest shoppers, each clicking the
 * product at position 5), then shopper S clicks the product at position 10 once in one engine, 2,000
 * times in the other: the orders must be equal.
 */
async function spamCheck(products: readonly Product[], query: Query, seed: number): Promise<string> {
  const orders: string[][] = [];
  for (const times of [1, 2000]) {
    const engine = await openEngine(products, { clickRanking: { minSessions: MIN_SESSIONS } });
    try {
      for (let n = 1; n <= 10; n++) {
        const { queryId, refIds } = await page(engine, query.q, guid(n));
        await engine.recordClicks('eval', { customerId: guid(n), sessionId: guid(n), events: [{ eventTime: new Date().toISOString(), refId: refIds[4]!, type: 'click', queryId, position: 5 }] });
      }
      const spammer = guid(999_999);
      const { queryId, refIds } = await page(engine, query.q, spammer);
      const events: ClickEventBody[] = Array.from({ length: times }, () => ({ eventTime: new Date().toISOString(), refId: refIds[9]!, type: 'click', queryId, position: 10 }));
      for (let i = 0; i < events.length; i += 100) await engine.recordClicks('eval', { customerId: spammer, sessionId: spammer, events: events.slice(i, i + 100) });
      await settle(engine);
      await pause(200);
      orders.push((await page(engine, query.q)).refIds);
    } finally {
      await engine.close();
    }
  }
  if (orders[0]!.join() !== orders[1]!.join()) throw new Error(`spam moved the order: ${orders[0]!.join()} vs ${orders[1]!.join()}`);
  void seed;
  return `"${query.q}": the order after one shopper's 2,000 clicks on one product equals the order after its single click (asserted)`;
}

/** Search latency on a generated catalog with learned evidence on its queries, click ranking on vs off. */
async function generatedCost(count: number): Promise<{ products: number; latency: { on: number; off: number; p95on: number; p95off: number } }> {
  const products = generateCatalog({ count, seed: 3 });
  const engine = await openEngine(products, { clickRanking: { minSessions: 1 } });
  try {
    const qs: string[] = [];
    for (const p of products.slice(0, 2000)) {
      const words = String(p.title).toLowerCase().split(/\s+/).slice(0, 2).join(' ');
      if (!qs.includes(words)) qs.push(words);
      if (qs.length >= 50) break;
    }
    let n = 0;
    for (const q of qs) {
      for (let s = 0; s < 3; s++) {
        const shopper = guid(++n);
        const { queryId, refIds } = await page(engine, q, shopper);
        if (refIds.length < 3) continue;
        await engine.recordClicks('eval', { customerId: shopper, sessionId: shopper, events: [{ eventTime: new Date().toISOString(), refId: refIds[2]!, type: 'click', queryId, position: 3 }] });
      }
    }
    await settle(engine);
    return { products: count, latency: await latencyOnOff(engine, qs, 3) };
  } finally {
    await engine.close();
  }
}

/**
 * Heap bytes per million clicks held as evidence, each click a distinct shopper: `spread` over 10,000
 * queries × 200 products uniformly (most (query, product) pairs get one shopper: the worst case), and
 * `head-heavy` (queries and products drawn from power laws, as real traffic concentrates on head queries
 * and their first results). Also the checkpoint section's bytes.
 */
function memoryPerMillionClicks(): { spread: number; headHeavy: number; checkpointBytes: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (memory per million clicks)');
  const measure = (pick: (random: () => number) => { q: number; p: number }): { heap: number; checkpoint: number } => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const evidence = new ClickEvidence({ maxEntries: 1_000_000 });
    const random = seededRandom(5);
    const now = Date.now();
    for (let i = 0; i < 1_000_000; i++) {
      const { q, p } = pick(random);
      evidence.add({ query: `query ${q}`, refId: `product-${p}`, shopper: guid(i), type: 'click', position: 1 + Math.floor(random() * 10), at: now - Math.floor(random() * 30 * 86_400_000) });
    }
    gc();
    const heap = process.memoryUsage().heapUsed - before;
    const s = evidence.serialize();
    const checkpoint = s.shoppers.byteLength + s.events.byteLength + s.entryCounts.byteLength + s.productCounts.byteLength + Buffer.byteLength(JSON.stringify([s.queries, s.refIds]));
    return { heap, checkpoint };
  };
  const spread = measure((r) => ({ q: Math.floor(r() * 10_000), p: Math.floor(r() * 200) }));
  const headHeavy = measure((r) => ({ q: Math.floor(10_000 * r() ** 3), p: Math.floor(200 * r() ** 3) }));
  return { spread: spread.heap, headHeavy: headHeavy.heap, checkpointBytes: spread.checkpoint };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const available = CATALOGS.filter((c) => existsSync(path.join(DATASETS_DIR, c.file)));
  if (available.length === 0) throw new Error(`no dataset found in ${DATASETS_DIR}`);
  const m = machineInfo();
  const lines: string[] = [
    '# Click ranking: evaluation', '',
    `Generated by \`node --expose-gc --max-old-space-size=8000 packages/bench/dist/learning-eval.js --queries ${opts.queries} --seed ${opts.seed} --cost-products ${opts.costProducts}\` on ${m.date.slice(0, 10)} `
      + `(${m.cpu}, ${m.cores} cores, load ${m.loadAverage}, Node ${m.node}). What is simulated and why: docs/learning.md.`, '',
  ];
  for (const c of available) {
    const r = await evaluateCatalog(c.label, path.join(DATASETS_DIR, c.file), opts);
    lines.push(`## ${r.label}: ${r.queries} ambiguous known-item queries`, '',
      '| sessions per query | MRR@10 | success@1 | clicks so far |', '| ---: | ---: | ---: | ---: |',
      ...r.rows.map((row) => `| ${row.sessions === 0 ? '0 (text ranking)' : row.sessions} | ${row.mrr.toFixed(3)} | ${pct(row.success)} | ${row.clicks} |`), '',
      `- Below minSessions (${MIN_SESSIONS}): ${r.belowUnchanged}.`,
      `- Spam: ${r.spam}.`,
      `- Search latency (median / p95, ms), click ranking on vs off: ${r.latency.on.toFixed(2)} / ${r.latency.p95on.toFixed(2)} vs ${r.latency.off.toFixed(2)} / ${r.latency.p95off.toFixed(2)}.`, '');
    console.log(lines.slice(-12).join('\n'));
  }
  const cost = await generatedCost(opts.costProducts);
  const memory = memoryPerMillionClicks();
  lines.push('## Cost', '',
    `- Generated catalog of ${cost.products.toLocaleString('en')} products (50 queries with evidence), search latency median / p95 (ms), `
      + `click ranking on vs off: ${cost.latency.on.toFixed(2)} / ${cost.latency.p95on.toFixed(2)} vs ${cost.latency.off.toFixed(2)} / ${cost.latency.p95off.toFixed(2)} `
      + `(ratio of medians ${(cost.latency.on / cost.latency.off).toFixed(2)}).`,
    `- Learned state per million clicks (each a distinct shopper): ${(memory.spread / 1e6).toFixed(0)} MB of heap spread over 10,000 queries × 200 products `
      + `(most pairs one shopper: the worst case), ${(memory.headHeavy / 1e6).toFixed(0)} MB head-heavy (power-law queries and products); `
      + `${(memory.checkpointBytes / 1e6).toFixed(1)} MB in the checkpoint.`, '');
  console.log(lines.slice(-4).join('\n'));
  writeFileSync(opts.out, `${lines.join('\n').trimEnd()}\n`);
}

await main();
