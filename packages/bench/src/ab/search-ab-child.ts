/**
 * One side of a search A/B ({@link ./search-ab.ts}): builds an engine of the tree at `root` (its
 * packages/engine/dist, imported at run time, so the other side can be an older commit's worktree) on
 * the generated catalog, waits for its background work to settle, then answers batches of request
 * bodies, timing each `engine.search` call.
 * With `AB_PROFILE` set (a directory), the searches of the batches are profiled with the inspector's
 * profiler (build excluded) and the profile written there when told to stop.
 * @module
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import { loadDataset } from '../datasets.js';
import type { SearchRequest } from '../types.js';
import { waitForIdle } from './idle.js';
import { createTreeEngine, type TreeEngine } from './tree-engine.js';

/** What the parent sends: the set-up first, then batches, then `stop`. */
export type AbChildMessage =
  | { type: 'setup'; root: string; products: number; label: string }
  | { type: 'batch'; requests: SearchRequest[] }
  | { type: 'stop' };

/** What the child answers. */
export type AbChildReply =
  | { type: 'ready'; buildMs: number; settledMs: number; heapMb: number }
  | { type: 'times'; ms: number[]; totals: number[] }
  | { type: 'stopped' }
  | { type: 'error'; error: string };


let engine: TreeEngine | undefined;
let session: Session | undefined;
let label = '';

async function handle(m: AbChildMessage): Promise<AbChildReply> {
  if (m.type === 'setup') {
    label = m.label;
    const t0 = performance.now();
    engine = await createTreeEngine(m.root);
    await engine.replaceProducts(BENCH_WEBSITE.websiteId, await loadDataset({ kind: 'generated', count: m.products, seed: 1 }));
    const buildMs = performance.now() - t0;
    // The engine's background work after a load (recommendation indexes, in slices on this thread) runs
    // beside the first searches otherwise.
    await waitForIdle();
    if (process.env.AB_PROFILE) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    return { type: 'ready', buildMs, settledMs: performance.now() - t0 - buildMs, heapMb: process.memoryUsage().heapUsed / 2 ** 20 };
  }
  if (m.type === 'batch') {
    const ms: number[] = [];
    const totals: number[] = [];
    for (const body of m.requests) {
      const t0 = performance.now();
      const answer = await engine!.search(body);
      ms.push(performance.now() - t0);
      totals.push(answer.payload.total_results);
    }
    return { type: 'times', ms, totals };
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(process.env.AB_PROFILE!, `${label}.cpuprofile`), JSON.stringify(profile));
  }
  await engine?.close();
  return { type: 'stopped' };
}

process.on('message', (m: AbChildMessage) => {
  handle(m).then((reply) => {
    process.send!(reply);
    if (reply.type === 'stopped') process.disconnect();
  }, (err: unknown) => process.send!({ type: 'error', error: err instanceof Error ? err.stack ?? err.message : String(err) } satisfies AbChildReply));
});
