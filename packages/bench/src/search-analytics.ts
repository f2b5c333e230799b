/**
 * Search analytics at scale: fills a store with N synthetic searches (spread over `--days` days, a
 * Zipf-distributed vocabulary of `--queries` distinct queries, shoppers typing in sessions), clicks and
 * conversions, through the engine's own analytics log (the roll-ups are written as in production, in
 * batches); then times the searches and recommendations reports over 1, 7 and 90 days, and a restart
 * (open the store, load the completion evidence: what a start waits for).
 *
 *   node --import tsx packages/bench/src/search-analytics.ts [--searches 5000000] [--days 90] [--queries 50000] [--pg postgres://postgres@127.0.0.1:5432/test]
 *
 * The embedded store is used unless `--pg` names a server (a fresh schema, dropped afterwards). What a
 * report costs grows with the roll-up rows its window holds (distinct queries per day × days), not with
 * the searches: the figures print both, so they can be carried over to another shop.
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SearchLog, openStore } from '@aisle/engine/internal';
import { machineInfo } from './machine.js';
import { seededRandom, zipf } from './seeded-random.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const SEARCHES = Number(arg('searches', '5000000'));
const DAYS = Number(arg('days', '90'));
const QUERIES = Number(arg('queries', '50000'));
const PG_URL = process.argv.includes('--pg') ? arg('pg', '') : undefined;
/** Searches per written batch: the log writes what a second of traffic brought; a bench writes more at a time to fill in minutes. */
const BATCH = 20_000;
const CLICK_RATE = 0.3;
const CONVERSION_RATE = 0.03;
const DAY_MS = 86_400_000;
const WEBSITE = 'bench';


/** Wall time and CPU time (every thread of the process: the embedded store's worker too) of `work`, in ms. */
const time = async <T>(work: () => Promise<T>): Promise<[T, string]> => {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return [value, `${(performance.now() - start).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms)`];
};

/** Bytes per row of each analytics table of the SQLite file, its indexes included (SQLite's `dbstat`). */
function tableCosts(file: string): string[] {
  // better-sqlite3 is the engine's dependency, resolved from it (the bench does not depend on it).
  const require = createRequire(fileURLToPath(import.meta.resolve('@aisle/engine')));
  const Database = require('better-sqlite3') as new (file: string, options: { readonly: boolean }) => {
    prepare(sql: string): { all(): unknown[]; get(): unknown };
    close(): void;
  };
  const db = new Database(file, { readonly: true });
  try {
    const sizes = db.prepare(`SELECT m.tbl_name AS name, SUM(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_schema m ON m.name = s.name
      WHERE m.tbl_name IN ('analytics_rollups', 'logged_responses', 'query_sessions', 'completion_queries') GROUP BY m.tbl_name`).all() as { name: string; bytes: number }[];
    return sizes.map(({ name, bytes }) => {
      const rows = (db.prepare(`SELECT COUNT(*) AS n FROM ${name}`).get() as { n: number }).n;
      return `${name}: ${rows} rows, ${(bytes / 2 ** 20).toFixed(1)} MB, ${Math.round(bytes / Math.max(rows, 1))} bytes per row`;
    });
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'aisle-analytics-bench-'));
  const schema = `aisle_bench_${process.pid}`;
  const config = PG_URL ? { type: 'postgres' as const, url: PG_URL, schema } : { type: 'embedded' as const };
  const random = seededRandom(23);
  const query = zipf(QUERIES, 1, random); // query ranks by a Zipf law of exponent 1
  const start = Date.UTC(2026, 0, 1);
  const clock = { now: start };
  let store = await openStore(config, dir);
  const errors: unknown[] = [];
  let log = new SearchLog(store, { now: () => clock.now, onError: (err) => errors.push(err) });
  const step = (DAYS * DAY_MS) / SEARCHES;
  const fillStart = performance.now();
  for (let n = 0; n < SEARCHES; n++) {
    clock.now = start + Math.floor(n * step);
    const rank = query();
    const queryId = `q${n}`;
    const totalResults = rank % 10 === 9 ? 0 : 1 + (rank % 40);
    log.record(WEBSITE, { queryId, q: `query ${rank} item`, session: `s${Math.floor(random() * SEARCHES / 4)}`, totalResults });
    if (totalResults > 0 && random() < CLICK_RATE) {
      log.recordClickOutcome({ websiteId: WEBSITE, at: clock.now, kind: 'search', queryId, key: `query ${rank} item`, position: 1 + Math.floor(random() * 10), type: 'click' });
      if (random() < CONVERSION_RATE / CLICK_RATE) log.recordConversion({ websiteId: WEBSITE, at: clock.now, kind: 'search', queryId, key: `query ${rank} item`, revenue: 20 });
    }
    if (n % BATCH === BATCH - 1) {
      await log.flush();
      if (n % (BATCH * 25) === BATCH * 25 - 1) process.stdout.write(`  ${n + 1} searches written (${Math.round((performance.now() - fillStart) / 1000)} s)\n`);
    }
  }
  await log.close();
  const fillMs = performance.now() - fillStart;
  if (errors.length > 0) throw errors[0];
  const end = clock.now;
  const iso = (ms: number) => new Date(ms).toISOString();
  const lines: string[] = [];
  for (const days of [1, 7, DAYS]) {
    // The second run of each is reported: the first one also warms the page cache.
    await log.report(WEBSITE, { from: iso(end - days * DAY_MS), to: iso(end) });
    const [report, ms] = await time(() => log.report(WEBSITE, { from: iso(end - days * DAY_MS), to: iso(end), limit: 100 }));
    lines.push(`searches report, last ${days} day(s): ${ms}; top query ${report.top[0]?.query}: ${report.top[0]?.count} searches, ctr ${report.top[0]?.ctr.toFixed(3)}`);
  }
  const [, recMs] = await time(() => log.recommendationReport(WEBSITE, { from: iso(end - DAYS * DAY_MS), to: iso(end) }));
  lines.push(`recommendations report, ${DAYS} days: ${recMs}`);
  await store.close();
  const [reopened, openMs] = await time(() => openStore(config, dir));
  store = reopened;
  log = new SearchLog(store, { now: () => clock.now, onError: (err) => errors.push(err) });
  const [, loadMs] = await time(() => log.load(WEBSITE));
  lines.push(`restart: store opened in ${openMs}, completion evidence loaded in ${loadMs}`);
  const rollupDays = await log.report(WEBSITE, { from: iso(end - DAYS * DAY_MS), to: iso(end), limit: 1000 });
  await log.close();
  await store.close();
  const file = path.join(dir, 'aisle.sqlite');
  const size = PG_URL ? '' : `, database ${(statSync(file).size / 2 ** 20).toFixed(0)} MB`;
  if (!PG_URL) lines.push(...tableCosts(file));
  process.stdout.write(`${JSON.stringify(machineInfo())}\n${SEARCHES} searches over ${DAYS} days, ${QUERIES} distinct queries (${rollupDays.top.length}+ reported), `
    + `${PG_URL ? 'PostgreSQL' : 'embedded SQLite'}: written in ${(fillMs / 1000).toFixed(0)} s${size}\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  if (PG_URL) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA "${schema}" CASCADE`);
    await client.end();
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
