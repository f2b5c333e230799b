/**
 * Another tree's engine, imported at run time from that tree's packages/engine/dist, as the A/B tools
 * use it: the calls they make on it are declared once here. Typed by hand rather than by the tree's own
 * declarations, because the other tree may be older than this one (its types are not this tree's).
 * @module
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { SearchRequest } from '../types.js';

/** The part of a search answer the tools read (its digest reads the rest as plain JSON). */
export type TreeSearchPayload = Record<string, unknown> & { total_results: number; result: { refId: string }[] };

/** The engine calls the A/B tools make on a tree's engine. */
export interface TreeEngine {
  replaceProducts(websiteId: string, products: AsyncIterable<unknown> | Iterable<unknown>): Promise<unknown>;
  upsertProducts(websiteId: string, products: Iterable<unknown>): Promise<unknown>;
  deleteProducts(websiteId: string, refIds: readonly string[]): Promise<unknown>;
  search(body: SearchRequest): Promise<{ payload: TreeSearchPayload }>;
  close(): Promise<void>;
}

/** Imports `file` of the tree at `root`'s packages/engine/dist (`index.js`, `internal.js`, a module path). */
export async function importTreeEngineModule<T>(root: string, file: string): Promise<T> {
  return await import(pathToFileURL(join(root, 'packages/engine/dist', file)).href) as T;
}

/** A new engine of the tree at `root`, holding the bench's website (and `options` beside it). */
export async function createTreeEngine(root: string, options: Record<string, unknown> = {}): Promise<TreeEngine> {
  const { createEngine } = await importTreeEngineModule<{ createEngine(o: unknown): Promise<TreeEngine> }>(root, 'index.js');
  return createEngine({ websites: [BENCH_WEBSITE], ...options });
}
