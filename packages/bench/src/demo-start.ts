/**
 * What the demo's traffic (searches, clicks, attributed orders: generateTraffic) adds to the demo's first
 * start. Per run, on a fresh data directory: `seedDemo` without the traffic (`trafficSessions: 0`: the
 * catalog and the history), then the traffic `seedDemo` would send next, timed on its own — the wall time
 * it adds, measured directly rather than as the difference of two starts ten times longer (on a loaded
 * machine that difference is mostly noise). Prints each run and the medians.
 *
 *   node --import tsx packages/bench/src/demo-start.ts [--products 5000] [--runs 3]
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine } from '@aisle/engine';
import { generateCatalog, generateTraffic } from '@aisle/engine/demo';
import { DEMO_TRAFFIC_SESSIONS, demoEngineOptions, demoIdentity, seedDemo } from '@aisle/http-adapter/internal';
import { machineInfo } from './machine.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const PRODUCTS = Number(arg('products', '5000'));
const RUNS = Number(arg('runs', '3'));

/** One first start: milliseconds of the catalog and history, then of the traffic, and what the traffic sent. */
async function firstStart(): Promise<{ seedMs: number; trafficMs: number; traffic: unknown }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'aisle-demo-start-'));
  try {
    const identity = demoIdentity(dir, PRODUCTS);
    const engine = await createEngine(demoEngineOptions(dir, identity));
    try {
      const t0 = performance.now();
      await seedDemo(engine, identity, { trafficSessions: 0 });
      const t1 = performance.now();
      // The same call seedDemo makes (same catalog, seed and sessions).
      const products = generateCatalog({ count: identity.productCount, seed: identity.seed });
      const traffic = await generateTraffic(engine, { websiteId: identity.websiteId, client: identity.client, products, seed: identity.seed, sessions: DEMO_TRAFFIC_SESSIONS });
      return { seedMs: t1 - t0, trafficMs: performance.now() - t1, traffic };
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seeds: number[] = [];
const traffics: number[] = [];
process.stdout.write(`${JSON.stringify(machineInfo())}\n`);
for (let run = 0; run < RUNS; run++) {
  const { seedMs, trafficMs, traffic } = await firstStart();
  seeds.push(seedMs);
  traffics.push(trafficMs);
  process.stdout.write(`run ${run + 1}: catalog and history ${Math.round(seedMs)} ms, then traffic ${Math.round(trafficMs)} ms ${JSON.stringify(traffic)}\n`);
}
process.stdout.write(`median at ${PRODUCTS} products: catalog and history ${Math.round(median(seeds))} ms; the traffic adds ${Math.round(median(traffics))} ms\n`);
