/**
 * What an experiment's report costs for a big experiment: fills a store with `--users` customers of a
 * two-variant search experiment (each searching 1–5 times over `--days` days, 30 % of searches clicked,
 * 3 % converting), written through the engine's own analytics log as in production (per-customer
 * roll-up rows of every grain), then times the report: the store's sum over the experiment's rows and
 * the statistics (engine.experimentReport does exactly these two steps).
 *
 *   node --import tsx packages/bench/src/experiment-report-cost.ts [--users 200000] [--days 28] [--pg postgres://postgres@127.0.0.1:5432/test]
 *
 * The embedded store is used unless `--pg` names a server (a fresh schema, dropped afterwards). The cost
 * grows with the experiment's customers (one summed row per customer, tactic or team), not with its
 * events or with other experiments' rows.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SearchLog, experimentKind, experimentReport, openStore } from '@aisle/engine/internal';
import { machineInfo } from './machine.js';
import { seededRandom } from './seeded-random.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const USERS = Number(arg('users', '200000'));
const DAYS = Number(arg('days', '28'));
const PG_URL = process.argv.includes('--pg') ? arg('pg', '') : undefined;
const BATCH = 20_000;
const DAY_MS = 86_400_000;
const WEBSITE = 'bench';

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'aisle-experiment-bench-'));
  const schema = `aisle_bench_${process.pid}`;
  const config = PG_URL ? { type: 'postgres' as const, url: PG_URL, schema } : { type: 'embedded' as const };
  const random = seededRandom(29);
  const start = Date.UTC(2026, 0, 1);
  const clock = { now: start };
  const store = await openStore(config, dir);
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
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    // CPU of every thread of the process (the embedded store's worker too): on a shared machine wall time overstates.
    const cpu = process.cpuUsage();
    const rows = await store.rollupTotals(WEBSITE, experimentKind(record.id), window);
    const t1 = performance.now();
    const report = experimentReport(record, rows, end);
    const t2 = performance.now();
    const used = process.cpuUsage(cpu);
    lines.push(`run ${run + 1}: ${rows.length} summed rows read in ${(t1 - t0).toFixed(0)} ms, statistics in ${(t2 - t1).toFixed(0)} ms `
      + `(CPU ${((used.user + used.system) / 1000).toFixed(0)} ms); `
      + `users ${report.variants.map((v) => v.users).join(' / ')}, searches ${report.variants.map((v) => v.searches).join(' / ')}`);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  if (PG_URL) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  const machine = machineInfo();
  console.log(`experiment report, ${USERS} customers, ${searches} searches over ${DAYS} days, ${PG_URL ? 'PostgreSQL' : 'embedded store'} `
    + `(filled in ${Math.round((performance.now() - fillStart) / 1000)} s); ${JSON.stringify(machine)}`);
  for (const line of lines) console.log(`  ${line}`);
}

await main();
