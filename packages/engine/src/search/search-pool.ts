/**
 * A worker-thread pool (piscina) for searches over large catalogs: the doc ids are split into one
 * range per worker (multiples of 32, so bitset words never straddle two ranges), each worker runs the
 * plan over its range reading the catalog's SharedArrayBuffers, and the calling thread merges.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { PartialResult } from './run-partial.js';
import type { SearchPlan } from './search-plan.js';
import type { SearchTask } from './search-worker.js';

/**
 * Catalog size from which searches fan out over the pool by default (measured: see
 * docs/architecture-search.md; below it, the task round trip costs more than the work saved).
 */
export const DEFAULT_POOL_THRESHOLD = 50_000;

// Built code has search-worker.js beside this file; under vitest/tsx only the .ts source exists,
// and the worker then needs tsx to load it.
function workerFile(): { filename: string; execArgv: string[] } {
  const built = new URL('./search-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return { filename: built.href, execArgv: [] };
  return { filename: new URL('./search-worker.ts', import.meta.url).href, execArgv: ['--import', 'tsx'] };
}

/** Options of a {@link SearchPool}. */
export interface SearchPoolOptions {
  /** Worker threads (at least 1). */
  workers: number;
  /** Catalogs with at least this many products use the pool (default {@link DEFAULT_POOL_THRESHOLD}). */
  threshold?: number;
}

/** A pool of search workers shared by all catalogs of a process. */
export class SearchPool {
  /** Catalog size from which searches run on the pool. */
  readonly threshold: number;
  private readonly workers: number;
  private readonly piscina: Piscina;

  constructor(options: SearchPoolOptions) {
    this.workers = Math.max(1, Math.floor(options.workers));
    this.threshold = options.threshold ?? DEFAULT_POOL_THRESHOLD;
    const { filename, execArgv } = workerFile();
    this.piscina = new Piscina({ filename, execArgv, minThreads: this.workers, maxThreads: this.workers });
  }

  /** Runs `plan` over the whole index, one doc range per worker; partial results in range order. */
  async runPartials(index: CatalogIndex, plan: SearchPlan): Promise<PartialResult[]> {
    const n = index.docCount;
    const step = Math.max(32, Math.ceil(n / this.workers / 32) * 32);
    const tasks: Promise<PartialResult>[] = [];
    for (let lo = 0; lo < n; lo += step) {
      const task: SearchTask = { index, plan, lo, hi: Math.min(n, lo + step) };
      tasks.push(this.piscina.run(task) as Promise<PartialResult>);
    }
    return Promise.all(tasks);
  }

  /** Stops the workers (pending searches finish first). */
  async close(): Promise<void> {
    await this.piscina.close();
  }
}
