/**
 * A restart's first category page, A/B in one run (decision 0055). Each side (a tree's
 * `packages/engine/dist`: this one and, e.g., a worktree of main) writes the same N generated products,
 * on a website declaring the generator's `categories` hierarchy, into a data directory of its own (the
 * embedded store, no shopper history); then, round after round (the order rotating), a fresh process of
 * each side starts on its own directory — and B once more on a copy of A's, whose snapshot is in A's
 * format (B's start derives the hierarchy the snapshot lacks) — timing from the process's start
 * (catalog-restart-child.ts): `createEngine` resolved, the first request (a category page: a subtree two
 * levels down with the category menu) answered, with that request's CPU, readiness, the CPU to ready; and
 * checking that every start answered the category page alike (a digest of its answer).
 *
 * Run: `node packages/bench/dist/ab/restart-hierarchies.js --a /work/wt-loose-ends-base --b . [--products 1000000] [--rounds 3]`
 * @module
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { option } from '../cli-option.js';
import { runInChild } from '../child-process.js';
import type { RestartChildInput, StartResult, WriteResult } from '../catalog-restart-child.js';
import { summarize } from '../stats.js';

const rootA = path.resolve(option('a', '.'));
const rootB = path.resolve(option('b', '.'));
const products = Number(option('products', '1000000'));
const rounds = Number(option('rounds', '3'));
const timeoutMs = 30 * 60_000;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const work = mkdtempSync(path.join(tmpdir(), 'aisle-restart-hierarchies-'));
const dirA = path.join(work, 'a');
const dirB = path.join(work, 'b');
const dirAForB = path.join(work, 'a-for-b');

/** The starts compared: a side's engine on a data directory. */
const STARTS = [
  { label: 'A on A\'s snapshot', root: rootA, dataDir: dirA },
  { label: 'B on B\'s snapshot', root: rootB, dataDir: dirB },
  { label: 'B on A\'s snapshot', root: rootB, dataDir: dirAForB },
] as const;

try {
  console.log(`${products} generated products, ${rounds} rounds; A = ${rootA}, B = ${rootB}; load ${load()}`);
  for (const [label, root, dataDir] of [['A', rootA, dirA], ['B', rootB, dirB]] as const) {
    const input: RestartChildInput = { phase: 'write', dataDir, products, sessions: 0, hierarchies: true, engineRoot: root };
    const written = await runInChild<RestartChildInput, WriteResult>('catalog-restart-child', input, { timeoutMs });
    console.log(`write ${label}: ${written.products} products in ${s(written.loadMs)}, snapshot ${(written.snapshotBytes / 1e6).toFixed(0)} MB in ${s(written.snapshotMs)}; load ${load()}`);
  }
  const results = new Map<string, StartResult[]>(STARTS.map((x) => [x.label, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < STARTS.length; k++) {
      const start = STARTS[(r + k) % STARTS.length]!;
      // A's snapshot as A wrote it, each time (B's start leaves it as it found it, but no trust needed).
      if (start.dataDir === dirAForB) {
        rmSync(dirAForB, { recursive: true, force: true });
        cpSync(dirA, dirAForB, { recursive: true });
      }
      const input: RestartChildInput = { phase: 'start', dataDir: start.dataDir, hierarchies: true, engineRoot: start.root };
      const before = load();
      const result = await runInChild<RestartChildInput, StartResult>('catalog-restart-child', input, { timeoutMs });
      results.get(start.label)!.push(result);
      const opened = result.log.find((l) => l.message.includes('engine opened'));
      console.log(`round ${r + 1} ${start.label}: engine ${s(result.engineCreatedMs)}, first category page ${s(result.firstHierarchyMs!)} `
        + `(its CPU ${s(result.hierarchyCpuMs!)}; answer ${result.hierarchyAnswer}), ready ${s(result.readyMs)}, CPU to engine ${s(result.engineCpuMs)}, `
        + `to ready ${s(result.cpuMs)}; start steps ${JSON.stringify(opened?.details.steps ?? {})}; load ${before} -> ${load()}`);
    }
  }
  const answers = new Set([...results.values()].flat().map((x) => x.hierarchyAnswer));
  console.log(`category page answers: ${answers.size === 1 ? 'identical in every start' : `DIFFER (${[...answers].join(', ')})`}`);
  for (const [label, list] of results) {
    const m = (f: (x: StartResult) => number) => s(summarize(list.map(f)).median);
    console.log(`median ${label}: engine ${m((x) => x.engineCreatedMs)}, first category page ${m((x) => x.firstHierarchyMs!)} (its CPU ${m((x) => x.hierarchyCpuMs!)}), `
      + `ready ${m((x) => x.readyMs)}, CPU to engine ${m((x) => x.engineCpuMs)}, to ready ${m((x) => x.cpuMs)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
