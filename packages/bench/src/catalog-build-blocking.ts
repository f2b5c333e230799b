/**
 * Ad-hoc measure: how long does a one-product change of a big catalog block the event loop?
 *
 * Loads N generated products (default 1 000 000) into a Catalog, then, while a search loop runs
 * (one search, then `setImmediate`, again), upserts one product (an update of an existing refId,
 * then an insert of a new one), then value-only updates (new prices and stock: the column patch of
 * `patch-values.ts`) of 1 and 10,000 products, and reports per change: its wall time, the event-loop delay during
 * it (perf_hooks `monitorEventLoopDelay`: max and p99), and the search loop's answers during it
 * (count of searches due during it, latency median / p99 / max from the moment a search was due to its answer).
 *
 *   node --import tsx packages/bench/src/catalog-build-blocking.ts [products] [--slice-ms=N] [--json]
 *
 * `--slice-ms` sets the build's time slice (milliseconds of work between two turns of the event loop).
 *
 * Figures are recorded in docs/architecture-search.md ("Catalog changes on a live catalog").
 * @module
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { generateCatalog } from '@aisle/engine/demo';
import { Catalog, executeSearch, validateSearchRequest } from '@aisle/engine/internal';

const count = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const asJson = process.argv.includes('--json');
const sliceArg = process.argv.find((a) => a.startsWith('--slice-ms='));
const sliceMs = sliceArg ? Number(sliceArg.slice('--slice-ms='.length)) : undefined;
const log = (line: string) => { if (!asJson) console.log(line); };

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
const f = (x: number) => (Number.isNaN(x) ? '-' : x < 10 ? x.toFixed(2) : x.toFixed(0));

// A mixed request loop: text + facets, browse with a facet, browse with a number sort.
const requests = [
  { q: 'shirt', aggregations: ['brand'] },
  { q: '', aggregations: ['search_category'], range_fields: ['price'] },
  { q: 'cotton', sort_fields: [{ price: { order: 'asc', type: 'number' } }] },
].map((extra) => validateSearchRequest({ website_id: 'w', client: 'c', start: 0, size: 20, ...extra }));

let t = performance.now();
const products = generateCatalog({ count });
log(`generated ${count} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const catalog = new Catalog({}, sliceMs === undefined ? {} : { sliceMs });
t = performance.now();
await catalog.replace(products);
const loadSeconds = (performance.now() - t) / 1000;
log(`loaded in ${loadSeconds.toFixed(1)} s (version ${catalog.version}, ${catalog.liveCount} products)`);

/** Runs `change` while a search loop runs; the loop's latencies and the event-loop delay during it. */
async function measure(label: string, change: () => Promise<unknown>) {
  let running = true;
  const latencies: { due: number; ms: number }[] = [];
  const totals = new Set<number>();
  const loop = (async () => {
    let i = 0;
    while (running) {
      const due = performance.now();
      const payload = await executeSearch(catalog, requests[i++ % requests.length]);
      latencies.push({ due, ms: performance.now() - due });
      totals.add(payload.total_results);
      // The next search is due now; the time until it starts counts in its latency.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  // Settle the loop first (JIT, caches), then measure only the change.
  await new Promise((resolve) => setTimeout(resolve, 300));
  latencies.length = 0;
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // The histogram's first tick only starts its clock: let it tick before the change.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const start = performance.now();
  await change();
  const end = performance.now();
  const wall = end - start;
  // A blocked loop records its delay when its timer finally fires, and the search that was due
  // during the change answers after it: give both a moment before reading them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  histogram.disable();
  running = false;
  await loop;
  const during = latencies.filter((l) => l.due >= start && l.due <= end).map((l) => l.ms).sort((a, b) => a - b);
  const row = {
    label,
    wallMs: wall,
    loopDelayMaxMs: histogram.max / 1e6,
    loopDelayP99Ms: histogram.percentile(99) / 1e6,
    searchesDuring: during.length,
    searchMedianMs: quantile(during, 0.5),
    searchP99Ms: quantile(during, 0.99),
    searchMaxMs: during.length ? during[during.length - 1] : NaN,
  };
  log(`${label}: wall ${f(row.wallMs)} ms | event-loop delay max ${f(row.loopDelayMaxMs)} ms, p99 ${f(row.loopDelayP99Ms)} ms | ` +
    `searches during it ${row.searchesDuring}, latency median ${f(row.searchMedianMs)} / p99 ${f(row.searchP99Ms)} / max ${f(row.searchMaxMs)} ms`);
  return row;
}

const rows = [];
rows.push(await measure('idle (no change, 2 s)', () => new Promise((resolve) => setTimeout(resolve, 2000))));
const first = products[0];
rows.push(await measure('upsert 1 product (update)', () => catalog.upsert([{ ...first, title: `${String(first.title)} renamed` }])));
rows.push(await measure('upsert 1 product (insert)', () => catalog.upsert([{ ...first, refId: 'bench-new-product' }])));
// Value-only updates (price, stock) of known products take the column patch, not a rebuild.
const numeric = (v: unknown) => (typeof v === 'number' ? v : 0);
rows.push(await measure('upsert 1 product (new price: value patch)', () => catalog.upsert([{ ...products[1], price: numeric(products[1].price) + 1 }])));
rows.push(await measure('upsert 10,000 products (new prices and stock: value patch)', () => catalog.upsert(
  products.slice(2, 10_002).map((p) => ({ ...p, price: numeric(p.price) + 1, availability: numeric(p.availability) === 0 ? 5 : 0 })),
)));
if (asJson) console.log(JSON.stringify({ count, loadSeconds, rows }));
