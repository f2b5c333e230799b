/**
 * One side of {@link ./background-gaps.ts}: an engine of the tree at `--root` (its packages/engine/dist,
 * imported at run time, so that the other side can be another worktree) loads the generated catalog
 * (`createEngine` + `replaceProducts`, as the peers run: peers/aisle.ts `startAisle`), with or without a
 * data directory, while a `setImmediate` chain records every event-loop gap of at least `--record-ms`;
 * the chain goes on after the load until the engine is idle (its background work over: `waitForIdleWhileWatching`).
 * Writes the gaps, with a window for the load and one for the work after it (the `change` windows of
 * stall-profile.js), to `--windows`, and prints one JSON line of figures, with a digest of what a few
 * searches answer once idle (the same on both sides unless a change altered results).
 *
 *   node [--cpu-prof --cpu-prof-dir=<dir>] packages/bench/dist/background-gaps-child.js --root <tree> --windows <file> [--products 1000000] [--data-dir] [--record-ms 50]
 * @module
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { option } from './cli-option.js';
import { datasetOfOptions, loadDataset } from './datasets.js';
import { hrtimeUs, watchEventLoopStalls, type StallWindow } from './event-loop-stalls.js';
import { waitForIdleWhileWatching } from './ab/idle.js';
import { BENCH_WEBSITE } from './peers/aisle.js';

/** What the child prints (one JSON line, last on stdout). */
export interface BackgroundGapsResult {
  loadMs: number;
  /** From the load's end until the engine was idle (includes the idle check's last second). */
  backgroundMs: number;
  /** Gaps of at least `--record-ms`, in ms, during the load and after it. */
  loadGapsMs: number[];
  backgroundGapsMs: number[];
  /**
   * The longest gap less the loop thread's wait for a CPU in it, during the load and after it: what the
   * process held the loop for whatever the machine's load (NaN off Linux; see event-loop-stalls.ts).
   */
  loadOwnMs: number;
  backgroundOwnMs: number;
  /** Digest of the answers of {@link PROBE_REQUESTS} once idle. */
  answersDigest: string;
}

interface EngineLike {
  replaceProducts(websiteId: string, products: Iterable<unknown>): Promise<unknown>;
  search(body: unknown): Promise<{ payload: { total_results: number; result: { refId: string }[] } }>;
  close(): Promise<void>;
}

/** Searches whose answers both sides must give alike: text, browse, a facet, a sort. */
const PROBE_REQUESTS = [
  { q: 'shirt' }, { q: 'cotton blue' }, { q: '' }, { q: 'shoe', aggregations: ['brand'] },
  { q: '', sort_fields: [{ price: { order: 'asc', type: 'number' } }] },
].map((extra) => ({ website_id: BENCH_WEBSITE.websiteId, client: BENCH_WEBSITE.client, start: 0, size: 20, ...extra }));

const root = option('root', '.');
const windowsFile = option('windows', '');
const recordMs = Number(option('record-ms', '50'));
const withDataDir = process.argv.includes('--data-dir');

/** Progress on stderr (stdout carries the result line). */
const progress = (what: string) => console.error(`  [background-gaps ${new Date().toISOString().slice(11, 19)}] ${what}`);
const products = await loadDataset(datasetOfOptions('1000000'));
progress(`${products.length} products generated`);
const { createEngine } = await import(pathToFileURL(join(root, 'packages/engine/dist/index.js')).href) as { createEngine(o: unknown): Promise<EngineLike> };
const dataDir = withDataDir ? mkdtempSync(join(tmpdir(), 'aisle-background-gaps-')) : undefined;
try {
  const engine = await createEngine({ websites: [BENCH_WEBSITE], ...(dataDir && { dataDir }) });
  const windows: StallWindow[] = [];
  const watch = watchEventLoopStalls(windows, recordMs);
  const loadStartUs = hrtimeUs();
  let t = performance.now();
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, products);
  const loadMs = performance.now() - t;
  const loadEndUs = hrtimeUs();
  progress(`loaded in ${(loadMs / 1000).toFixed(1)} s`);
  products.length = 0;
  t = performance.now();
  await waitForIdleWhileWatching(() => watch.heldMs());
  const backgroundMs = performance.now() - t;
  const idleUs = hrtimeUs();
  progress(`idle after ${(backgroundMs / 1000).toFixed(1)} s`);
  watch.stop();
  const gapMs = (w: StallWindow) => (w.endUs - w.startUs) / 1000;
  const loadGapsMs = windows.filter((w) => w.endUs <= loadEndUs).map(gapMs);
  const backgroundGapsMs = windows.filter((w) => w.endUs > loadEndUs).map(gapMs);
  const longestOwn = (list: StallWindow[]) => Math.max(0, ...list.map((w) => gapMs(w) - (w.waitMs ?? NaN)));
  const loadOwnMs = longestOwn(windows.filter((w) => w.endUs <= loadEndUs));
  const backgroundOwnMs = longestOwn(windows.filter((w) => w.endUs > loadEndUs));
  windows.push({ startUs: loadStartUs, endUs: loadEndUs, change: 'load' }, { startUs: loadEndUs, endUs: idleUs, change: 'after the load, until idle' });
  if (windowsFile) writeFileSync(windowsFile, JSON.stringify(windows));
  const digest = createHash('sha256');
  for (const request of PROBE_REQUESTS) {
    const { payload } = await engine.search(request);
    digest.update(`${payload.total_results}:${payload.result.map((p) => p.refId).join(',')}\n`);
  }
  await engine.close();
  const result: BackgroundGapsResult = { loadMs, backgroundMs, loadGapsMs, backgroundGapsMs, loadOwnMs, backgroundOwnMs, answersDigest: digest.digest('hex').slice(0, 16) };
  console.log(JSON.stringify(result));
} finally {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
