/**
 * A worker-thread pool (piscina) for searches over large catalogs: the doc ids are split into one
 * range per worker (multiples of 32, so bitset words never straddle two ranges), each worker runs the
 * plan over its range reading the catalog's SharedArrayBuffers, and the calling thread merges.
 * @module
 */
import { Piscina } from 'piscina';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { PartialResult } from './run-partial.js';
import type { SearchPlan } from './search-plan.js';
import { workerFile } from '../util/worker-file.js';
import type { SearchTask, SearchTaskResult } from './search-worker.js';

/**
 * Catalog size from which searches fan out over the pool by default (measured: see
 * docs/architecture-search.md; below it, the task round trip costs more than the work saved).
 */
export const DEFAULT_POOL_THRESHOLD = 1_500_000;

/** Options of a {@link SearchPool}. */
export interface SearchPoolOptions {
  /** Worker threads (at least 1). */
  workers: number;
  /** Catalogs with at least this many products use the pool (default {@link DEFAULT_POOL_THRESHOLD}). */
  threshold?: number;
}

/**
 * The doc ranges `[lo, hi)` of a catalog of `docCount` docs, one per worker (fewer for a small
 * catalog), each starting on a multiple of 32 (bitset words never straddle two ranges). A worker
 * matches its range only, and keeps what it derives for it (term-blocks.ts, term-docs.ts).
 */
export function poolRanges(docCount: number, workers: number): [lo: number, hi: number][] {
  const step = Math.max(32, Math.ceil(docCount / workers / 32) * 32);
  const ranges: [number, number][] = [];
  for (let lo = 0; lo < docCount; lo += step) ranges.push([lo, Math.min(docCount, lo + step)]);
  return ranges;
}

/**
 * Node flags that make the pool's workers load their entry by `import()` only. Piscina's worker first
 * tries `require(filename)`; where Node loads ES modules that way (require(esm), on by default since
 * Node 20.19), a worker terminated in the middle of it — an engine closed while its pool still starts,
 * as a short script does — aborts the whole process (`FATAL ERROR: v8::Module::IsGraphAsync …`, about
 * one run in ten of the README's example). Without require(esm) the `require` fails at once and piscina
 * falls back to `import()`, which a termination interrupts cleanly. Empty where Node has no such flag.
 */
const IMPORT_ONLY: readonly string[] = process.features.require_module === true
  && process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module') ? ['--no-experimental-require-module'] : [];

/** A pool of search workers shared by all catalogs of a process. */
export class SearchPool {
  /** Catalog size from which searches run on the pool. */
  readonly threshold: number;
  private readonly workers: number;
  private readonly piscina: Piscina;

  constructor(options: SearchPoolOptions) {
    this.workers = Math.max(1, Math.floor(options.workers));
    this.threshold = options.threshold ?? DEFAULT_POOL_THRESHOLD;
    // Built code has search-worker.js beside this file; from sources the worker loads the .ts with tsx.
    const { url, execArgv } = workerFile(import.meta.url, './search-worker');
    this.piscina = new Piscina({ filename: url.href, execArgv: [...execArgv, ...IMPORT_ONLY], minThreads: this.workers, maxThreads: this.workers });
  }

  // How many tasks carried each index (by `catalogId:version`): after a few per worker, tasks go
  // without it and a worker that still lacks it asks (see search-worker.ts).
  private readonly sent = new Map<string, number>();

  /** Runs `plan` over the whole index, one doc range per worker; partial results in range order. */
  async runPartials(index: CatalogIndex, plan: SearchPlan): Promise<PartialResult[]> {
    const n = index.docCount;
    const key = `${index.catalogId}:${index.version}`;
    const sortRanks = plan.sort.filter((k) => k.type === 'text').map((k) => ({ field: k.field, ranks: index.fields[k.field].text!.sortRank! }));
    const orders = [...new Set([...plan.rangeFields, ...plan.sort.map((k) => k.field)])]
      .filter((f) => f >= 0 && index.fields[f].order).map((f) => ({ field: f, order: index.fields[f].order! }));
    const tasks: Promise<PartialResult>[] = [];
    for (const [lo, hi] of poolRanges(n, this.workers)) {
      const sent = this.sent.get(key) ?? 0;
      if (sent === 0) {
        if (this.sent.size >= 64) this.sent.delete(this.sent.keys().next().value!);
        this.sent.set(key, 0);
      }
      const withIndex = sent < 2 * this.workers;
      if (withIndex) this.sent.set(key, sent + 1);
      tasks.push(this.run({ key, index: withIndex ? index : undefined, sortRanks, orders, plan, lo, hi }, index));
    }
    return Promise.all(tasks);
  }

  private async run(task: SearchTask, index: CatalogIndex): Promise<PartialResult> {
    const result = (await this.piscina.run(task)) as SearchTaskResult;
    if ('partial' in result) return result.partial;
    const retry = (await this.piscina.run({ ...task, index })) as SearchTaskResult;
    if ('partial' in retry) return retry.partial;
    throw new Error('search worker did not take the catalog index');
  }

  /** Stops the workers (pending searches finish first). */
  async close(): Promise<void> {
    await this.piscina.close();
  }
}
