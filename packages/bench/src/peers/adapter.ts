/**
 * The interface every engine under comparison implements: build an index from products, answer the
 * documented search request. Each adapter does what a user of that library would write to serve the
 * request (its own filters, facets and sorts where it has them; by hand where it does not).
 * @module
 */
import type { Product, SearchOutcome, SearchRequest } from '../types.js';

export interface SearchAdapter {
  /** Engine name and version as shown in the report. */
  readonly name: string;
  /** Indexes the products. The adapter may keep the array (as a user keeps their documents). */
  build(products: Product[]): Promise<void> | void;
  search(request: SearchRequest): Promise<SearchOutcome> | SearchOutcome;
  close?(): Promise<void>;
  /**
   * Bytes the engine keeps outside this process's heap (a database's files), measured after the build;
   * undefined for in-process libraries, whose whole footprint is the retained memory.
   */
  storageBytes?(): Promise<number> | number;
}

/** The adapters by key (the key is what `--engines` and the child process take). */
export const ENGINE_KEYS = ['aisle', 'flexsearch', 'fts5', 'postgres', 'minisearch', 'orama', 'itemsjs', 'scan'] as const;
export type EngineKey = (typeof ENGINE_KEYS)[number];

export async function createAdapter(key: EngineKey, options: { workers?: number } = {}): Promise<SearchAdapter> {
  switch (key) {
    case 'aisle': return new (await import('./aisle.js')).AisleAdapter(options);
    case 'flexsearch': return new (await import('./flexsearch.js')).FlexSearchAdapter();
    case 'fts5': return new (await import('./sqlite-fts5.js')).SqliteFts5Adapter();
    case 'postgres': return new (await import('./postgres-fts.js')).PostgresFtsAdapter();
    case 'minisearch': return new (await import('./minisearch.js')).MiniSearchAdapter();
    case 'orama': return new (await import('./orama.js')).OramaAdapter();
    case 'itemsjs': return new (await import('./itemsjs.js')).ItemsJsAdapter();
    case 'scan': return new (await import('./scan.js')).ScanAdapter();
  }
}
