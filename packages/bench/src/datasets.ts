/**
 * Loading a dataset from its description: a generated catalog (the engine's seeded demo generator) or
 * an NDJSON file read with the engine's streaming feed reader. Each process loads its own copy.
 * @module
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalogStream } from '@aisle/engine/demo';
import { readProductFeed, SkipReport } from '@aisle/engine/internal';
import { option } from './cli-option.js';
import type { DatasetSpec, Product } from './types.js';

/** `../shared/datasets` beside the repository (from src/ and dist/ alike); `AISLE_DATASETS` overrides it. */
export const DATASETS_DIR = process.env.AISLE_DATASETS ?? fileURLToPath(new URL('../../../../shared/datasets/', import.meta.url));

/** The real catalog (read where it is, never copied into the repository). */
export const FLIPKART_PATH = path.join(DATASETS_DIR, 'flipkart-products.ndjson');

export function flipkartSpec(limit?: number): DatasetSpec | undefined {
  return existsSync(FLIPKART_PATH) ? { kind: 'file', path: FLIPKART_PATH, label: 'Flipkart 20k (real)', limit } : undefined;
}

/**
 * The catalog a bench tool's command line names: `--dataset generated` (the default; `--products N`,
 * `productsFallback` when absent, seed 1) or `--dataset flipkart` (the real catalog: bigger products).
 */
export function datasetOfOptions(productsFallback: string): DatasetSpec {
  const name = option('dataset', 'generated');
  if (name === 'generated') return { kind: 'generated', count: Number(option('products', productsFallback)), seed: 1 };
  if (name !== 'flipkart') throw new Error(`--dataset ${name}: expected generated or flipkart`);
  const spec = flipkartSpec();
  if (spec === undefined) throw new Error(`--dataset flipkart: ${FLIPKART_PATH} is absent`);
  return spec;
}

/** Yields the dataset's products, at most `limit` of them. */
export async function* datasetProducts(spec: DatasetSpec, limit = Infinity): AsyncGenerator<Product> {
  let n = 0;
  if (spec.kind === 'generated') {
    for (const p of generateCatalogStream({ count: Math.min(spec.count, limit), seed: spec.seed })) yield p;
    return;
  }
  const max = Math.min(spec.limit ?? Infinity, limit);
  for await (const p of readProductFeed(spec.path, { skipped: new SkipReport(), onError: 'skip' })) {
    if (n++ >= max) return;
    yield p;
  }
}

export async function loadDataset(spec: DatasetSpec, limit = Infinity): Promise<Product[]> {
  const out: Product[] = [];
  for await (const p of datasetProducts(spec, limit)) out.push(p);
  return out;
}
