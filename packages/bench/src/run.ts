/**
 * The benchmark suite's one command. Runs the peer comparisons, the micro-benchmarks, the HTTP load
 * runs and the scaling run, and writes docs/benchmarks.md (and the scaling plot beside it).
 *
 *   node packages/bench/dist/run.js [--quick] [--only peers,micro,http,scaling] [--out <file> | --write-docs]
 *   node --import tsx packages/bench/src/run.ts --quick        (the bench from its sources; the engine and
 *                                                               adapter from their build)
 *
 * A full run writes docs/benchmarks.md; a quick run writes a temporary file (its path is printed) unless
 * `--write-docs` or `--out` says otherwise. Sections of the report file written by the standalone bench
 * commands (ingestion, replicas, memory, …) are kept after this run's own (report-sections.ts).
 *
 * Full mode is sized to finish within 15 minutes on a 2-core machine; --quick in a minute or two.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLIPKART_PATH, flipkartSpec } from './datasets.js';
import { reportPath } from './report-path.js';
import { machineInfo } from './machine.js';
import type { EngineKey } from './peers/adapter.js';
import { comparePeers, STEADY_WARMUP, type CompareOptions, type PeerComparison } from './peers/compare.js';
import { machineSection, METHODOLOGY, peerSection, summarySection, type ReportContext } from './report.js';
import { withKeptSections } from './report-sections.js';
import type { PeerRunResult } from './peers/child.js';
import type { DatasetSpec } from './types.js';

const SUITES = ['peers', 'micro', 'http', 'scaling'] as const;
type Suite = (typeof SUITES)[number];

interface PeerPlan extends Omit<CompareOptions, 'log'> {}

interface Plan {
  mode: 'quick' | 'full';
  /** The whole run stops starting new steps past this (ms). */
  budgetMs: number;
  peers: PeerPlan[];
  microTimeMs: number;
  microProducts: number;
  httpDurationS: number;
  httpProducts: number;
  scalingSizes: number[];
  scalingQueries: number;
}

// The native engines (SQLite FTS5, PostgreSQL) right after FlexSearch and the scan before the slow
// libraries, so that a run short of time skips Orama and itemsjs first.
const ALL: EngineKey[] = ['aisle', 'flexsearch', 'fts5', 'postgres', 'minisearch', 'scan', 'orama', 'itemsjs'];
const FAST: EngineKey[] = ['aisle', 'flexsearch', 'fts5', 'postgres', 'minisearch', 'scan'];

function plan(quick: boolean): Plan {
  const flipkart = flipkartSpec();
  const generated = (count: number): DatasetSpec => ({ kind: 'generated', count, seed: 1 });
  if (quick) {
    const peers: PeerPlan[] = [
      { dataset: generated(10_000), engines: ALL, queries: 40, budgetMs: 2_000, warmup: 20, checkSample: 20, timeoutMs: 120_000 },
    ];
    if (flipkart) peers.push({ dataset: flipkart, engines: ALL, queries: 30, budgetMs: 2_000, warmup: 20, checkSample: 20, timeoutMs: 120_000 });
    return { mode: 'quick', budgetMs: 10 * 60_000, peers, microTimeMs: 100, microProducts: 20_000, httpDurationS: 2, httpProducts: 10_000, scalingSizes: [10_000, 50_000], scalingQueries: 30 };
  }
  // Sized for < 15 minutes on a loaded 2-core machine: every engine at 100k; at 1M the engines that
  // answer in reasonable time (Orama and itemsjs take seconds per query there, see docs/peers.md). A query
  // type stops at its time budget once its first `checkSample` queries (checked against the scan) ran.
  const peers: PeerPlan[] = [
    { dataset: generated(100_000), engines: ALL, queries: 300, budgetMs: 3_000, warmup: STEADY_WARMUP, checkSample: 10, timeoutMs: 240_000 },
    { dataset: generated(1_000_000), engines: FAST, queries: 300, budgetMs: 3_000, warmup: STEADY_WARMUP, checkSample: 5, timeoutMs: 300_000 },
  ];
  if (flipkart) peers.splice(1, 0, { dataset: flipkart, engines: ALL, queries: 300, budgetMs: 2_500, warmup: STEADY_WARMUP, checkSample: 10, timeoutMs: 120_000 });
  return { mode: 'full', budgetMs: 14 * 60_000 + 30_000, peers, microTimeMs: 300, microProducts: 100_000, httpDurationS: 6, httpProducts: 100_000, scalingSizes: [10_000, 100_000, 1_000_000], scalingQueries: 100 };
}

const USAGE = 'usage: run [--quick] [--only peers,micro,http,scaling] [--out <file> | --write-docs]\n'
  + '  full mode writes docs/benchmarks.md; --quick writes a temporary file (its path is printed) unless\n'
  + '  --write-docs (docs/benchmarks.md) or --out names the file.';

