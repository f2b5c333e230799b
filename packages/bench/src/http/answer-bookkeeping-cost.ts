/**
 * CPU of two per-answer costs of a recommendation on the main thread, in one process, the sides
 * alternating and their order turning every round:
 * - `newQueryId` (the signed result-list id, clicks/query-ids.ts) of this tree, and of the tree at
 *   `--a` when given (its built engine loaded beside this one);
 * - the hand-off of the kept lists to the embedded store's worker: `v8.serialize` (the structured clone's
 *   serializer, what `postMessage` runs) of a flush's lists as records (as sent before decision 0071)
 *   and as runs (store/worker-rows.ts).
 *
 * Run: `node packages/bench/dist/http/answer-bookkeeping-cost.js [--ids 300000] [--lists 5000] [--rounds 4] [--a <tree>]`
 * @module
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serialize } from 'node:v8';
import { option } from '../cli-option.js';

const ids = Number(option('ids', '300000'));
const lists = Number(option('lists', '5000'));
const rounds = Number(option('rounds', '4'));
const treeA = option('a', '');

/** This tree: four levels up from packages/bench/dist/http/. */
const thisTree = fileURLToPath(new URL('../../../../', import.meta.url));

type NewQueryId = (now: number, websiteId: string, secret: string) => string;

async function newQueryIdOf(tree: string): Promise<NewQueryId> {
  const module = await import(pathToFileURL(join(tree, 'packages/engine/dist/clicks/query-ids.js')).href) as { newQueryId: NewQueryId };
  return module.newQueryId;
}

/** CPU ns per call of `run` over `n` calls. */
function cpuNsPer(n: number, run: (i: number) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) run(i);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / n;
}

async function main(): Promise<void> {
  const sides: [string, NewQueryId][] = [['B (this tree)', await newQueryIdOf(thisTree)]];
  if (treeA) sides.push([`A (${treeA})`, await newQueryIdOf(treeA)]);
  const { resultPageRuns } = await import(pathToFileURL(join(thisTree, 'packages/engine/dist/store/worker-rows.js')).href) as { resultPageRuns: (pages: readonly object[]) => unknown };
  // A flush of a busy website's PopularItems lists, as ResultPages keeps them.
  const newQueryId = sides[0]![1];
  const pages = Array.from({ length: lists }, (_, i) => ({
    websiteId: 'bench-website', queryId: newQueryId(1_764_000_000_000 + i, 'bench-website', 'bench-secret'), kind: 'recommendation' as const,
    source: 'PopularItems', variant: null, customerId: null, sessionId: null, firstPosition: 1, refIds: [`p${i}`, `p${i + 1}`, `p${i + 2}`],
    createdAt: 1_764_000_000_000 + i,
  }));
  const handOffs: [string, () => unknown][] = [['lists as records', () => pages], ['lists as runs', () => resultPageRuns(pages)]];
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    const line: string[] = [];
    for (let k = 0; k < sides.length; k++) {
      const [label, make] = sides[(k + round) % sides.length]!;
      line.push(`newQueryId ${label} ${cpuNsPer(ids, (i) => { sink += make(1_764_000_000_000 + i, 'bench-website', 'bench-secret').length; }).toFixed(0)} ns`);
    }
    for (let k = 0; k < handOffs.length; k++) {
      const [label, wire] = handOffs[(k + round) % handOffs.length]!;
      const perFlush = cpuNsPer(40, () => { sink += serialize(wire()).length; });
      line.push(`${label} ${(perFlush / lists).toFixed(0)} ns a list`);
    }
    console.log(`round ${round + 1} (load ${loadavg()[0]!.toFixed(1)}): ${line.join('; ')}`);
  }
  if (sink === 0) console.log('(nothing made)');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
