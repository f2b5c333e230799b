/**
 * aisle itself, through its public library API: `createEngine`, `replaceProducts`, `search`.
 * @module
 */
import { createEngine, type Engine, type EngineOptions } from '@aisle/engine';
import { DISTINCT_FIELD, type Product, type SearchOutcome, type SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';
import { BENCH_HIERARCHIES } from './columns.js';

/** The bench website: its hierarchies are those the other adapters filter and count by hand (peers/columns.ts). */
export const BENCH_WEBSITE = {
  websiteId: 'bench', client: 'bench', tokens: ['bench-token'], hmacSecret: 'bench-secret',
  settings: { hierarchies: Object.fromEntries(Object.entries(BENCH_HIERARCHIES).map(([name, field]) => [name, { field }])) },
};

/**
 * Starts an engine with one website holding `products` (used by the peers, HTTP and scaling runs), and
 * waits until it has settled (`engine.settled()`: the recommendation indexes and the search aids the
 * load set going in the background are built), as an operator waits for readiness before sending
 * traffic: what is timed next is the engine's steady speed, and the peers' build time includes the wait.
 * Searched during that work, aisle answers more slowly (docs/benchmarks.md, "Settled").
 */
export async function startAisle(products: Iterable<Product>, workers: number | undefined, extra: EngineOptions = {}): Promise<Engine> {
  const engine = await createEngine({ ...(workers === undefined ? {} : { workers }), websites: [BENCH_WEBSITE], ...extra });
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, products);
  await engine.settled();
  return engine;
}

export class AisleAdapter implements SearchAdapter {
  name: string;
  private engine?: Engine;
  private readonly workers: number | undefined;

  /** `workers` undefined: the engine's default (min(2, cores)), as a user gets it. */
  constructor(options: { workers?: number } = {}) {
    this.workers = options.workers;
    this.name = this.workers === undefined ? 'aisle' : `aisle (${this.workers} worker${this.workers === 1 ? '' : 's'})`;
  }

  async build(products: Product[]): Promise<void> {
    // Variants grouped as a shop would set them up; requests other than `distinct` ones ask for every product.
    const website = { ...BENCH_WEBSITE, settings: { ...BENCH_WEBSITE.settings, distinct: { field: DISTINCT_FIELD } } };
    this.engine = await startAisle(products, this.workers, { websites: [website] });
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    const { payload } = await this.engine!.search(request.distinct === true ? request : { ...request, distinct: false });
    return {
      total: payload.total_results,
      ids: payload.result.map((p) => p.refId),
      aggregations: payload.aggregations,
      ranges: payload.ranges,
      hierarchies: payload.hierarchical_aggregations,
      facetHits: payload.facet_hits,
      buckets: payload.range_buckets && Object.fromEntries(Object.entries(payload.range_buckets).map(([f, list]) => [f, list.map((b) => b.count)])),
    };
  }

  async close(): Promise<void> {
    await this.engine?.close();
  }
}
