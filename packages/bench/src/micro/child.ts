/**
 * The micro-benchmarks' child process: generates the catalog, asks every micro file for its cases and
 * times them with tinybench.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { serveChild } from '../child-process.js';
import { loadDataset } from '../datasets.js';
import { makeContext, Unavailable, type MicroCase, type MicroContext } from './context.js';

/** The micro files, each named after the function it measures. */
export const MICRO_FILES = [
  'tokenize', 'and-into', 'popcount', 'run-partial', 'top-k', 'execute-search', 'execute-ranked-search', 'bounded-osa-distance',
  'load-catalog-snapshot', 'catalog-upsert', 'neighbour-table', 'recommend', 'sign-retail-media', 'validate-purchase-request', 'read-product-feed',
] as const;

export interface MicroInput { timeMs: number; products: number }
export interface MicroRow { file: string; measures: string; name: string; opsPerSecond: number; meanMs: number; medianMs: number; p99Ms: number; samples: number }
export interface MicroOutput { rows: MicroRow[]; skipped: { file: string; reason: string }[] }

async function run(input: MicroInput): Promise<MicroOutput> {
  const products = await loadDataset({ kind: 'generated', count: input.products, seed: 1 });
  const tmp = mkdtempSync(join(tmpdir(), 'aisle-micro-'));
  const ctx: MicroContext = makeContext(products, tmp);
  const out: MicroOutput = { rows: [], skipped: [] };
  try {
    for (const file of MICRO_FILES) {
      let measures: string = file;
      let cases: MicroCase[];
      try {
        const mod = (await import(`./${file}.js`)) as { measures: string; cases(ctx: MicroContext): Promise<MicroCase[]> };
        measures = mod.measures;
        cases = await mod.cases(ctx);
      } catch (err) {
        out.skipped.push({ file, reason: err instanceof Unavailable ? err.message : `setup failed: ${err instanceof Error ? err.message : String(err)}` });
        continue;
      }
      const bench = new Bench({ time: input.timeMs, warmupTime: Math.max(20, input.timeMs / 4), iterations: 5 });
      for (const c of cases) bench.add(c.name, c.fn);
      const measuredBy = new Map(cases.map((c) => [c.name, c.measures ?? measures]));
      await bench.run();
      for (const task of bench.tasks) {
        const r = task.result as { error?: Error; latency?: { mean: number; p50?: number; p99?: number; samplesCount?: number }; samples?: number[] } | undefined;
        if (!r || r.error || !r.latency) {
          out.skipped.push({ file, reason: `${task.name}: ${r?.error?.message ?? 'no result'}` });
          continue;
        }
        out.rows.push({
          file, measures: measuredBy.get(task.name) ?? measures, name: task.name,
          // Iterations per second as 1000 / mean latency (consistent with the mean column).
          opsPerSecond: 1000 / r.latency.mean,
          meanMs: r.latency.mean, medianMs: r.latency.p50 ?? NaN, p99Ms: r.latency.p99 ?? NaN,
          samples: r.latency.samplesCount ?? r.samples?.length ?? 0,
        });
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

serveChild(run);
