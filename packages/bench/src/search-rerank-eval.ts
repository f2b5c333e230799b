/**
 * Offline evaluation of the search re-rank stage: semantic search (the built-in `aisle-ri` model) and
 * personalization, on the real catalogs in ../shared/datasets. Writes docs/semantic-search-eval.md.
 *
 *   node --import tsx packages/bench/src/search-rerank-eval.ts [--json] [--queries 400] [--scale 100000]
 *        [--customers 300] [--only semantic|personalization|scale]
 *
 * `--only scale` measures the training at `--scale` products alone (no dataset is read, the
 * evaluation file is not written): wall time, CPU time, event-loop delay.
 *
 * Semantic (docs/semantic-search.md, "Evaluation"): neither WANDS nor ESCI come with their judged
 * products here (see the datasets README), so relevance is derived from the catalogs themselves.
 * Two seeded samples of products; queries are made of their title words (letters only, 3+ letters, not
 * the brand). Metrics over the top 10, per setting (semantic off, weights 0.15 / 0.3 / 0.5 / 0.8):
 * - one-word queries ("cover", "ring"): category P@10 and NDCG@10 — a result is relevant when it shares
 *   the sampled product's category (Flipkart: `search_category_generic`, Best Buy: `search_category`):
 *   a short, ambiguous query should bring products of the category its word is used in;
 * - three-word queries: known-item MRR@10 and success@10 of the sampled product (must not get worse);
 * - search latency median / p99 (ms), the model's training time and longest event-loop pause.
 *
 * Personalization: generated interactions with known preferences on the Flipkart catalog. Each
 * customer prefers one brand (among brands with at least 15 products): 8 views, 70 % of that brand,
 * and one purchase of it, fed through `recordViews` / `recordPurchases`. Held out: a later purchase of
 * another product of the preferred brand; query: its least common title word found in 20+ products.
 * Metrics: MRR@10 / NDCG@10 of the held-out purchase and the preferred brand's share of the top 10,
 * with personalization off and on (weights 0.15 / 0.3 / 0.5 / 0.8). Control group: customers whose history
 * is random (no preference), target a random product: the order should not get much worse.
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, stableGuid, type Engine, type Product } from '@aisle/engine';
import { generateCatalog } from '@aisle/engine/demo';
import { tokenize } from '@aisle/engine/internal';
import { DATASETS_DIR } from './datasets.js';
import { seededRandom } from './seeded-random.js';

const SITE = { websiteId: 'eval', client: 'eval', tokens: ['eval-token'], hmacSecret: 'eval-secret' };
const WEIGHTS = [0.15, 0.3, 0.5, 0.8];


function readNdjson(file: string): Product[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Product);
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

function ndcg(gains: number[], idealCount: number): number {
  let dcg = 0;
  gains.forEach((g, i) => { dcg += g / Math.log2(i + 2); });
  let ideal = 0;
  for (let i = 0; i < Math.min(10, idealCount); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

async function openEngine(settings: Record<string, unknown>, products: Product[]): Promise<Engine> {
  const engine = await createEngine({ workers: 0, websites: [{ ...SITE, settings }] });
  await engine.upsertProducts(SITE.websiteId, products);
  return engine;
}

const searchTop = async (engine: Engine, q: string, extra: Record<string, unknown> = {}) =>
  engine.search({ website_id: SITE.websiteId, client: SITE.client, start: 0, size: 10, q, ...extra });

// ---------------------------------------------------------------- semantic

interface SemanticRow {
  setting: string; catP10: number; catNdcg10: number; knownMrr: number; knownS10: number; medianMs: number; p99Ms: number; rankedShare: number;
}

interface SemanticReport {
  catalog: string; products: number; queries: number; knownQueries: number; trainMs: number; maxPauseMs: number; rows: SemanticRow[];
}

function sampleQueries(products: Product[], count: number, seed: number, wordCount: number): { q: string; target: Product }[] {
  const random = seededRandom(seed);
  const out: { q: string; target: Product }[] = [];
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const p = products[Math.floor(random() * products.length)];
    if (typeof p.title !== 'string') continue;
    const brandWords = new Set(typeof p.brand === 'string' ? tokenize(p.brand) : []);
    const words = [...new Set(tokenize(p.title))].filter((w) => /^[a-z]{3,}$/.test(w) && !brandWords.has(w));
    if (words.length < wordCount) continue;
    const n = wordCount;
    const picked: string[] = [];
    while (picked.length < n) {
      const w = words[Math.floor(random() * words.length)];
      if (!picked.includes(w)) picked.push(w);
    }
    out.push({ q: picked.join(' '), target: p });
  }
  return out;
}

async function evalSemantic(label: string, products: Product[], categoryField: string, queries: number): Promise<SemanticReport> {
  // Short queries (one title word) for category relevance; three title words for the known item.
  const sample = sampleQueries(products, queries, 7, 1).filter((s) => typeof s.target[categoryField] === 'string');
  const known = sampleQueries(products, queries, 8, 3);
  const categorySize = new Map<string, number>();
  for (const p of products) if (typeof p[categoryField] === 'string') categorySize.set(p[categoryField] as string, (categorySize.get(p[categoryField] as string) ?? 0) + 1);
  const rows: SemanticRow[] = [];
  let trainMs = 0;
  let maxPauseMs = 0;
  for (const weight of [0, ...WEIGHTS]) {
    const settings = weight === 0 ? {} : { semanticSearch: { weight } };
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const started = performance.now();
    const engine = await openEngine(settings, products);
    const model = await engine.semanticModel(SITE.websiteId);
    if (weight !== 0 && trainMs === 0) {
      trainMs = performance.now() - started;
      maxPauseMs = histogram.max / 1e6;
    }
    histogram.disable();
    const catP: number[] = [];
    const catN: number[] = [];
    const rr: number[] = [];
    const s10: number[] = [];
    const times: number[] = [];
    let ranked = 0;
    for (const { q, target } of sample) {
      const t0 = performance.now();
      const r = await searchTop(engine, q);
      times.push(performance.now() - t0);
      if (r.settings?.ats_model) ranked++;
      const top = r.payload.result;
      const cat = target[categoryField];
      const gains = top.map((p) => (p[categoryField] === cat ? 1 : 0));
      catP.push(top.length === 0 ? 0 : gains.reduce((a: number, b) => a + b, 0) / 10);
      catN.push(ndcg(gains, categorySize.get(cat as string) ?? 0));
    }
    for (const { q, target } of known) {
      const t0 = performance.now();
      const r = await searchTop(engine, q);
      times.push(performance.now() - t0);
      if (r.settings?.ats_model) ranked++;
      const at = r.payload.result.findIndex((p) => p.refId === target.refId);
      rr.push(at < 0 ? 0 : 1 / (at + 1));
      s10.push(at < 0 ? 0 : 1);
    }
    if (weight !== 0 && !model) throw new Error('the built-in model did not train');
    await engine.close();
    times.sort((a, b) => a - b);
    rows.push({
      setting: weight === 0 ? 'BM25F only' : `hybrid, weight ${weight}`,
      catP10: mean(catP), catNdcg10: mean(catN), knownMrr: mean(rr), knownS10: mean(s10),
      medianMs: quantile(times, 0.5), p99Ms: quantile(times, 0.99), rankedShare: ranked / (sample.length + known.length),
    });
  }
  return { catalog: label, products: products.length, queries: sample.length, knownQueries: known.length, trainMs, maxPauseMs, rows };
}

/**
 * The training of a generated catalog of `count` products, in an engine as `aisle serve` runs it: wall
 * time, CPU time (user + system of every thread: the worker's training and the loop's reading of the
 * texts; steadier than the wall time on a loaded machine) and the event-loop delay meanwhile.
 */
