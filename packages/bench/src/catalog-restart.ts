/**
 * How soon does a restarted engine serve? Two fresh processes on one data directory (embedded SQLite
 * store, one website): the first loads N generated products (default 100 000) and some shopper history,
 * writes the catalog snapshot and closes; then, `--starts` times (default 3), a new process starts an
 * engine on that directory and records, from its own start (`performance.timeOrigin`):
 * - modules loaded (node, tsx when run from sources, the engine's imports);
 * - `createEngine` resolved;
 * - the first text search (with facets) and the first facet browse answered;
 * - `readiness()` ready (the recommendation indexes built);
 * with the engine's own breakdown of its start (its `info` log lines: reading the snapshot, decoding it,
 * the derived lookups, the store, the event replay, …), the process's CPU time and RSS.
 *
 *   node --import tsx packages/bench/src/catalog-restart.ts [products] [--sessions=N] [--starts=N] [--cpu-prof] [--data-dir=DIR] [--full-replay] [--json]
 *
 * A start loads the recommendation models' checkpoint written by the previous process and replays the
 * events stored after it; `--full-replay` deletes the checkpoint before each start, so every stored
 * event is replayed (as before checkpoints existed). A session holds ~4 views: `--sessions=500000`
 * stores ~2M views.
 *
 * `--data-dir=DIR` keeps the data directory: written there when it holds no snapshot yet, reused as it
 * is otherwise (so starts can be measured again without loading the catalog again).
 * `--cpu-prof` profiles the first start (node's `--cpu-prof`) and prints the functions that took the
 * most time in it. Figures are recorded in docs/benchmarks.md ("Restart").
 * @module
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInChild } from './child-process.js';
import type { RestartChildInput, StartResult, WriteResult } from './catalog-restart-child.js';
import { summarizeCpuProfile, type CpuProfile } from './cpu-profile-summary.js';
import { machineInfo } from './machine.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const sessions = Number(option('sessions') ?? 20_000);
const starts = Math.max(1, Number(option('starts') ?? 3));
const profile = args.includes('--cpu-prof');
const fullReplay = args.includes('--full-replay');
const asJson = args.includes('--json');
const log = (line: string) => { if (!asJson) console.log(line); };

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (xs: number[]) => { const sorted = xs.slice().sort((a, b) => a - b); return sorted[Math.floor((sorted.length - 1) / 2)]!; };
// Minutes per million products, at least 5.
const timeoutMs = Math.max(5, Math.ceil(count / 1e6) * 15) * 60_000;

const machine = machineInfo();
log(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverage}, node ${machine.node}`);
const keptDir = option('data-dir');
const dataDir = keptDir ? path.resolve(keptDir) : mkdtempSync(path.join(tmpdir(), 'aisle-restart-'));
const profileDir = mkdtempSync(path.join(tmpdir(), 'aisle-restart-prof-'));
try {
  const snapshotFile = path.join(dataDir, 'catalogs', 'shop.aislesnap');
  const written: WriteResult = existsSync(snapshotFile)
    ? { products: count, loadMs: 0, eventsMs: 0, snapshotMs: 0, snapshotBytes: statSync(snapshotFile).size }
    : await runInChild<RestartChildInput, WriteResult>('catalog-restart-child', { phase: 'write', dataDir, products: count, sessions }, { timeoutMs });
  if (written.loadMs === 0) log(`reusing ${dataDir} (snapshot ${(written.snapshotBytes / 1e6).toFixed(0)} MB)`);
  else log(`write: ${written.products} products loaded in ${s(written.loadMs)}, ${sessions} sessions recorded in ${s(written.eventsMs)}, `
    + `snapshot (${(written.snapshotBytes / 1e6).toFixed(0)} MB) written in ${s(written.snapshotMs)}`);
  const results: StartResult[] = [];
  for (let i = 0; i < starts; i++) {
    if (fullReplay) rmSync(path.join(dataDir, 'catalogs', 'shop.aislemodels'), { force: true });
    const execArgv = profile && i === 0 ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const r = await runInChild<RestartChildInput, StartResult>('catalog-restart-child', { phase: 'start', dataDir }, { timeoutMs, execArgv });
    if (r.products !== written.products) throw new Error(`the restarted engine has ${r.products} products, ${written.products} were written`);
    results.push(r);
    log(`start ${i + 1}${execArgv.length > 0 ? ' (profiled)' : ''}: modules ${s(r.modulesLoadedMs)}, engine ${s(r.engineCreatedMs)}, first search ${s(r.firstSearchMs)}, `
      + `first browse ${s(r.firstBrowseMs)}, ready ${s(r.readyMs)} (CPU at engine ${s(r.engineCpuMs)}, first search ${s(r.searchCpuMs)}, ready ${s(r.cpuMs)}; RSS ${(r.rssBytes / 1e9).toFixed(2)} GB)`);
    if (r.firstNotReady.length > 0) log(`  not ready at the first search: ${r.firstNotReady.join('; ')}`);
    for (const line of r.log) log(`  engine: ${line.message} ${JSON.stringify(line.details)}`);
  }
  const unprofiled = profile && results.length > 1 ? results.slice(1) : results;
  const pick = (f: (r: StartResult) => number) => median(unprofiled.map(f));
  log(`median of ${unprofiled.length}: modules ${s(pick((r) => r.modulesLoadedMs))}, engine ${s(pick((r) => r.engineCreatedMs))}, `
    + `first search ${s(pick((r) => r.firstSearchMs))}, first browse ${s(pick((r) => r.firstBrowseMs))}, ready ${s(pick((r) => r.readyMs))}, `
    + `CPU at engine ${s(pick((r) => r.engineCpuMs))}, first search ${s(pick((r) => r.searchCpuMs))}, ready ${s(pick((r) => r.cpuMs))}`);
  if (profile) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the profiled start wrote no .cpuprofile');
    const top = summarizeCpuProfile(JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile);
    log('profiled start, functions by total time (self time in brackets):');
    for (const f of top.filter((t) => t.totalMs >= 20).slice(0, 60)) log(`  ${f.totalMs.toFixed(0).padStart(6)} ms  [${f.selfMs.toFixed(0).padStart(5)}]  ${f.name}`);
  }
  if (asJson) console.log(JSON.stringify({ machine, products: count, sessions, written, starts: results }));
} finally {
  if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(profileDir, { recursive: true, force: true });
}
