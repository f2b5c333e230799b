/**
 * What an experiment's report costs for a big experiment: fills a store with `--users` customers of a
 * two-variant search experiment (each searching 1–5 times over `--days` days, 30 % of searches clicked,
 * 3 % converting), written through the engine's own analytics log as in production (per-customer
 * roll-up rows of every grain), then times the report both ways, interleaved in one run (`--runs`
 * each): `rows`, the per-customer totals read into JS and aggregated there (the report before decision
 * 0050, and interleaving's still); `sums`, the per-variant sums computed by the store's query
 * (`Store.experimentSums`, what engine.experimentReport reads for an A/B test). Both must give the
 * same report (checked: counts exactly, statistics to 1e-9).
 *
 *   node --import tsx packages/bench/src/experiment-report-cost.ts [--users 200000] [--days 28] [--runs 4] [--pg postgres://postgres@127.0.0.1:5432/test]
 *
 * The embedded store is used unless `--pg` names a server (a fresh schema, dropped afterwards). CPU is
 * this process's (every thread: the embedded store's worker too; not the PostgreSQL server's).
 * @module
 */
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { SearchLog, abReport, experimentKind, experimentReport } from '@aisle/engine/internal';
import { openBenchStore } from './bench-store.js';
import { machineInfo } from './machine.js';
import { seededRandom } from './seeded-random.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const USERS = Number(arg('users', '200000'));
const DAYS = Number(arg('days', '28'));
const RUNS = Number(arg('runs', '4'));
const PG_URL = process.argv.includes('--pg') ? arg('pg', '') : undefined;
const BATCH = 20_000;
const DAY_MS = 86_400_000;
const WEBSITE = 'bench';

/** `identical`, `equal to 1e-9` (floating sums added in another order), or where they differ. */
function sameReport(a: unknown, b: unknown): string {
  if (isDeepStrictEqual(a, b)) return 'identical';
  const differ: string[] = [];
  const walk = (x: unknown, y: unknown, at: string): void => {
    if (typeof x === 'number' && typeof y === 'number') {
      if (Math.abs(x - y) > 1e-9 * Math.max(1, Math.abs(x))) differ.push(`${at}: ${x} vs ${y}`);
    } else if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) {
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}.${k}`);
    } else if (x !== y) differ.push(`${at}: ${String(x)} vs ${String(y)}`);
  };
  walk(a, b, 'report');
  return differ.length === 0 ? 'equal to 1e-9 (floating sums in another order)' : `DIFFERENT: ${differ.slice(0, 5).join('; ')}`;
}

async function main(): Promise<void> {
  const random = seededRandom(29);
  const start = Date.UTC(2026, 0, 1);
  const clock = { now: start };
  const { store, dispose } = await openBenchStore('experiment-bench', PG_URL);
  const errors: unknown[] = [];
  const log = new SearchLog(store, { now: () => clock.now, onError: (err) => errors.push(err) });
  const record = {
    websiteId: WEBSITE, id: 'exp_bench', kind: 'search' as const, name: 'bench', method: 'ab' as const,
    variants: [{ name: 'control', weight: 1 }, { name: 'b', weight: 1 }], from: start, until: null, createdAt: start, stoppedAt: null,
  };
  const fillStart = performance.now();
  let searches = 0;
  // Customers in order of their first search; each searches 1–5 times on days spread over the experiment.
  for (let u = 0; u < USERS; u++) {
    const customerId = `c${u}`;
    const variant = u % 2 === 0 ? 'control' : 'b';
    const count = 1 + Math.floor(random() * 5);
    for (let k = 0; k < count; k++) {
      clock.now = start + Math.floor(random() * DAYS * DAY_MS);
      const queryId = `q${searches++}`;
      // Distinct queries a minute apart: each is a search of its own (no search-as-you-type chain).
      log.record(WEBSITE, { queryId, q: `query ${k} ${u % 1000}`, session: customerId, totalResults: 10, experiment: { id: record.id, variant, customerId } });
      if (random() < 0.3) {
        const experiment = { id: record.id, variant, customerId };
        log.recordClickOutcome({ websiteId: WEBSITE, at: clock.now, kind: 'search', queryId, key: `query ${k}`, position: 1, type: 'click', experiment });
        if (random() < 0.1) log.recordConversion({ websiteId: WEBSITE, at: clock.now, kind: 'search', queryId, key: `query ${k}`, revenue: 20 + (u % 7), experiment });
      }
    }
    if (u % BATCH === BATCH - 1) {
      await log.flush(true);
      process.stdout.write(`  ${u + 1} customers written (${Math.round((performance.now() - fillStart) / 1000)} s)\n`);
    }
  }
  await log.close();
  if (errors.length > 0) throw errors[0];
  const end = start + DAYS * DAY_MS;
  const window = { fromHour: start, toHour: end };
  const lines: string[] = [];
  const kind = experimentKind(record.id);
  const ways = {
    rows: async () => {
      const rows = await store.rollupTotals(WEBSITE, kind, window);
      return { read: rows.length, report: () => experimentReport(record, rows, end) };
    },
    sums: async () => {
      const sums = await store.experimentSums(WEBSITE, kind);
      return { read: sums.length, report: () => abReport(record, sums, end) };
    },
  };
  const reports: Record<string, unknown> = {};
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, the order alternating: both ways see the same load and the same caches.
    for (const way of (run % 2 === 0 ? ['rows', 'sums'] : ['sums', 'rows']) as (keyof typeof ways)[]) {
      const t0 = performance.now();
      // CPU of every thread of the process (the embedded store's worker too): on a shared machine wall time overstates.
      const cpu = process.cpuUsage();
      const { read, report: compute } = await ways[way]();
      const t1 = performance.now();
      const report = compute();
      const t2 = performance.now();
      const used = process.cpuUsage(cpu);
      reports[way] = report;
      lines.push(`run ${run + 1} ${way.padEnd(4)}: ${read} rows read in ${(t1 - t0).toFixed(0)} ms, statistics in ${(t2 - t1).toFixed(0)} ms, `
        + `total ${(t2 - t0).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms); `
        + `users ${report.variants.map((v) => v.users).join(' / ')}, searches ${report.variants.map((v) => v.searches).join(' / ')}`);
    }
  }
  lines.push(`same report both ways: ${sameReport(reports.rows, reports.sums)}`);
  await dispose();
  const machine = machineInfo();
  console.log(`experiment report, ${USERS} customers, ${searches} searches over ${DAYS} days, ${PG_URL ? 'PostgreSQL' : 'embedded store'} `
    + `(filled in ${Math.round((performance.now() - fillStart) / 1000)} s); ${JSON.stringify(machine)}`);
  for (const line of lines) console.log(`  ${line}`);
}

await main();
