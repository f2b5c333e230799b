/**
 * How soon is a one-product change searchable, what does it cost, and how long does it hold the event
 * loop? Per kind of change — a new price (value patch), a new product (append), a changed title
 * (tombstone + append), a delete (tombstone), a field no product had (on a new product: append; on a
 * known one: tombstone + append), a field's kind changing (rebuild from the store), a replace (full
 * rebuild), and a merge of the tombstones — on N
 * generated products (default 100 000):
 * - visibility: from the call to the moment a search finds the change (the call resolves once the
 *   version holding it is current; the search then confirms it);
 * - CPU: process CPU time (user + system, every thread) over the same interval;
 * - event-loop delay: perf_hooks `monitorEventLoopDelay` (resolution 1 ms), max over the interval, and the
 *   longest gap between two turns of a `setImmediate` chain running beside the change (the histogram
 *   records no sample over an interval in which no timer turn happened).
 * Each kind runs `--repeat` times (default 7; the rebuilds, the delete after them and the merge once) on the same catalog, one
 * after the other.
 *
 *   node --import tsx packages/bench/src/catalog-change-visibility.ts [products] [--repeat=N] [--json]
 *
 * Figures are recorded in docs/benchmarks.md ("Catalog changes: visibility and cost").
 * @module
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { generateCatalog } from '@aisle/engine/demo';
import { Catalog, executeSearch, validateSearchRequest } from '@aisle/engine/internal';
import type { Product } from '@aisle/engine';
import { watchEventLoopStalls } from './event-loop-stalls.js';

const count = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 100_000);
const repeatArg = process.argv.find((a) => a.startsWith('--repeat='));
const repeat = repeatArg ? Number(repeatArg.slice('--repeat='.length)) : 7;
const asJson = process.argv.includes('--json');
const log = (line: string) => { if (!asJson) console.log(line); };

/** One measured change: wall time until visible, CPU, longest event-loop delay and stall (all in ms). */
interface Sample { visibleMs: number; cpuMs: number; maxDelayMs: number; maxStallMs: number }

const search = (q: string, scope?: Record<string, string[]>) =>
  executeSearch(catalog, validateSearchRequest({ website_id: 'w', client: 'c', start: 0, size: 5, q, ...(scope ? { scope } : {}) }));

/** Runs `change`, then `visible` until it answers true; the sample of that interval. */
async function measure(change: () => Promise<unknown>, visible: () => Promise<boolean>): Promise<Sample> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const stalls = watchEventLoopStalls();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await change();
  while (!(await visible())) await new Promise((resolve) => setImmediate(resolve));
  const visibleMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  delay.disable();
  const maxStallMs = stalls.stop();
  return { visibleMs, cpuMs: (used.user + used.system) / 1000, maxDelayMs: delay.max / 1e6, maxStallMs };
}

