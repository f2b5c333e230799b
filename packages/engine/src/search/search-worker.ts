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
  plan: SearchPlan;
  lo: number;
  hi: number;
}

/** A task's answer: the partial result, or a request to resend with the index. */
export type SearchTaskResult = { partial: PartialResult } | { needIndex: true };

const CACHE_LIMIT = 16;
const cache = new Map<string, CatalogIndex>();

/** Piscina entry point. */
export default function runSearchTask(task: SearchTask): SearchTaskResult {
  let index = cache.get(task.key);
  if (task.index) {
    index = task.index;
    cache.delete(task.key);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(task.key, index);
  }
  if (!index) return { needIndex: true };
  for (const { field, ranks } of task.sortRanks) {
    const column = index.fields[field].text;
    if (column && !column.sortRank) column.sortRank = ranks;
  }
  return { partial: runPartial(index, task.plan, task.lo, task.hi) };
}
