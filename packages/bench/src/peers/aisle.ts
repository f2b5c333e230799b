/**
 * aisle itself, through its public library API: `createEngine`, `replaceProducts`, `search`. Until the
 * engine entry point works, it falls back to the catalog and search modules directly
 * (`Catalog` + `executeSearch`).
 * @module
 */
import { engineModuleExists, importEngine } from '../engine-module.js';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';

interface EngineLike {
  replaceProducts(websiteId: string, products: Iterable<Product>): Promise<unknown>;
  search(body: unknown): Promise<{ payload: SearchPayloadLike }>;
  close(): Promise<void>;
}
interface SearchPayloadLike {
  result: Product[];
  total_results: number;
  aggregations?: SearchOutcome['aggregations'];
  ranges?: SearchOutcome['ranges'];
}
interface EngineModule {
  createEngine(options: Record<string, unknown>): Promise<EngineLike>;
}

export const BENCH_WEBSITE = { websiteId: 'bench', client: 'bench', tokens: ['bench-token'], hmacSecret: 'bench-secret' };

/** Starts an engine with one website holding `products` (used by the peers, HTTP and scaling runs). */
export async function startAisle(products: Iterable<Product>, workers: number, extra: Record<string, unknown> = {}): Promise<EngineLike> {
  if (!engineModuleExists('index')) throw new Error('the engine entry point (packages/engine/src/index.ts) does not exist yet');
  const { createEngine } = await importEngine<EngineModule>('index');
  const engine = await createEngine({ workers, websites: [BENCH_WEBSITE], ...extra });
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, products);
  return engine;
}

export class AisleAdapter implements SearchAdapter {
  readonly name: string;
  private engine?: EngineLike;
  private readonly workers: number;

  constructor(options: { workers?: number } = {}) {
    this.workers = options.workers ?? 0;
    this.name = `aisle (workers ${this.workers})`;
  }

  async build(products: Product[]): Promise<void> {
    this.engine = await startAisle(products, this.workers);
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    const { payload } = await this.engine!.search(request);
    return {
      total: payload.total_results,
      ids: payload.result.map((p) => p.refId),
      aggregations: payload.aggregations,
      ranges: payload.ranges,
    };
  }

  async close(): Promise<void> {
    await this.engine?.close();
  }
}