let t = performance.now();
const generated: Product[] = generateCatalog({ count });
log(`generated ${count} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const catalog = new Catalog();
t = performance.now();
await catalog.replace(generated);
log(`loaded in ${((performance.now() - t) / 1000).toFixed(1)} s (${catalog.liveCount} products)`);
// Only the refIds are kept: a million product objects held by the bench would be marked by every
// collection of the changes measured (a server holds none: the catalog keeps its products encoded).
const refIds = generated.map((p) => p.refId);
generated.length = 0;
// Warm the derived lookups a live shop has (refId scope, title words), as its searches would.
await search('shirt', { refId: [refIds[0]] });

let next = 0;
/** A product of the catalog as it is now (picks never repeat a refId within the runs). */
const pick = (): Product => {
  const refId = refIds[(next++ * 7919) % refIds.length];
  const product = catalog.getProduct(refId);
  if (!product) throw new Error(`picked ${refId}, which the catalog no longer has`);
  return product;
};
const kinds: { label: string; times: number; run: (i: number) => Promise<Sample> }[] = [
  { label: 'price (value patch)', times: repeat, run: () => {
    const p = pick();
    const price = 1000 + next;
    return measure(() => catalog.upsert([{ ...p, price }]), async () => (await search('', { refId: [p.refId] })).result[0]?.price === price);
  } },
  { label: 'new product (append)', times: repeat, run: (i) => {
    const refId = `fresh-${i}`;
    return measure(() => catalog.upsert([{ ...pick(), refId, title: `zzfresh${i} shirt` }]), async () => (await search(`zzfresh${i}`)).total_results === 1);
  } },
  { label: 'changed title (tombstone + append)', times: repeat, run: (i) => {
    const p = pick();
    return measure(() => catalog.upsert([{ ...p, title: `zzretitled${i} ${String(p.title)}` }]), async () => (await search(`zzretitled${i}`)).total_results === 1);
  } },
  { label: 'delete (tombstone)', times: repeat, run: () => {
    const p = pick();
    return measure(() => catalog.delete([p.refId]), async () => (await search('', { refId: [p.refId] })).total_results === 0);
  } },
  { label: 'new product with a field no product had (append)', times: repeat, run: (i) => {
    const field = `zz_added_${i}`;
    return measure(() => catalog.upsert([{ ...pick(), refId: `fresh-field-${i}`, [field]: 'zzvalue' }]), async () => (await search('', { [field]: ['zzvalue'] })).total_results === 1);
  } },
  { label: 'field no product had (tombstone + append)', times: repeat, run: (i) => {
    const p = pick();
    const field = `zz_new_field_${i}`;
    return measure(() => catalog.upsert([{ ...p, [field]: 'zzvalue' }]), async () => (await search('', { [field]: ['zzvalue'] })).total_results === 1);
  } },
  { label: "a field's kind changes (rebuild from the store)", times: 1, run: async () => {
    // A field with one number is numeric; a text value in another product makes it text: no append
    // can change a kind (the old docs' columns would differ), so the catalog is rebuilt, reading the
    // stored products from its store.
    const p = pick();
    await catalog.upsert([{ ...p, zz_kind: 5 }]);
    const q = pick();
    return measure(() => catalog.upsert([{ ...q, zz_kind: 'zzword' }]), async () => (await search('', { zz_kind: ['zzword'] })).total_results === 1);
  } },
  { label: 'replace by the same products and one more (full rebuild)', times: 1, run: () => {
    const all: Product[] = [];
    catalog.forEachProduct((p) => all.push(p));
    all.push({ ...pick(), refId: 'replaced-in', title: 'zzreplaced shirt' });
    return measure(() => catalog.replace(all), async () => (await search('zzreplaced')).total_results === 1);
  } },
  { label: 'delete after the rebuild (first since a merge)', times: 1, run: () => {
    const p = pick();
    return measure(() => catalog.delete([p.refId]), async () => (await search('', { refId: [p.refId] })).total_results === 0);
  } },
  { label: 'merge of the tombstones (background)', times: 1, run: () =>
    measure(() => catalog.merge(), async () => catalog.state.tombstones === undefined) },
];

const median = (xs: number[]) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const f = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const rows: { kind: string; samples: Sample[] }[] = [];
for (const kind of kinds) {
  const samples: Sample[] = [];
  for (let i = 0; i < kind.times; i++) samples.push(await kind.run(i));
  rows.push({ kind: kind.label, samples });
  const v = samples.map((s) => s.visibleMs);
  log(`${kind.label}: visible median ${f(median(v))} ms, max ${f(Math.max(...v))} ms; CPU median ${f(median(samples.map((s) => s.cpuMs)))} ms, max ${f(Math.max(...samples.map((s) => s.cpuMs)))} ms; event-loop delay max ${f(Math.max(...samples.map((s) => s.maxDelayMs)))} ms, longest stall ${f(Math.max(...samples.map((s) => s.maxStallMs)))} ms (${samples.length} runs)`);
}
if (asJson) console.log(JSON.stringify({ products: count, rows }));
