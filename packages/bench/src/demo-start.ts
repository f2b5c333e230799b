/**
 * What the demo's traffic (searches, clicks, attributed orders: generateTraffic) adds to the demo's first
 * start: `seedDemo` on fresh data directories, with the traffic and without it (`trafficSessions: 0`),
 * alternating in one run so both see the same machine; prints each run and the medians.
 *
 *   node --import tsx packages/bench/src/demo-start.ts [--products 5000] [--runs 3]
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine } from '@aisle/engine';
import { DEMO_TRAFFIC_SESSIONS, demoEngineOptions, demoIdentity, seedDemo } from '@aisle/http-adapter/internal';
import { machineInfo } from './machine.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const PRODUCTS = Number(arg('products', '5000'));
const RUNS = Number(arg('runs', '3'));

/** One first start: the milliseconds `seedDemo` took, and what it sent. */
async function firstStart(trafficSessions: number): Promise<{ ms: number; seeded: unknown }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'aisle-demo-start-'));
  try {
    const identity = demoIdentity(dir, PRODUCTS);
    const engine = await createEngine(demoEngineOptions(dir, identity));
    try {
      const t = performance.now();
      const seeded = await seedDemo(engine, identity, { trafficSessions });
      return { ms: performance.now() - t, seeded };
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const withTraffic: number[] = [];
const without: number[] = [];
process.stdout.write(`${JSON.stringify(machineInfo())}\n`);
for (let run = 0; run < RUNS; run++) {
  const a = await firstStart(DEMO_TRAFFIC_SESSIONS);
  const b = await firstStart(0);
  withTraffic.push(a.ms);
  without.push(b.ms);
  process.stdout.write(`run ${run + 1}: with traffic ${Math.round(a.ms)} ms ${JSON.stringify(a.seeded)}; without ${Math.round(b.ms)} ms\n`);
}
process.stdout.write(`median first start at ${PRODUCTS} products: with traffic ${Math.round(median(withTraffic))} ms, without ${Math.round(median(without))} ms, `
  + `traffic adds ${Math.round(median(withTraffic.map((w, i) => w - without[i]!)))} ms (median of the per-run differences)\n`);
