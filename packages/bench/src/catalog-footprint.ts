/**
 * A catalog's footprint (issue 13, items 3 and 4): the memory an engine holding a generated catalog
 * retains, and the time a restarted process takes to answer its first search from the snapshot.
 *
 * Per size, each step in a fresh process:
 * - `memory`: an engine (library API, default workers) loads the generated catalog; retained bytes
 *   (heap used + array buffers after a full GC, as the peers comparison measures them) once the load
 *   returned and the feed's objects were dropped, with the parts: the products' stored JSON, the
 *   catalog's columns and index; and, for comparison in the same run, what the same products take as
 *   objects (how the catalog kept them before stored JSON). Measured once the recommendation indexes
 *   are built (a build in flight holds scratch memory).
 * - `write`: an engine with a data directory loads the catalog and closes (which writes the snapshot).
 * - `restart`: a process started on that data directory: time from the process start
 *   (`performance.timeOrigin`) to the first search answered, with the snapshot load on its own.
 *
 *   node packages/bench/dist/catalog-footprint.js [sizes, e.g. 100000,1000000] [--json]
 *
 * Figures are recorded in docs/benchmarks.md ("Catalog footprint").
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@aisle/engine';
import { generateCatalogStream } from '@aisle/engine/demo';
import { Catalog, loadCatalogSnapshot } from '@aisle/engine/internal';
import { runInChild, serveChild, retainedBytes } from './child-process.js';
import { BENCH_WEBSITE } from './peers/aisle.js';
import type { Product } from './types.js';

type Input =
  | { step: 'memory'; count: number }
  | { step: 'write'; count: number; dataDir: string }
  | { step: 'restart'; dataDir: string };

interface MemoryOutput {
  engineBytes: number;
  storedJsonBytes: number;
  columnBytes: number;
  objectsBytes: number;
  buildMs: number;
}
interface WriteOutput { snapshotBytes: number; closeMs: number }
/**
 * Wall times from the process start, and the CPU time the process (all its threads) had used by then:
 * on a loaded shared machine a process gets a fraction of a core, so the CPU time is what a quiet
 * machine's wall time would be close to.
 */
interface RestartOutput { firstSearchMs: number; firstSearchCpuMs: number; engineReadyMs: number; snapshotLoadMs: number; snapshotLoadCpuMs: number; total: number }

/** CPU time used by the process so far (user + system, all threads), ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function generated(count: number): Product[] {
  return [...generateCatalogStream({ count, seed: 1 })] as Product[];
}

/** Bytes of the typed arrays of a catalog version's columns and index (each buffer counted once). */
function columnBytes(catalog: Catalog): number {
  const seen = new Set<ArrayBufferLike>();
  let total = 0;
  const add = (a: ArrayBufferView | undefined): void => {
    if (a && !seen.has(a.buffer)) { seen.add(a.buffer); total += a.buffer.byteLength; }
  };
  const s = catalog.state;
  for (const f of s.index.fields) {
    add(f.numeric);
    add(f.order);
    if (f.text) for (const a of [f.text.offsets, f.text.codes, f.text.single, f.text.valueOffsets, f.text.valueDocs, f.text.sortRank]) add(a);
  }
  const ft = s.index.fullText;
  for (const a of [ft.termOffsets, ft.postDocs, ft.postFields, ft.postNorm, ft.termDocFreq, ft.fieldLengths]) add(a);
  add(s.vectors?.data);
  add(s.vectors?.present);
  add(s.termMasks);
  return total;
}

async function memory(count: number): Promise<MemoryOutput> {
  const base = retainedBytes();
  let products: Product[] = generated(count);
  const t0 = performance.now();
  const engine = await createEngine({ websites: [BENCH_WEBSITE] });
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, products);
  const buildMs = performance.now() - t0;
  products = [];
  // Measured once the derived indexes (recommendations) are built: a build in flight holds scratch memory.
  while (!engine.recommendationIndexesReady()) await new Promise((resolve) => setTimeout(resolve, 200));
  const engineBytes = retainedBytes() - base;
  // The parts, from a catalog of the same products built on its own (the engine's is internal).
  const catalog = new Catalog();
  await catalog.replace(generated(count));
  const stored = catalog.state.products.encodedOnly;
  const storedJsonBytes = stored?.byteLength ?? 0;
  const columns = columnBytes(catalog);
  await engine.close();
  const beforeObjects = retainedBytes();
  // The products as objects, each parsed from its JSON as a feed load makes them.
  const objects = generated(count).map((p) => JSON.parse(JSON.stringify(p)) as Product);
  const objectsBytes = retainedBytes() - beforeObjects;
  if (objects.length !== count) throw new Error('lost products');
  return { engineBytes, storedJsonBytes, columnBytes: columns, objectsBytes, buildMs };
}

