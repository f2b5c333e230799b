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
 *   node --import tsx packages/bench/src/catalog-change-visibility.ts [products] [--repeat=N] [--json] [--data-dir | --engine] [--memory-only | --kinds-only] [--heap-snapshots=<dir>] [--stall-windows=<file>]
 *
 * Without `--data-dir` the changes go to a bare `Catalog` (memory only). With it they go through an
 * engine with a data directory (a temporary one), as `aisle serve` runs: `upsertProducts`,
 * `deleteProducts`, `replaceProducts`, each change logged and the snapshot rewritten in the background,
 * the visibility checked with `engine.search`; the merge of the tombstones is the engine's own (in the
 * background, not measured as a kind), and the engine's snapshot write is a last kind (`saveSnapshots`:
 * its background slices, on their own). After the kinds, a stream of 50 more changes (prices, new products,
 * changed titles, deletes in turn) runs, and once the process is idle heap + array buffers are read
 * after a full collection (`--expose-gc`), beside the same figure after the build. `--memory-only`
 * skips the kinds (build, stream, memory); `--kinds-only` skips the stream and the memory reads (and
 * the waits for idleness they need: minutes at 1M after the replace; after the build it waits for
 * `engine.settled()` instead). `--engine` goes through an engine without a data directory.
 *
 * Figures are recorded in docs/benchmarks.md ("Catalog changes: visibility and cost").
 * @module
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { generateCatalog } from '@aisle/engine/demo';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';
import { Catalog, executeSearch, validateSearchRequest } from '@aisle/engine/internal';
import { createEngine, type Product, type SearchRequest } from '@aisle/engine';
import { BENCH_WEBSITE } from './peers/aisle.js';
import { hrtimeUs, watchEventLoopStalls, type StallWindow } from './event-loop-stalls.js';
import { waitForIdle } from './ab/idle.js';

const count = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 100_000);
const repeatArg = process.argv.find((a) => a.startsWith('--repeat='));
const repeat = repeatArg ? Number(repeatArg.slice('--repeat='.length)) : 7;
const asJson = process.argv.includes('--json');
const log = (line: string) => { if (!asJson) console.log(line); };

/**
 * One measured change: wall time until visible, CPU, longest event-loop delay and stall, and the longest
 * stall less the loop thread's wait for a CPU in it (all in ms; see event-loop-stalls.ts).
 */
interface Sample { visibleMs: number; cpuMs: number; maxDelayMs: number; maxStallMs: number; maxOwnStallMs: number }

const withDataDir = process.argv.includes('--data-dir');
/** `--engine`: through an engine without a data directory (separates what the engine keeps from what its data directory does). */
const throughEngine = withDataDir || process.argv.includes('--engine');

/** What the bench changes and searches: a bare catalog, or an engine with a data directory. */
interface Target {
  replace(products: Product[]): Promise<unknown>;
  upsert(products: Product[]): Promise<unknown>;
  delete(refIds: string[]): Promise<unknown>;
  getProduct(refId: string): Promise<Product | undefined>;
  search(q: string, scope?: Record<string, string[]>): Promise<{ total_results: number; result: Record<string, unknown>[] }>;
  liveCount(): number;
  /** The merge of the tombstones (bare catalog only: the engine merges by itself), and whether none is left. */
  merge?(): Promise<unknown>;
  merged?(): boolean;
  /** The snapshot written now (data directory only; the engine writes one by itself after changes). */
  saveSnapshot?(): Promise<unknown>;
  /** Resolves once the engine's background work is done (`engine.settled()`; engine only). */
  settled?(): Promise<void>;
  close(): Promise<void>;
}

function catalogTarget(): Target {
  const catalog = new Catalog();
  return {
    replace: (products) => catalog.replace(products),
    upsert: (products) => catalog.upsert(products),
    delete: (refIds) => catalog.delete(refIds),
    getProduct: async (refId) => catalog.getProduct(refId),
    search: (q, scope) => executeSearch(catalog, validateSearchRequest({ website_id: 'w', client: 'c', start: 0, size: 5, q, ...(scope ? { scope } : {}) })),
    liveCount: () => catalog.liveCount,
    merge: () => catalog.merge(),
    merged: () => catalog.state.tombstones === undefined,
    close: async () => {},
  };
}

