/**
 * Event-loop gaps while a catalog snapshot is written (`saveCatalogSnapshot`: its encoding in
 * background slices, then the durable file write), for two trees in ONE process. Each tree builds the
 * same generated catalog with its own code. Rounds alternate which tree writes first. A chain of
 * `setImmediate` turns runs beside each write (bench/event-loop-stalls.ts), and the bench prints each
 * write's wall time, its longest gap, and that gap less the loop thread's wait for a core. It also lists
 * the gaps of `--record-ms` or more with their CPU and wait (Linux), and the load average. Both
 * catalogs live in one heap, so each side's collections mark the other's too. `--stall-windows <file>`
 * writes the gaps (and each write's whole interval, labelled `change`: "A round 0") for
 * `stall-profile.js`, to name what ran in them from a `--cpu-prof` profile of the same process.
 *
 * Run: `node --expose-gc [--cpu-prof --cpu-prof-dir=<dir>] --import tsx packages/bench/src/ab/snapshot-write-ab.ts --a <tree A> --b . [--products 1000000] [--rounds 3] [--record-ms 50] [--stall-windows <file>]`
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { option } from '../cli-option.js';
import { hrtimeUs, watchEventLoopStalls, type StallWindow } from '../event-loop-stalls.js';

interface Side {
  label: string;
  save(file: string): Promise<void>;
}

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const productCount = Number(option('products', '1000000'));
const rounds = Number(option('rounds', '3'));
const recordMs = Number(option('record-ms', '50'));
const stallFile = option('stall-windows', '');
/** Every write's gaps and interval, for `--stall-windows`. */
const allWindows: (StallWindow & { change?: string })[] = [];
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function sideOf(label: string, root: string): Promise<Side> {
  const src = (file: string) => pathToFileURL(join(root, 'packages/engine/src', file)).href;
  const { Catalog, saveCatalogSnapshot } = await import(src('internal.ts')) as typeof import('@aisle/engine/internal');
  const { generateCatalog } = await import(src('demo/generate-catalog.ts')) as typeof import('@aisle/engine/demo');
  const catalog = new Catalog();
  const t = performance.now();
  await catalog.replace(generateCatalog({ count: productCount }));
  console.log(`${label}: ${productCount} products built in ${((performance.now() - t) / 1000).toFixed(1)} s (${root})`);
  return { label, save: (file) => saveCatalogSnapshot(catalog, file) };
}

async function main(): Promise<void> {
  const sides = [await sideOf('A', roots[0]!), await sideOf('B', roots[1]!)];
  const dir = mkdtempSync(join(tmpdir(), 'aisle-snapshot-ab-'));
  const gc = (globalThis as { gc?: () => void }).gc;
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        gc?.();
        await new Promise((r) => setTimeout(r, 200));
        const windows: StallWindow[] = [];
        const watch = watchEventLoopStalls(windows, recordMs);
        const t = performance.now();
        const startUs = hrtimeUs();
        await side.save(join(dir, `${side.label}.aislesnap`));
        const ms = performance.now() - t;
        const longest = watch.stop();
        allWindows.push(...windows, { startUs, endUs: hrtimeUs(), change: `${side.label} round ${round}` });
        const gaps = windows.map((w) => `${((w.endUs - w.startUs) / 1000).toFixed(0)} (${w.cpuMs?.toFixed(0) ?? '?'} cpu, ${w.waitMs?.toFixed(0) ?? '?'} wait)`);
        console.log(`round ${round} ${side.label}: ${ms.toFixed(0)} ms, longest gap ${longest.toFixed(0)} ms (less wait ${watch.longestOwnMs().toFixed(0)}); gaps >= ${recordMs} ms: ${gaps.join(', ') || 'none'}; load ${load()}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (stallFile) writeFileSync(stallFile, JSON.stringify(allWindows));
}

await main();
