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
export async function startAisle(products: Iterable<Product>, workers: number | undefined, extra: Record<string, unknown> = {}): Promise<EngineLike> {
  if (!engineModuleExists('index')) throw new Error('the engine entry point (packages/engine/src/index.ts) does not exist yet');
  const { createEngine } = await importEngine<EngineModule>('index');
  const engine = await createEngine({ ...(workers === undefined ? {} : { workers }), websites: [BENCH_WEBSITE], ...extra });
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, products);
  return engine;
}

interface CatalogModule {
  Catalog: new () => { replace(source: Iterable<Product>): Promise<unknown> };
}
interface SearchModule {
  executeSearch(catalog: unknown, request: unknown, context?: { pool?: unknown }): Promise<SearchPayloadLike>;
  validateSearchRequest(body: unknown): unknown;
  SearchPool: new (options: { workers: number; threshold?: number }) => { close?(): Promise<void>; destroy?(): Promise<void> };
}

/** `Catalog` + `executeSearch` directly (what the engine does per website), for when the entry point is not ready. */
async function startCatalogSearch(products: Product[], workers: number | undefined, cause: unknown): Promise<{ search(request: SearchRequest): Promise<SearchPayloadLike>; close(): Promise<void> }> {
  if (!engineModuleExists('catalog/index') || !engineModuleExists('search/index')) throw cause;
  const { Catalog } = await importEngine<CatalogModule>('catalog/index');
  const { executeSearch, validateSearchRequest, SearchPool } = await importEngine<SearchModule>('search/index');
  const catalog = new Catalog();
  await catalog.replace(products);
  const pool = (workers ?? 2) > 0 ? new SearchPool({ workers: workers ?? 2 }) : undefined;
  return {
    search: (request) => executeSearch(catalog, validateSearchRequest(request), { pool }),
    close: async () => { await (pool?.close?.() ?? pool?.destroy?.()); },
  };
}

export class AisleAdapter implements SearchAdapter {
  name: string;
  private engine?: EngineLike;
  private fallback?: { search(request: SearchRequest): Promise<SearchPayloadLike>; close(): Promise<void> };
  private readonly workers: number | undefined;

  /** `workers` undefined: the engine's default (min(2, cores)), as a user gets it. */
  constructor(options: { workers?: number } = {}) {
    this.workers = options.workers;
    this.name = this.workers === undefined ? 'aisle' : `aisle (${this.workers} worker${this.workers === 1 ? '' : 's'})`;
  }

  async build(products: Product[]): Promise<void> {
    try {
      this.engine = await startAisle(products, this.workers);
    } catch (err) {
      // The entry point is not usable yet: measure the search path itself.
      this.fallback = await startCatalogSearch(products, this.workers, err);
      this.name = `aisle (Catalog + executeSearch, workers ${this.workers ?? 2})`;
    }
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    const payload = this.engine ? (await this.engine.search(request)).payload : await this.fallback!.search(request);
    return {
      total: payload.total_results,
      ids: payload.result.map((p) => p.refId),
      aggregations: payload.aggregations,
      ranges: payload.ranges,
    };
  }

  async close(): Promise<void> {
    await this.engine?.close();
    await this.fallback?.close();
  }
}