async function engineTarget(): Promise<Target> {
  const dataDir = withDataDir ? mkdtempSync(join(tmpdir(), 'aisle-change-visibility-')) : undefined;
  const engine = await createEngine({ websites: [BENCH_WEBSITE], ...(dataDir && { dataDir }) });
  const id = BENCH_WEBSITE.websiteId;
  let live = 0;
  return {
    replace: async (products) => { live = (await engine.replaceProducts(id, products)).catalogSize; },
    upsert: async (products) => { live = (await engine.upsertProducts(id, products)).catalogSize; },
    delete: async (refIds) => { live = (await engine.deleteProducts(id, refIds)).catalogSize; },
    getProduct: (refId) => engine.getProduct(id, refId),
    ...(dataDir && { saveSnapshot: () => engine.saveSnapshots() }),
    settled: () => engine.settled(),
    search: async (q, scope) => (await engine.search({ website_id: id, client: BENCH_WEBSITE.client, start: 0, size: 5, q, ...(scope ? { scope } : {}) } as SearchRequest)).payload,
    liveCount: () => live,
    close: async () => {
      await engine.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `--stall-windows=<file>`: the event-loop stalls of 50 ms or more during the measured changes, written
 * as JSON (µs of `process.hrtime`), to look up in a `--cpu-prof` profile what held the loop; with them
 * each measured change's whole interval, labelled with its kind (`change`).
 */
const stallFile = process.argv.find((a) => a.startsWith('--stall-windows='))?.slice('--stall-windows='.length);
const stallWindows: StallWindow[] | undefined = stallFile ? [] : undefined;
// The two clocks side by side: `--trace-gc` stamps its lines in ms since the process started (about
// `performance.now()`), the windows in µs of `process.hrtime`.
if (stallFile) console.error(`clocks: hrtime ${hrtimeUs()} µs at performance.now() ${performance.now().toFixed(1)} ms`);

/** Heap + array buffers after a full collection (MB; NaN without `--expose-gc`). */
function retainedMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return NaN;
  gc();
  gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

const target = throughEngine ? await engineTarget() : catalogTarget();
const search = (q: string, scope?: Record<string, string[]>) => target.search(q, scope);

/** The kind of change being measured (labels its interval in `--stall-windows`). */
let measuring = '';

/** Runs `change`, then `visible` until it answers true; the sample of that interval. */
async function measure(change: () => Promise<unknown>, visible: () => Promise<boolean>): Promise<Sample> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const stalls = watchEventLoopStalls(stallWindows);
  const cpu = process.cpuUsage();
  const startUs = hrtimeUs();
  const t0 = performance.now();
  await change();
  while (!(await visible())) await new Promise((resolve) => setImmediate(resolve));
  const visibleMs = performance.now() - t0;
  stallWindows?.push({ startUs, endUs: hrtimeUs(), change: measuring });
  const used = process.cpuUsage(cpu);
  delay.disable();
  const maxStallMs = stalls.stop();
  return { visibleMs, cpuMs: (used.user + used.system) / 1000, maxDelayMs: delay.max / 1e6, maxStallMs, maxOwnStallMs: stalls.longestOwnMs() };
}

let t = performance.now();
const generated: Product[] = generateCatalog({ count });
log(`generated ${count} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);
t = performance.now();
await target.replace(generated);
log(`loaded in ${((performance.now() - t) / 1000).toFixed(1)} s (${target.liveCount()} products${withDataDir ? ', engine with a data directory' : throughEngine ? ', engine without a data directory' : ', bare catalog'})`);
/** Changes of the stream run after the kinds (below). */
const STREAM = 50;
// Only the refIds the runs will pick are kept: a million product objects held by the bench would be
// marked by every collection of the changes measured, and even a million refId strings (~38 MB) would
// count in the memory read at the end (a server holds none: the catalog keeps its products encoded).
// Picks never repeat a refId (7919 is prime to the counts used) and are at most 8 per repeat of the
// kinds plus the stream's.
const refIds = Array.from({ length: Math.min(generated.length, repeat * 8 + STREAM + 16) }, (_, i) => generated[(i * 7919) % generated.length]!.refId);
generated.length = 0;
// Warm the derived lookups a live shop has (refId scope, title words), as its searches would.
await search('shirt', { refId: [refIds[0]!] });
// An engine builds its recommendation indexes after the load, in the background: read the memory
// once they are built (before this wait, "after the build" missed them and they showed up as growth
// of the stream: 0 MB of index in the 200k heap snapshot after the load, 73 MB after the stream).
// Without the memory read (`--kinds-only`), what the kinds need is the indexes built: the engine says
// when (an idleness wait never ends under `--cpu-prof`, whose thread keeps the process busy).
const kindsOnly = process.argv.includes('--kinds-only');
if (throughEngine) await (kindsOnly ? target.settled!() : waitForIdle());
const afterBuildMb = kindsOnly ? NaN : retainedMb();
/** `--heap-snapshots=<dir>`: a heap snapshot after the build and one after the stream (to diff what the stream leaves). */
const snapshotDir = process.argv.find((a) => a.startsWith('--heap-snapshots='))?.slice('--heap-snapshots='.length);
if (snapshotDir) log(`heap snapshot: ${writeHeapSnapshot(join(snapshotDir, 'after-build.heapsnapshot'))}`);

let next = 0;
/** A product of the catalog as it is now (picks never repeat a refId within the runs). */
const pick = async (): Promise<Product> => {
  const refId = refIds[next++];
  if (refId === undefined) throw new Error('the bench picked more products than it kept refIds for');
  const product = await target.getProduct(refId);
  if (!product) throw new Error(`picked ${refId}, which the catalog no longer has`);
  return product;
};
const kinds: { label: string; times: number; run: (i: number) => Promise<Sample> }[] = [
  { label: 'price (value patch)', times: repeat, run: async () => {
    const p = await pick();
    const price = 1000 + next;
    return measure(() => target.upsert([{ ...p, price }]), async () => (await search('', { refId: [p.refId] })).result[0]?.price === price);
  } },
  { label: 'new product (append)', times: repeat, run: async (i) => {
    const refId = `fresh-${i}`;
    const p = await pick();
    return measure(() => target.upsert([{ ...p, refId, title: `zzfresh${i} shirt` }]), async () => (await search(`zzfresh${i}`)).total_results === 1);
  } },
  { label: 'changed title (tombstone + append)', times: repeat, run: async (i) => {
    const p = await pick();
    return measure(() => target.upsert([{ ...p, title: `zzretitled${i} ${String(p.title)}` }]), async () => (await search(`zzretitled${i}`)).total_results === 1);
  } },
  { label: 'delete (tombstone)', times: repeat, run: async () => {
    const p = await pick();
    return measure(() => target.delete([p.refId]), async () => (await search('', { refId: [p.refId] })).total_results === 0);
  } },
  { label: 'new product with a field no product had (append)', times: repeat, run: async (i) => {
    const field = `zz_added_${i}`;
    const p = await pick();
    return measure(() => target.upsert([{ ...p, refId: `fresh-field-${i}`, [field]: 'zzvalue' }]), async () => (await search('', { [field]: ['zzvalue'] })).total_results === 1);
  } },
  { label: 'field no product had (tombstone + append)', times: repeat, run: async (i) => {
    const p = await pick();
    const field = `zz_new_field_${i}`;
    return measure(() => target.upsert([{ ...p, [field]: 'zzvalue' }]), async () => (await search('', { [field]: ['zzvalue'] })).total_results === 1);
  } },
  { label: "a field's kind changes (rebuild from the store)", times: 1, run: async () => {
    // A field with one number is numeric; a text value in another product makes it text: no append
    // can change a kind (the old docs' columns would differ), so the catalog is rebuilt, reading the
    // stored products from its store.
    const p = await pick();
    await target.upsert([{ ...p, zz_kind: 5 }]);
    const q = await pick();
    return measure(() => target.upsert([{ ...q, zz_kind: 'zzword' }]), async () => (await search('', { zz_kind: ['zzword'] })).total_results === 1);
  } },
  { label: 'replace by the same products and one more (full rebuild)', times: 1, run: async () => {
    // The products as generated (the changes above are undone by the replace, as a feed reload would).
    const all: Product[] = generateCatalog({ count });
    all.push({ ...(await pick()), refId: 'replaced-in', title: 'zzreplaced shirt' });
    return measure(() => target.replace(all), async () => (await search('zzreplaced')).total_results === 1);
  } },
  { label: 'delete after the rebuild (first since a merge)', times: 1, run: async () => {
    const p = await pick();
    return measure(() => target.delete([p.refId]), async () => (await search('', { refId: [p.refId] })).total_results === 0);
  } },
  ...(target.merge ? [{ label: 'merge of the tombstones (background)', times: 1, run: () => measure(() => target.merge!(), async () => target.merged!()) }] : []),
  // The snapshot the engine writes in the background after changes (timed, so its slices fall inside
  // whichever kind runs then): here on its own, its stalls named (decision 0070).
  ...(target.saveSnapshot ? [{ label: 'snapshot write (background)', times: repeat, run: () => measure(() => target.saveSnapshot!(), async () => true) }] : []),
];

const memoryOnly = process.argv.includes('--memory-only');
const median = (xs: number[]) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const f = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const rows: { kind: string; samples: Sample[] }[] = [];
for (const kind of memoryOnly ? [] : kinds) {
  const samples: Sample[] = [];
  measuring = kind.label;
  for (let i = 0; i < kind.times; i++) samples.push(await kind.run(i));
  rows.push({ kind: kind.label, samples });
  const v = samples.map((s) => s.visibleMs);
  log(`${kind.label}: visible median ${f(median(v))} ms, max ${f(Math.max(...v))} ms; CPU median ${f(median(samples.map((s) => s.cpuMs)))} ms, max ${f(Math.max(...samples.map((s) => s.cpuMs)))} ms; event-loop delay max ${f(Math.max(...samples.map((s) => s.maxDelayMs)))} ms, longest stall ${f(Math.max(...samples.map((s) => s.maxStallMs)))} ms, less its wait for a core ${f(Math.max(...samples.map((s) => s.maxOwnStallMs)))} ms (${samples.length} runs)`);
}

// A stream of changes, as a shop's feed sends them, then what the process keeps (issue #27 item 3:
// heap + array buffers at most 450 MB at 1M after it).
if (kindsOnly) {
  await target.close();
  if (stallFile) writeFileSync(stallFile, JSON.stringify(stallWindows));
  if (asJson) console.log(JSON.stringify({ products: count, dataDir: withDataDir, rows, afterBuildMb }));
  process.exit(0);
}
const streamStart = performance.now();
for (let i = 0; i < STREAM; i++) {
  const p = await pick();
  if (i % 4 === 0) await target.upsert([{ ...p, price: 2000 + i }]);
  else if (i % 4 === 1) await target.upsert([{ ...p, refId: `stream-${i}`, title: `zzstream${i} shirt` }]);
  else if (i % 4 === 2) await target.upsert([{ ...p, title: `zzstreamed${i} ${String(p.title)}` }]);
  else await target.delete([p.refId]);
}
const streamMs = performance.now() - streamStart;
// The background work the stream started (snapshot writes, merges, index rebuilds) settles first.
const settleStart = performance.now();
await waitForIdle();
const afterStreamMb = retainedMb();
if (snapshotDir) log(`heap snapshot: ${writeHeapSnapshot(join(snapshotDir, 'after-stream.heapsnapshot'))}`);
log(`heap + array buffers: ${f(afterBuildMb)} MB after the build, ${f(afterStreamMb)} MB after a stream of ${STREAM} changes (${f(streamMs)} ms for the stream; measured once the process was idle, ${f((performance.now() - settleStart) / 1000)} s after it)`);
await target.close();
if (stallFile) writeFileSync(stallFile, JSON.stringify(stallWindows));
if (asJson) console.log(JSON.stringify({ products: count, dataDir: withDataDir, rows, afterBuildMb, afterStreamMb }));
