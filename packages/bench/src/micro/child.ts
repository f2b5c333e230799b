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
import { makeContext, type MicroCase, type MicroContext } from './context.js';
import * as tokenize from './tokenize.js';
import * as andInto from './and-into.js';
import * as popcount from './popcount.js';
import * as runPartial from './run-partial.js';
import * as topK from './top-k.js';
import * as executeSearch from './execute-search.js';
import * as executeRankedSearch from './execute-ranked-search.js';
import * as boundedOsaDistance from './bounded-osa-distance.js';
import * as loadCatalogSnapshot from './load-catalog-snapshot.js';
import * as catalogUpsert from './catalog-upsert.js';
import * as neighbourTable from './neighbour-table.js';
import * as recommend from './recommend.js';
import * as queryDecoder from './query-decoder.js';
import * as lessRedundant from './less-redundant.js';
import * as signRetailMedia from './sign-retail-media.js';
import * as validatePurchaseRequest from './validate-purchase-request.js';
import * as resultPagesRecord from './result-pages-record.js';
import * as readProductFeed from './read-product-feed.js';
import * as previewSettings from './preview-settings.js';
import * as searchExperiment from './search-experiment.js';

/** What a micro file exports: the function it measures and its cases. */
interface MicroFile { measures: string; cases(ctx: MicroContext): Promise<MicroCase[]> }

/** The micro files, each named after the function it measures, imported statically (in report order). */
export const MICRO_FILES: Record<string, MicroFile> = {
  'tokenize': tokenize,
  'and-into': andInto,
  'popcount': popcount,
  'run-partial': runPartial,
  'top-k': topK,
  'execute-search': executeSearch,
  'execute-ranked-search': executeRankedSearch,
  'bounded-osa-distance': boundedOsaDistance,
  'load-catalog-snapshot': loadCatalogSnapshot,
  'catalog-upsert': catalogUpsert,
  'neighbour-table': neighbourTable,
  'recommend': recommend,
  'query-decoder': queryDecoder,
  'less-redundant': lessRedundant,
  'sign-retail-media': signRetailMedia,
  'validate-purchase-request': validatePurchaseRequest,
  'result-pages-record': resultPagesRecord,
  'read-product-feed': readProductFeed,
  'preview-settings': previewSettings,
  'search-experiment': searchExperiment,
};

export interface MicroInput { timeMs: number; products: number }
export interface MicroRow { file: string; measures: string; name: string; opsPerSecond: number; meanMs: number; medianMs: number; p99Ms: number; samples: number }
export interface MicroOutput { rows: MicroRow[]; skipped: { file: string; reason: string }[] }

async function run(input: MicroInput): Promise<MicroOutput> {
  const products = await loadDataset({ kind: 'generated', count: input.products, seed: 1 });
  const tmp = mkdtempSync(join(tmpdir(), 'aisle-micro-'));
  const ctx: MicroContext = makeContext(products, tmp);
  const out: MicroOutput = { rows: [], skipped: [] };
  try {
    for (const [file, mod] of Object.entries(MICRO_FILES)) {
      const measures = mod.measures;
      let cases: MicroCase[];
      try {
        cases = await mod.cases(ctx);
      } catch (err) {
        out.skipped.push({ file, reason: `setup failed: ${err instanceof Error ? err.message : String(err)}` });
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
