/**
 * What an experiment's lifetime roll-up rows (decision 0050) cost the analytics log's writes: the same
 * batches of roll-up deltas written through `Store.writeAnalytics` under an experiment's kind (each delta
 * goes to its row of every grain and to the customer's lifetime row: six rows) and under the search kind
 * (every grain, no lifetime row: five), interleaved batch by batch into one store, in one run.
 *
 *   node --import tsx packages/bench/src/experiment-rollup-write-cost.ts [--customers 20000] [--batches 20] [--pg postgres://postgres@127.0.0.1:5432/test]
 *
 * Each batch holds one delta per customer of `--customers / --batches` customers, for both kinds alike
 * (the same keys, hours and counters). CPU is this process's (the embedded store's worker included).
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { AnalyticsBatch, AnalyticsKind, RollupDelta } from '@aisle/engine/internal';
import { openBenchStore } from './bench-store.js';
import { machineInfo } from './machine.js';
import { seededRandom } from './seeded-random.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const CUSTOMERS = Number(arg('customers', '20000'));
const BATCHES = Number(arg('batches', '20'));
const PG_URL = process.argv.includes('--pg') ? arg('pg', '') : undefined;
const HOUR_MS = 3_600_000;

async function main(): Promise<void> {
  const { store, dispose } = await openBenchStore('rollup-write-bench', PG_URL);
  const random = seededRandom(7);
  const start = Date.UTC(2026, 0, 1);
  const perBatch = Math.ceil(CUSTOMERS / BATCHES);
  const totals: Record<string, { cpu: number; wall: number; rows: number }> = { search: { cpu: 0, wall: 0, rows: 0 }, experiment: { cpu: 0, wall: 0, rows: 0 } };
  for (let b = 0; b < BATCHES; b++) {
    const shape = Array.from({ length: perBatch }, (_, i) => ({
      key: `${i % 2 === 0 ? 'control' : 'b'}\u001fc${b * perBatch + i}`, hour: start + Math.floor(random() * 28 * 24) * HOUR_MS,
      counters: { responses: 1, results: 10, clicked: random() < 0.3 ? 1 : 0 },
    }));
    // Alternating which kind goes first: both see the same store size and the same load.
    const kinds: [string, AnalyticsKind][] = b % 2 === 0 ? [['search', 'search'], ['experiment', 'experiment:bench']] : [['experiment', 'experiment:bench'], ['search', 'search']];
    for (const [name, kind] of kinds) {
      const rollups: RollupDelta[] = shape.map((d) => ({ websiteId: 'bench', kind, hour: d.hour, key: d.key, tactic: '', counters: d.counters }));
      const batch: AnalyticsBatch = { responses: [], outcomes: [], sessions: [], rollups };
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      await store.writeAnalytics(batch);
      const used = process.cpuUsage(cpu);
      totals[name]!.wall += performance.now() - t0;
      totals[name]!.cpu += (used.user + used.system) / 1000;
      totals[name]!.rows += rollups.length;
    }
  }
  await dispose();
  console.log(`roll-up writes, ${CUSTOMERS} customers in ${BATCHES} batches per kind, ${PG_URL ? 'PostgreSQL' : 'embedded store'}; ${JSON.stringify(machineInfo())}`);
  for (const [name, t] of Object.entries(totals)) {
    console.log(`  ${name.padEnd(10)}: ${t.rows} deltas, wall ${t.wall.toFixed(0)} ms, CPU ${t.cpu.toFixed(0)} ms (${(1000 * t.cpu / t.rows).toFixed(1)} µs CPU per delta)`);
  }
}

await main();
