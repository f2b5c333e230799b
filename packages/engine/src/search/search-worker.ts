/**
 * The pool's worker: runs one plan over one doc range of a catalog index whose arrays live on
 * SharedArrayBuffers. The index is cached per catalog version (`catalogId:version`), so most tasks
 * carry only the plan: cloning an index costs ~0.4 ms per task (measured, 19 fields), the plan almost
 * nothing. A task without an index the worker has not cached asks for it (`needIndex`).
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { runPartial, type PartialResult } from './run-partial.js';
import type { SearchPlan } from './search-plan.js';

/** One task of the pool. */
export interface SearchTask {
  /** `catalogId:version` of the index. */
  key: string;
  /** The index, when the sender is not sure this worker has it cached. */
  index?: CatalogIndex;
  /** Text sort ranks derived after the index was first sent (field number → ranks). */
  sortRanks: { field: number; ranks: Uint32Array }[];
  /** Numeric orders derived after the index was first sent (field number → order). */
  orders?: { field: number; order: Uint32Array }[];
  plan: SearchPlan;
  lo: number;
  hi: number;
}

/** A task's answer: the partial result, or a request to resend with the index. */
export type SearchTaskResult = { partial: PartialResult } | { needIndex: true };

// One index per catalog (its newest version seen), at most this many catalogs: an old version's
// buffers must not stay pinned in every worker after a replace (a 1M catalog holds ~375 MB).
const CACHE_LIMIT = 32;
const cache = new Map<string, CatalogIndex>();

function remember(key: string, index: CatalogIndex): void {
  for (const [k, cached] of cache) if (cached.catalogId === index.catalogId) cache.delete(k);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, index);
}

/** Piscina entry point. */
export default function runSearchTask(task: SearchTask): SearchTaskResult {
  let index = cache.get(task.key);
  if (task.index) {
    index = task.index;
    remember(task.key, index);
  }
  if (!index) return { needIndex: true };
  for (const { field, ranks } of task.sortRanks) {
    const column = index.fields[field].text;
    if (column && !column.sortRank) column.sortRank = ranks;
  }
  for (const { field, order } of task.orders ?? []) if (!index.fields[field].order) index.fields[field].order = order;
  return { partial: runPartial(index, task.plan, task.lo, task.hi) };
}
