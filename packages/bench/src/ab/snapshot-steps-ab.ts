/**
 * The longest step of a catalog snapshot's encoding (`encodeCatalogSnapshotSteps`, what the background
 * write runs in time slices), for two trees in ONE process, rounds alternating which tree goes first.
 * Each tree builds the same generated catalog with its own code, then takes `--changes` one-product
 * changes (prices, new products, changed titles, deletes in turn, as the change bench's stream), so
 * the encoding also folds the change tails and writes tombstones. The steps are driven one by one and
 * each is timed by the loop thread's own CPU (`/proc/thread-self/schedstat`: a collection's pause
 * on the main thread counts, the helper threads' work and the wait for a core do not), which
 * separates the trees on a loaded machine where a gap's wall time mostly does not. A slice of the
 * background runner (time-slices.ts, 8 ms) ends after the step that passes its budget: the longest
 * step is what a slice can overrun by.
 *
 * Per tree and round: steps, their CPU in all, the longest steps (CPU and wall). `--stall-windows <file>`
 * writes the steps of `--record-ms` CPU or more (default 20) as windows for `stall-profile.js`, to name
 * what ran in them from a `--cpu-prof` profile of the same process.
 *
 * Run: `node --expose-gc [--cpu-prof --cpu-prof-dir=<dir>] --import tsx packages/bench/src/ab/snapshot-steps-ab.ts --a <tree A> --b . [--products 1000000] [--changes 40] [--rounds 2] [--record-ms 20] [--stall-windows <file>]`
 * (a tree must export `encodeCatalogSnapshotSteps` from catalog/durability/snapshot.ts).
 * @module
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { option } from '../cli-option.js';
import { hrtimeUs, threadClock, type StallWindow } from '../event-loop-stalls.js';

type Steps<T> = Generator<void, T, void>;

interface Side {
  label: string;
  encodeSteps(): Steps<Uint8Array>;
}

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const productCount = Number(option('products', '1000000'));
const changeCount = Number(option('changes', '40'));
const rounds = Number(option('rounds', '2'));
const recordMs = Number(option('record-ms', '20'));
const stallFile = option('stall-windows', '');
const allWindows: (StallWindow & { change?: string })[] = [];
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function sideOf(label: string, root: string): Promise<Side> {
  const src = (file: string) => pathToFileURL(join(root, 'packages/engine/src', file)).href;
  const { Catalog } = await import(src('internal.ts')) as typeof import('@aisle/engine/internal');
  const { generateCatalog } = await import(src('demo/generate-catalog.ts')) as typeof import('@aisle/engine/demo');
  const snapshot = await import(src('catalog/durability/snapshot.ts')) as { encodeCatalogSnapshotSteps?: (state: unknown) => Steps<Uint8Array> };
  const encode = snapshot.encodeCatalogSnapshotSteps;
  if (!encode) throw new Error(`${root}: catalog/durability/snapshot.ts does not export encodeCatalogSnapshotSteps`);
  const catalog = new Catalog();
  const t = performance.now();
  const products = generateCatalog({ count: productCount });
  await catalog.replace(products);
  // The change bench's stream: each change its own version (tails, tombstones, patched columns).
  for (let i = 0; i < changeCount; i++) {
    const p = products[(i * 7919) % products.length]!;
    if (i % 4 === 0) await catalog.upsert([{ ...p, price: 2000 + i }]);
    else if (i % 4 === 1) await catalog.upsert([{ ...p, refId: `stream-${i}`, title: `zzstream${i} shirt` }]);
    else if (i % 4 === 2) await catalog.upsert([{ ...p, title: `zzstreamed${i} ${String(p.title)}` }]);
    else await catalog.delete([p.refId]);
  }
  console.log(`${label}: ${productCount} products and ${changeCount} changes in ${((performance.now() - t) / 1000).toFixed(1)} s (${root})`);
  return { label, encodeSteps: () => encode((catalog as unknown as { state: unknown }).state) };
}

interface Step { index: number; cpuMs: number; wallMs: number }

async function main(): Promise<void> {
  const sides = [await sideOf('A', roots[0]!), await sideOf('B', roots[1]!)];
  const clock = threadClock();
  if (!clock) throw new Error('no /proc/thread-self/schedstat: the steps cannot be timed by their CPU here');
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      gc?.();
      await new Promise((r) => setTimeout(r, 200));
      const steps = side.encodeSteps();
      const longest: Step[] = [];
      let count = 0;
      let cpuNs = 0;
      let bytes = 0;
      const startUs = hrtimeUs();
      const started = performance.now();
      for (;;) {
        const before = clock.read().cpuNs;
        const t = performance.now();
        const stepStartUs = hrtimeUs();
        const next = steps.next();
        const wallMs = performance.now() - t;
        const used = clock.read().cpuNs - before;
        cpuNs += used;
        const step = { index: count++, cpuMs: used / 1e6, wallMs };
        if (step.cpuMs >= recordMs) allWindows.push({ startUs: stepStartUs, endUs: hrtimeUs(), cpuMs: step.cpuMs, waitMs: 0 });
        longest.push(step);
        longest.sort((x, y) => y.cpuMs - x.cpuMs);
        longest.length = Math.min(longest.length, 5);
        if (next.done) { bytes = next.value.length; break; }
      }
      allWindows.push({ startUs, endUs: hrtimeUs(), change: `${side.label} round ${round}` });
      const top = longest.map((s) => `#${s.index} ${s.cpuMs.toFixed(1)} (${s.wallMs.toFixed(0)} wall)`).join(', ');
      console.log(`round ${round} ${side.label}: ${count} steps, ${(cpuNs / 1e6).toFixed(0)} ms CPU (${(performance.now() - started).toFixed(0)} ms wall), ${(bytes / 2 ** 20).toFixed(0)} MB; longest steps, ms CPU: ${top}; load ${load()}`);
    }
  }
  clock.close();
  if (stallFile) writeFileSync(stallFile, JSON.stringify(allWindows));
}

await main();