async function write(count: number, dataDir: string): Promise<WriteOutput> {
  const engine = await createEngine({ dataDir, websites: [BENCH_WEBSITE] });
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, generated(count));
  const t0 = performance.now();
  await engine.close();
  const closeMs = performance.now() - t0;
  return { snapshotBytes: statSync(snapshotFile(dataDir)).size, closeMs };
}

function snapshotFile(dataDir: string): string {
  return path.join(dataDir, 'catalogs', `${encodeURIComponent(BENCH_WEBSITE.websiteId)}.aislesnap`);
}

async function restart(dataDir: string): Promise<RestartOutput> {
  const engine = await createEngine({ dataDir, websites: [BENCH_WEBSITE] });
  const engineReadyMs = performance.now();
  const { payload } = await engine.search({ website_id: BENCH_WEBSITE.websiteId, client: BENCH_WEBSITE.client, q: 'red tent', start: 0 });
  const firstSearchMs = performance.now();
  const firstSearchCpuMs = cpuMs();
  await engine.close();
  // The snapshot load alone (the file is warm in the page cache now, as it is after a restart).
  const t0 = performance.now();
  const c0 = cpuMs();
  await loadCatalogSnapshot(snapshotFile(dataDir));
  const snapshotLoadMs = performance.now() - t0;
  return { firstSearchMs, firstSearchCpuMs, engineReadyMs, snapshotLoadMs, snapshotLoadCpuMs: cpuMs() - c0, total: payload.total_results };
}

async function child(input: Input): Promise<unknown> {
  if (input.step === 'memory') return memory(input.count);
  if (input.step === 'write') return write(input.count, input.dataDir);
  return restart(input.dataDir);
}

if (process.send) serveChild(child);
else {
  const sizes = (process.argv.slice(2).find((a) => /^[\d,]+$/.test(a)) ?? '100000,1000000').split(',').map(Number);
  const asJson = process.argv.includes('--json');
  const results: { count: number; memory: MemoryOutput; write: WriteOutput; restart: RestartOutput }[] = [];
  const mb = (b: number): string => (b / 2 ** 20).toFixed(0);
  for (const count of sizes) {
    const mem = await runInChild<Input, MemoryOutput>('catalog-footprint', { step: 'memory', count }, { timeoutMs: 1_200_000 });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'aisle-footprint-'));
    try {
      const written = await runInChild<Input, WriteOutput>('catalog-footprint', { step: 'write', count, dataDir }, { timeoutMs: 1_200_000 });
      const restarted = await runInChild<Input, RestartOutput>('catalog-footprint', { step: 'restart', dataDir }, { timeoutMs: 600_000 });
      results.push({ count, memory: mem, write: written, restart: restarted });
      if (!asJson) {
        console.log(`${count.toLocaleString('en')} products: engine ${mb(mem.engineBytes)} MB retained (stored JSON ${mb(mem.storedJsonBytes)} MB, columns and index ${mb(mem.columnBytes)} MB; `
          + `the same products as objects: ${mb(mem.objectsBytes)} MB), loaded in ${(mem.buildMs / 1000).toFixed(1)} s`);
        console.log(`  snapshot ${mb(written.snapshotBytes)} MB (written at close in ${(written.closeMs / 1000).toFixed(1)} s); restart: first search answered ${(restarted.firstSearchMs / 1000).toFixed(2)} s `
          + `after the process start, ${(restarted.firstSearchCpuMs / 1000).toFixed(2)} s of CPU (engine ready at ${(restarted.engineReadyMs / 1000).toFixed(2)} s; `
          + `snapshot load alone ${(restarted.snapshotLoadMs / 1000).toFixed(2)} s, ${(restarted.snapshotLoadCpuMs / 1000).toFixed(2)} s of CPU; ${restarted.total} results)`);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (asJson) console.log(JSON.stringify(results));
}
