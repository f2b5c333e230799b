/**
 * Memory of a built catalog: what a 1M-product catalog retains right after `Catalog.replace` (heap,
 * array buffers and growable shared buffers, each beyond a baseline taken before the products were
 * generated), the same after loading its snapshot in a fresh process (the restart path), and the
 * typed arrays of the version grouped by what they hold.
 *
 *   node packages/bench/dist/column-memory.js [sizes, e.g. 100000,1000000] [--snapshot] [--json]
 *
 * Figures are recorded in docs/benchmarks.md ("Column widths", "Memory at 1M"). MB here are 10^6 bytes.
 * @module
 */
import { generateCatalogStream } from '@aisle/engine/demo';
import { Catalog, loadCatalogSnapshot, saveCatalogSnapshot } from '@aisle/engine/internal';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { retainedMemory, runInChild, serveChild, type RetainedMemory } from './child-process.js';
import type { Product } from './types.js';

interface Input { count: number; snapshotPath?: string; loadOnly?: boolean }
type Retained = RetainedMemory;
interface Output {
  count: number;
  /** Bytes of typed arrays per group (see {@link groupsOf}). */
  groups: Record<string, number>;
  typedBytes: number;
  /** Retained beyond the baseline: the catalog (columns, dictionaries, maps, product store). */
  retained: Retained;
  /** Wall time of `Catalog.replace`, or of the snapshot load. */
  seconds: number;
}

const TEXT_ARRAYS = ['single', 'offsets', 'codes', 'valueOffsets', 'valueDocs', 'sortRank'] as const;

/** The report group of a text column's array. */
function textGroupOf(array: (typeof TEXT_ARRAYS)[number]): string {
  if (array === 'single') return 'text codes, single-valued';
  if (array === 'offsets' || array === 'codes') return 'text codes, multi-valued';
  if (array === 'sortRank') return 'text sort ranks';
  return 'text inverted columns';
}

function minus(a: Retained, b: Retained): Retained {
  return { heap: a.heap - b.heap, arrayBuffers: a.arrayBuffers - b.arrayBuffers, growable: a.growable - b.growable, total: a.total - b.total };
}

/** Bytes of the version's typed arrays by what they hold (a view counts its length, not its buffer). */
function groupsOf(catalog: Catalog): Record<string, number> {
  const groups: Record<string, number> = {};
  const add = (group: string, array: { byteLength: number } | undefined): void => {
    if (array) groups[group] = (groups[group] ?? 0) + array.byteLength;
  };
  const { index, termMasks, vectors, store } = catalog.state;
  for (const field of index.fields) {
    const text = field.text as Partial<Record<(typeof TEXT_ARRAYS)[number], { byteLength: number }>> | undefined;
    if (text) for (const name of TEXT_ARRAYS) add(textGroupOf(name), text[name]);
    // Numbers per code, and per doc only where a column cannot read them through its text codes.
    add('numeric columns', field.numeric?.byCode);
    add('numeric columns', field.numeric?.docCodes);
    add('numeric orders', field.order);
  }
  const ft = index.fullText;
  for (const [name, array] of Object.entries(ft)) {
    if (name === 'fieldLengths') add('full text field lengths', array as { byteLength: number });
    else if (ArrayBuffer.isView(array)) add('full text postings', array);
  }
  add('full text postings', termMasks);
  for (const array of Object.values(vectors ?? {})) if (ArrayBuffer.isView(array)) add('image vectors', array);
  const parts = store.parts();
  for (const array of [parts.shapeOf, parts.rawDocs, parts.rawOffsets, parts.rawBytes]) add('product store', array);
  add('tombstones and order', index.deleted);
  add('tombstones and order', index.ordinal);
  return groups;
}

async function measure({ count, snapshotPath, loadOnly }: Input): Promise<Output> {
  const base = await retainedMemory();
  let catalog: Catalog;
  let started: number;
  if (loadOnly) {
    started = performance.now();
    catalog = await loadCatalogSnapshot(snapshotPath!);
  } else {
    let products: Product[] = [...generateCatalogStream({ count, seed: 1 })];
    catalog = new Catalog();
    started = performance.now();
    await catalog.replace(products);
    products = [];
  }
  const seconds = (performance.now() - started) / 1000;
  const retained = minus(await retainedMemory(), base);
  // Before the snapshot: its write derives every numeric order, which a fresh version does not hold.
  const groups = groupsOf(catalog);
  if (snapshotPath && !loadOnly) await saveCatalogSnapshot(catalog, snapshotPath);
  const typedBytes = Object.values(groups).reduce((a, b) => a + b, 0);
  return { count, groups, typedBytes, retained, seconds };
}

if (process.send) serveChild(measure);
else {
  const sizes = (process.argv.slice(2).find((a) => /^[\d,]+$/.test(a)) ?? '1000000').split(',').map(Number);
  const asJson = process.argv.includes('--json');
  const withSnapshot = process.argv.includes('--snapshot');
  const results: Array<Output & { afterLoad?: Output }> = [];
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const line = (r: Retained) => `${mb(r.total)} MB (heap ${mb(r.heap)}, array buffers ${mb(r.arrayBuffers)}, growable ${mb(r.growable)})`;
  const dir = withSnapshot ? await mkdtemp(join(tmpdir(), 'aisle-memory-')) : undefined;
  try {
    for (const count of sizes) {
      const snapshotPath = dir ? join(dir, `${count}.aislesnap`) : undefined;
      const r: Output & { afterLoad?: Output } = await runInChild<Input, Output>('column-memory', { count, snapshotPath }, { timeoutMs: 1_800_000 });
      if (snapshotPath) r.afterLoad = await runInChild<Input, Output>('column-memory', { count, snapshotPath, loadOnly: true }, { timeoutMs: 900_000 });
      results.push(r);
      if (!asJson) {
        console.log(`${count.toLocaleString('en')} products: replace ${r.seconds.toFixed(1)} s, retained after it ${line(r.retained)}; typed arrays ${mb(r.typedBytes)} MB`);
        for (const [group, bytes] of Object.entries(r.groups).sort((a, b) => b[1] - a[1])) console.log(`  ${group.padEnd(28)} ${mb(bytes).padStart(7)} MB`);
        if (r.afterLoad) console.log(`  its snapshot loaded in ${r.afterLoad.seconds.toFixed(1)} s, retained after it ${line(r.afterLoad.retained)}; typed arrays ${mb(r.afterLoad.typedBytes)} MB`);
      }
    }
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
  if (asJson) console.log(JSON.stringify(results));
}