async function trainingAtScale(count: number): Promise<{ products: number; trainMs: number; cpuMs: number; maxPauseMs: number; p99PauseMs: number }> {
  const products = generateCatalog({ count, seed: 3 });
  const engine = await createEngine({ workers: 0, websites: [{ ...SITE, settings: {} }] });
  await engine.upsertProducts(SITE.websiteId, products);
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  const cpu = process.cpuUsage();
  await engine.addWebsite({ ...SITE, settings: { semanticSearch: true } });
  await engine.semanticModel(SITE.websiteId);
  const trainMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  histogram.disable();
  await engine.close();
  return { products: count, trainMs, cpuMs: (used.user + used.system) / 1000, maxPauseMs: histogram.max / 1e6, p99PauseMs: histogram.percentile(99) / 1e6 };
}

// ---------------------------------------------------------------- personalization

interface PersonalRow { setting: string; mrr: number; ndcg: number; brandShare: number; controlMrr: number }

async function evalPersonalization(products: Product[], customers: number): Promise<{ customers: number; rows: PersonalRow[] }> {
  const random = seededRandom(11);
  const byBrand = new Map<string, Product[]>();
  for (const p of products) if (typeof p.brand === 'string' && typeof p.title === 'string') byBrand.set(p.brand, [...(byBrand.get(p.brand) ?? []), p]);
  const brands = [...byBrand.entries()].filter(([, list]) => list.length >= 15).map(([b]) => b);
  const df = new Map<string, number>();
  for (const p of products) if (typeof p.title === 'string') for (const w of new Set(tokenize(p.title))) df.set(w, (df.get(w) ?? 0) + 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  // The held-out purchase's least common title word found in 20+ products: a query with many good answers.
  const queryFor = (p: Product): string | undefined => {
    const brandWords = new Set(tokenize(String(p.brand ?? '')));
    const words = [...new Set(tokenize(p.title as string))].filter((w) => /^[a-z]{3,}$/.test(w) && !brandWords.has(w) && (df.get(w) ?? 0) >= 20);
    words.sort((a, b) => df.get(a)! - df.get(b)!);
    return words[0];
  };
  interface Case { customer: string; views: Product[]; bought: Product; target: Product; q: string; brand?: string }
  const cases: Case[] = [];
  const control: Case[] = [];
  for (let c = 0; cases.length < customers && c < customers * 20; c++) {
    const brand = pick(brands);
    const own = byBrand.get(brand)!;
    const views = Array.from({ length: 8 }, () => (random() < 0.7 ? pick(own) : pick(products)));
    const bought = pick(own);
    const target = pick(own);
    const q = queryFor(target);
    if (!q || views.includes(target) || bought === target) continue;
    cases.push({ customer: stableGuid('pref', String(c)), views, bought, target, q, brand });
  }
  for (let c = 0; control.length < customers && c < customers * 20; c++) {
    const views = Array.from({ length: 8 }, () => pick(products));
    const target = pick(products);
    const q = typeof target.title === 'string' ? queryFor(target) : undefined;
    if (!q || views.includes(target)) continue;
    control.push({ customer: stableGuid('ctrl', String(c)), views, bought: pick(products), target, q });
  }
  const rows: PersonalRow[] = [];
  for (const weight of [0, ...WEIGHTS]) {
    const engine = await openEngine(weight === 0 ? {} : { personalization: { weight } }, products);
    let n = 0;
    for (const k of [...cases, ...control]) {
      const sessionId = stableGuid('session', k.customer);
      const base = Date.UTC(2026, 0, 1) + n++ * 60_000;
      await engine.recordViews(SITE.websiteId, {
        customerId: k.customer, sessionId,
        events: k.views.map((p, i) => ({ currentUrl: `https://shop.example/p/${p.refId}`, eventTime: new Date(base + i * 1000).toISOString(), refId: p.refId })),
      });
      if (typeof k.bought.refId === 'string') {
        await engine.recordPurchases(SITE.websiteId, {
          customerId: k.customer, sessionId,
          events: [{ currentUrl: 'https://shop.example/checkout', eventTime: new Date(base + 30_000).toISOString(), orderId: stableGuid('order', k.customer), currencyCode: 'INR',
            products: [{ refId: k.bought.refId, quantity: 1, price: 1 }] }],
        });
      }
    }
    const score = async (list: Case[]) => {
      const rr: number[] = [];
      const nd: number[] = [];
      const share: number[] = [];
      for (const k of list) {
        const r = await searchTop(engine, k.q, { customer_id: k.customer });
        const at = r.payload.result.findIndex((p) => p.refId === k.target.refId);
        rr.push(at < 0 ? 0 : 1 / (at + 1));
        nd.push(at < 0 ? 0 : 1 / Math.log2(at + 2));
        if (k.brand) share.push(r.payload.result.filter((p) => p.brand === k.brand).length / Math.max(1, r.payload.result.length));
      }
      return { mrr: mean(rr), ndcg: mean(nd), share: mean(share) };
    };
    const pref = await score(cases);
    const ctrl = await score(control);
    await engine.close();
    rows.push({ setting: weight === 0 ? 'off (plain order)' : `on, weight ${weight}`, mrr: pref.mrr, ndcg: pref.ndcg, brandShare: pref.share, controlMrr: ctrl.mrr });
  }
  return { customers: cases.length, rows };
}

// ---------------------------------------------------------------- report

const f3 = (x: number): string => x.toFixed(3);
const f1 = (x: number): string => x.toFixed(1);

function markdown(semantic: SemanticReport[], scale: Awaited<ReturnType<typeof trainingAtScale>> | undefined, personal: Awaited<ReturnType<typeof evalPersonalization>> | undefined): string {
  const lines = ['# Search re-rank evaluation (generated)', '',
    'Produced by `node --import tsx packages/bench/src/search-rerank-eval.ts` (protocol in its header and in',
    'docs/semantic-search.md and docs/personalization.md). Inline search (no worker pool), one process, 2-core machine shared with other work: latencies are indicative.', ''];
  for (const s of semantic) {
    lines.push(`## Semantic search: ${s.catalog} (${s.products} products, ${s.queries} one-word and ${s.knownQueries} three-word queries)`, '',
      `Built-in model trained in ${f1(s.trainMs)} ms (catalog load included), longest event-loop pause during load and training ${f1(s.maxPauseMs)} ms.`, '',
      '| setting | category P@10 | category NDCG@10 | known-item MRR@10 | known-item success@10 | median ms | p99 ms | ats_model sent |',
      '|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of s.rows) lines.push(`| ${r.setting} | ${f3(r.catP10)} | ${f3(r.catNdcg10)} | ${f3(r.knownMrr)} | ${f3(r.knownS10)} | ${f3(r.medianMs)} | ${f3(r.p99Ms)} | ${(r.rankedShare * 100).toFixed(0)} % |`);
    lines.push('');
  }
  if (scale) {
    lines.push('## Semantic model training at scale', '',
      `Generated catalog of ${scale.products} products: training took ${f1(scale.trainMs)} ms (${f1(scale.cpuMs)} ms of CPU, every thread) in the background (a worker thread from 10,000 products); event-loop delay during it: p99 ${f1(scale.p99PauseMs)} ms, max ${f1(scale.maxPauseMs)} ms.`, '');
  }
  if (personal) {
    lines.push(`## Personalization (Flipkart catalog, ${personal.customers} customers with a preferred brand, as many without)`, '',
      '| setting | MRR@10 of the later purchase | NDCG@10 | preferred brand in top 10 | control group MRR@10 |',
      '|---|---:|---:|---:|---:|');
    for (const r of personal.rows) lines.push(`| ${r.setting} | ${f3(r.mrr)} | ${f3(r.ndcg)} | ${(r.brandShare * 100).toFixed(1)} % | ${f3(r.controlMrr)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string, dflt: number): number => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const queries = arg('--queries', 400);
  const scaleCount = arg('--scale', 100_000);
  if (argv.includes('--only') && argv[argv.indexOf('--only') + 1] === 'scale') {
    const scale = await trainingAtScale(scaleCount);
    console.log(argv.includes('--json') ? JSON.stringify(scale) : `${scale.products} products: training ${f1(scale.trainMs)} ms, ${f1(scale.cpuMs)} ms of CPU (every thread); event-loop delay p99 ${f1(scale.p99PauseMs)} ms, max ${f1(scale.maxPauseMs)} ms`);
    return;
  }
  const flipkartFile = path.join(DATASETS_DIR, 'flipkart-products.ndjson');
  const bestbuyFile = path.join(DATASETS_DIR, 'bestbuy-products-typesense.ndjson');
  if (!existsSync(flipkartFile) || !existsSync(bestbuyFile)) {
    console.error(`datasets not found in ${DATASETS_DIR}: nothing to evaluate`);
    process.exit(1);
  }
  const flipkart = readNdjson(flipkartFile);
  const bestbuy = readNdjson(bestbuyFile);
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const semantic = only === 'personalization' ? [] : [
    await evalSemantic('Flipkart (real)', flipkart, 'search_category_generic', queries),
    await evalSemantic('Best Buy (real)', bestbuy, 'search_category', queries),
  ];
  const scale = scaleCount > 0 && only !== 'personalization' ? await trainingAtScale(scaleCount) : undefined;
  const personal = only === 'semantic' ? undefined : await evalPersonalization(flipkart, arg('--customers', 300));
  if (argv.includes('--json')) console.log(JSON.stringify({ semantic, scale, personal }, null, 2));
  const md = markdown(semantic, scale, personal);
  const out = path.resolve(fileURLToPath(new URL('../../../docs/semantic-search-eval.md', import.meta.url)));
  writeFileSync(out, `${md}\n`);
  console.log(md);
}

await main();
