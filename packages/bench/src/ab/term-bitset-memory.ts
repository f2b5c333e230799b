/**
 * Memory of the term doc bitsets (engine search/term-docs.ts) per thread, when every term having one is
 * looked up: on the thread matching the whole catalog, and on each pool worker matching its range
 * (`poolRanges`, search-pool.ts). Counted from the built index of the generated catalog (the bitsets a
 * worker derives are those of its range's entries); prints per range the terms with a bitset, their
 * bytes, and the bytes of the doc ids they stand for.
 *
 * Run: `node packages/bench/dist/ab/term-bitset-memory.js [--products 2000000] [--workers 2]`
 * @module
 */
import type { Catalog as CatalogType, poolRanges as PoolRangesType, termDocBits as TermDocBitsType } from '@aisle/engine/internal';
import { option } from '../cli-option.js';
import { loadDataset } from '../datasets.js';

const products = Number(option('products', '2000000'));
const workers = Number(option('workers', '2'));

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;

async function main(): Promise<void> {
  const internal = await import('@aisle/engine/internal') as {
    Catalog: typeof CatalogType; poolRanges: typeof PoolRangesType; termDocBits: typeof TermDocBitsType;
  };
  const catalog = new internal.Catalog();
  await catalog.upsert(await loadDataset({ kind: 'generated', count: products, seed: 1 }));
  const { fullText, docCount } = catalog.state.index;
  const { termOffsets } = fullText;
  console.log(`${docCount.toLocaleString('en-US')} generated products, ${fullText.termCount.toLocaleString('en-US')} terms`);
  for (const [lo, hi] of [[0, docCount] as [number, number], ...internal.poolRanges(docCount, workers)]) {
    let terms = 0;
    let bytes = 0;
    let idBytes = 0;
    for (let id = 0; id < fullText.termCount; id++) {
      const bits = internal.termDocBits(fullText, id, lo, hi);
      if (bits === undefined) continue;
      terms++;
      bytes += bits.byteLength;
      idBytes += 4 * (termOffsets[id + 1]! - termOffsets[id]!);
    }
    console.log(`docs [${lo}, ${hi}): ${terms} terms with a bitset, ${mb(bytes)} (their terms' doc ids, whole catalog: ${mb(idBytes)})`);
  }
}

await main();