function parseArgs(argv: string[]): { quick: boolean; only: Suite[]; out: string } {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  let quick = false;
  let writeDocs = false;
  let only: Suite[] = [...SUITES];
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') quick = true;
    else if (a === '--write-docs') writeDocs = true;
    else if (a === '--only') only = argv[++i]!.split(',').map((s) => s.trim()) as Suite[];
    else if (a.startsWith('--only=')) only = a.slice(7).split(',') as Suite[];
    else if (a === '--out') out = argv[++i]!;
    else if (a.startsWith('--out=')) out = a.slice(6);
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (a === '--') continue; // a separator some script runners pass through
    else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  for (const s of only) if (!SUITES.includes(s)) throw new Error(`unknown suite ${s} (known: ${SUITES.join(', ')})`);
  if (out !== undefined && writeDocs) throw new Error(`--out and --write-docs name two different files\n${USAGE}`);
  return { quick, only, out: reportPath({ quick, writeDocs, out }, repoRoot) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const p = plan(args.quick);
  const started = Date.now();
  console.log(`writing the report to ${args.out}`);
  const ctx: ReportContext = {
    machine: machineInfo(),
    command: `node ${process.execArgv.join(' ')} ${process.argv.slice(1).map((a) => a.replace(/^.*\/packages\//, 'packages/')).join(' ')}`.replace(/\s+/g, ' ').trim(),
    mode: p.mode,
  };
  const sections: string[] = [];
  const log = (line: string): void => console.log(line);
  const remainingMs = (): number => started + p.budgetMs - Date.now();
  // aisle's peer-comparison runs on generated catalogs, reused as scaling points (the engine's default worker count).
  const aisleRuns: { size: number; workers: number; result: PeerRunResult }[] = [];
  const defaultWorkers = Math.min(2, availableParallelism());
  const comparisons: PeerComparison[] = [];
  // Sections other bench commands wrote into the report (docs/benchmarks.md) stay after this run's own.
  const previous = existsSync(args.out) ? readFileSync(args.out, 'utf8') : undefined;
  const write = (): void => {
    ctx.durationS = (Date.now() - started) / 1000;
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(args.out, withKeptSections([METHODOLOGY, machineSection(ctx), summarySection(comparisons), ...sections].join('\n'), previous));
  };

  if (args.only.includes('peers')) {
    const parts: string[] = ['## Search: aisle and its peers', ''];
    if (!flipkartSpec()) parts.push(`_The real catalog (${FLIPKART_PATH}) was absent: skipped._`, '');
    for (const peerPlan of p.peers) {
      log(`peers: ${peerPlan.dataset.kind === 'generated' ? `generated ${peerPlan.dataset.count}` : peerPlan.dataset.label}`);
      const comparison = await comparePeers({ ...peerPlan, log, remainingMs });
      comparisons.push(comparison);
      const aisle = comparison.results.find((r) => r.engine === 'aisle');
      if (aisle && peerPlan.dataset.kind === 'generated') aisleRuns.push({ size: peerPlan.dataset.count, workers: defaultWorkers, result: aisle });
      parts.push(peerSection(comparison));
      sections.splice(0, sections.length, parts.join('\n'));
      write();
    }
  }
  const optional: [Suite, string, (plan: Plan, log: (l: string) => void, outDir: string) => Promise<string>][] = [
    ['micro', './micro/index.js', async (pl, lg) => (await import('./micro/index.js')).runMicroSuite({ timeMs: pl.microTimeMs, products: pl.microProducts, log: lg })],
    ['http', './http/index.js', async (pl, lg) => (await import('./http/index.js')).runHttpSuite({ durationS: pl.httpDurationS, products: pl.httpProducts, log: lg })],
    ['scaling', './scaling.js', async (pl, lg, dir) => (await import('./scaling.js')).runScaling({ sizes: pl.scalingSizes, queries: pl.scalingQueries, log: lg, outDir: dir, quick: pl.mode === 'quick', reuse: aisleRuns, remainingMs })],
  ];
  for (const [suite, , runSuite] of optional) {
    if (!args.only.includes(suite)) continue;
    if (remainingMs() < (suite === 'micro' ? 60_000 : 90_000)) {
      sections.push(`## ${suite}\n\n_Skipped: the run's time budget was used up (run it alone with \`--only ${suite} --out <file>\`)._\n`);
      log(`${suite}: skipped (time budget)`);
      continue;
    }
    log(`${suite}:`);
    try {
      sections.push(await runSuite(p, log, dirname(args.out)));
    } catch (err) {
      sections.push(`## ${suite}\n\n_Failed: ${err instanceof Error ? err.message : String(err)}_\n`);
      log(`  ${suite} failed: ${err instanceof Error ? err.stack : String(err)}`);
    }
    write();
  }
  write();
  log(`wrote ${args.out} in ${Math.round((Date.now() - started) / 1000)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
