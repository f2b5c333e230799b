/**
 * The built-in semantic model on the real Flipkart catalog, when present: one-word queries made of a
 * product's title word bring more products of that product's category into the top 10 with the hybrid
 * ranking than with BM25F alone, and the same result sets (the full protocol and figures:
 * packages/bench/src/search-rerank-eval.ts, docs/semantic-search.md). Deterministic: seeded sample,
 * deterministic model.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import type { Product } from '../types.js';

const DATASETS = process.env.AISLE_DATASETS ?? fileURLToPath(new URL('../../../../../shared/datasets/', import.meta.url));
const DATASET = path.join(DATASETS, 'flipkart-products.ndjson');
const CATEGORY = 'search_category_generic'; // the evaluation's label, not read by the engine

const present = existsSync(DATASET);
describe.skipIf(!present)(present ? `semantic search on ${DATASET}` : `semantic search on ${DATASET}: dataset absent, skipped`, () => {
  const engines: Record<'plain' | 'hybrid', Engine> = {} as never;
  const queries: { q: string; category: unknown }[] = [];
  beforeAll(async () => {
    const products = readFileSync(DATASET, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Product);
    for (const [name, settings] of [['plain', {}], ['hybrid', { semanticSearch: true }]] as const) {
      const engine = await createEngine({ workers: 0, websites: [{ websiteId: 'f', client: 'f', tokens: [`t-${name}`], hmacSecret: 's', settings }] });
      await engine.upsertProducts('f', products);
      await engine.semanticModel('f');
      engines[name] = engine;
    }
    // Every 97th product with a category: one of its title words (letters only, 4+ letters, not its brand).
    for (let i = 0; queries.length < 120 && i < products.length; i += 97) {
      const p = products[i];
      if (typeof p.title !== 'string' || typeof p[CATEGORY] !== 'string') continue;
      const brand = new Set(tokenize(String(p.brand ?? '')));
      const words = tokenize(p.title).filter((w) => /^[a-z]{4,}$/.test(w) && !brand.has(w));
      if (words.length > 0) queries.push({ q: words[i % words.length], category: p[CATEGORY] });
    }
  }, 120_000);
  afterAll(async () => {
    for (const e of Object.values(engines)) await e.close();
  });

  it('brings more products of the query word\'s category into the top 10, over the same result sets', async () => {
    const precision: Record<'plain' | 'hybrid', number> = { plain: 0, hybrid: 0 };
    let ranked = 0;
    for (const { q, category } of queries) {
      const answers = { plain: await engines.plain.search({ website_id: 'f', client: 'f', start: 0, size: 10, q, aggregations: ['brand'] }),
        hybrid: await engines.hybrid.search({ website_id: 'f', client: 'f', start: 0, size: 10, q, aggregations: ['brand'] }) };
      expect(answers.hybrid.payload.total_results).toBe(answers.plain.payload.total_results);
      expect(answers.hybrid.payload.aggregations).toEqual(answers.plain.payload.aggregations);
      if (answers.hybrid.settings?.ats_model) ranked++;
      for (const name of ['plain', 'hybrid'] as const) {
        precision[name] += answers[name].payload.result.filter((p) => p[CATEGORY] === category).length / 10 / queries.length;
      }
    }
    expect(queries.length).toBeGreaterThan(100);
    expect(ranked).toBeGreaterThan(queries.length / 2);
    expect(precision.hybrid).toBeGreaterThan(precision.plain);
  });
});
