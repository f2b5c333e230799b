/**
 * Memory of the products' stored JSON: the catalog's array of product objects against
 * `catalog/columns/stored-json.ts` (UTF-8 texts in one buffer with offsets, decoded only for the returned
 * page), at 100k and 1M generated products, each size in a fresh process.
 *
 * Per size: retained bytes (heap used + array buffers after a full GC) of the products as objects
 * (parsed from their JSON, as a feed load makes them), of the same products as stored JSON, the time
 * to encode them, and the time to decode a page of 20 products at random positions (median of 2,000).
 *
 *   node packages/bench/dist/stored-json-memory.js [sizes, e.g. 100000,1000000] [--json]
 *
 * Figures are recorded in docs/benchmarks.md ("Stored JSON").
 * @module
 */
import { generateCatalogStream } from '@aisle/engine/demo';
import { StoredJson } from '@aisle/engine/internal';
import { runInChild, serveChild, retainedBytes } from './child-process.js';
import type { Product } from './types.js';

interface Input { count: number }
interface Output {
  count: number;
  objectsBytes: number;
  storedBytes: number;
  storedByteLength: number;
  encodeMs: number;
  pageOf20Us: number;
}

async function measure({ count }: Input): Promise<Output> {
  const base = await retainedBytes();
  // As a feed load makes them: each product parsed from its own JSON text.
  let products: Product[] | undefined = [];
  for (const p of generateCatalogStream({ count, seed: 1 })) products.push(JSON.parse(JSON.stringify(p)) as Product);
  const objectsBytes = (await retainedBytes()) - base;
  const t0 = performance.now();
  const stored = StoredJson.from(products);
  const encodeMs = performance.now() - t0;
  products = undefined;
  const storedBytes = (await retainedBytes()) - base;
  const docs = new Uint32Array(20);
  let seed = 7;
  const samples: number[] = [];
  for (let i = 0; i < 2000; i++) {
    for (let k = 0; k < docs.length; k++) { seed = (seed * 1103515245 + 12345) >>> 0; docs[k] = seed % count; }
    const t = performance.now();
    stored.page(docs);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { count, objectsBytes, storedBytes, storedByteLength: stored.byteLength, encodeMs, pageOf20Us: samples[samples.length >> 1]! * 1000 };
}

if (process.send) serveChild(measure);
else {
  const sizes = (process.argv.slice(2).find((a) => /^[\d,]+$/.test(a)) ?? '100000,1000000').split(',').map(Number);
  const asJson = process.argv.includes('--json');
  const results: Output[] = [];
  for (const count of sizes) {
    const r = await runInChild<Input, Output>('stored-json-memory', { count }, { timeoutMs: 600_000 });
    results.push(r);
    const mb = (b: number) => (b / 2 ** 20).toFixed(0);
    if (!asJson) {
      console.log(`${count.toLocaleString('en')} products: objects ${mb(r.objectsBytes)} MB, stored JSON ${mb(r.storedBytes)} MB (${mb(r.storedByteLength)} MB of text + offsets; ${(r.objectsBytes / r.storedBytes).toFixed(1)}× less), `
        + `encoded in ${r.encodeMs.toFixed(0)} ms, a page of 20 decoded in ${r.pageOf20Us.toFixed(0)} µs (median)`);
    }
  }
  if (asJson) console.log(JSON.stringify(results));
}
