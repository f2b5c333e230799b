/**
 * The pool's worker: runs one plan over one doc range of a catalog index whose arrays live on
 * SharedArrayBuffers (the structured clone of the task shares them; nothing is copied).
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { runPartial, type PartialResult } from './run-partial.js';
import type { SearchPlan } from './search-plan.js';

/** One task of the pool. */
export interface SearchTask {
  index: CatalogIndex;
  plan: SearchPlan;
  lo: number;
  hi: number;
}

/** Piscina entry point. */
export default function runSearchTask(task: SearchTask): PartialResult {
  return runPartial(task.index, task.plan, task.lo, task.hi);
}
