/**
 * Memory of a built catalog's columns: the typed arrays of one catalog version of generated products,
 * grouped by what they hold, and the memory the catalog retains beyond the product objects (which it
 * keeps as given: they exist before the catalog is built), each size in a fresh process.
 *
 *   node packages/bench/dist/column-memory.js [sizes, e.g. 100000,1000000] [--json]
 *
 * Figures are recorded in docs/benchmarks.md ("Column widths"). MB here are 10^6 bytes.
 * @module
 */
import { generateCatalogStream } from '@aisle/engine/demo';
import { Catalog } from '@aisle/engine/internal';
import { runInChild, serveChild, retainedBytes } from './child-process.js';
import type { Product } from './types.js';

interface Input { count: number }
interface Output {
  count: number;
  /** Bytes of typed arrays per group (see {@link groupOf}). */
  groups: Record<string, number>;
  typedBytes: number;
  /** Heap + array buffers the catalog retains beyond the product objects (columns, dictionaries, maps). */
  retainedBytes: number;
}

const TEXT_ARRAYS = ['single', 'offsets', 'codes', 'valueOffsets', 'valueDocs', 'sortRank'] as const;

/** The report group of a text column's array. */
function groupOf(array: (typeof TEXT_ARRAYS)[number]): string {
  if (array === 'single') return 'text codes, single-valued';
  if (array === 'offsets' || array === 'codes') return 'text codes, multi-valued';
  if (array === 'sortRank') return 'text sort ranks';
  return 'text inverted columns';
}

async function measure({ count }: Input): Promise<Output> {
  let products: Product[] = [...generateCatalogStream({ count, seed: 1 })];
  const base = await retainedBytes();
  const catalog = new Catalog();
  await catalog.replace(products);
  products = [];
  const retained = (await retainedBytes()) - base;
  const groups: Record<string, number> = {};
  const add = (group: string, array: { byteLength: number } | undefined): void => {
    if (array) groups[group] = (groups[group] ?? 0) + array.byteLength;
  };
  const { index, termMasks, vectors } = catalog.state;
  for (const field of index.fields) {
    const text = field.text as Partial<Record<(typeof TEXT_ARRAYS)[number], { byteLength: number }>> | undefined;
    if (text) for (const name of TEXT_ARRAYS) add(groupOf(name), text[name]);
    add('numeric columns', field.numeric);
    add('numeric orders', field.order);
  }
  const ft = index.fullText;
  for (const array of [ft.termOffsets, ft.postDocs, ft.postFields, ft.postNorm, ft.termDocFreq, termMasks]) add('full text postings', array);
  add('full text field lengths', ft.fieldLengths);
  add('image vectors', vectors?.data);
  add('image vectors', vectors?.present);
  const typedBytes = Object.values(groups).reduce((a, b) => a + b, 0);
  return { count, groups, typedBytes, retainedBytes: retained };
}

if (process.send) serveChild(measure);
else {
  const sizes = (process.argv.slice(2).find((a) => /^[\d,]+$/.test(a)) ?? '1000000').split(',').map(Number);
  const asJson = process.argv.includes('--json');
  const results: Output[] = [];
  const mb = (b: number) => (b / 1e6).toFixed(1);
  for (const count of sizes) {
    const r = await runInChild<Input, Output>('column-memory', { count }, { timeoutMs: 900_000 });
    results.push(r);
    if (!asJson) {
      console.log(`${count.toLocaleString('en')} products: typed arrays ${mb(r.typedBytes)} MB, catalog retained beyond the products ${mb(r.retainedBytes)} MB`);
      for (const [group, bytes] of Object.entries(r.groups).sort((a, b) => b[1] - a[1])) console.log(`  ${group.padEnd(28)} ${mb(bytes).padStart(7)} MB`);
    }
  }
  if (asJson) console.log(JSON.stringify(results));
}
