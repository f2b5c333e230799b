/**
 * Does a restart grow with the stored history? One website, on the embedded store or on PostgreSQL:
 * 1. the store's sequences are advanced past the history to come (`--views`, `--purchases`, `--clicks`);
 * 2. a child process loads `--products` generated products and records `--sessions` shopper sessions
 *    through the engine (their events get the numbers after the history), then closes: its models'
 *    checkpoint (file or PostgreSQL row) holds every stored event up to the last;
 * 3. `--starts` fresh processes start an engine on it and time readiness (catalog-restart-child.ts):
 *    the starts **before** the history exists;
 * 4. the history is written straight into the tables, below the checkpoint's number: `--views` view
 *    events and `--purchases` purchase events (copies of a stored view's and purchase's row: the real
 *    size per row), `--clicks` clicks, `--searches` logged search responses with the completion evidence
 *    of 50,000 queries (20 sessions each), and the disk each kind takes is measured;
 * 5. `--starts` starts again, **with** the history: the same checkpoint, the same events after it.
 * So the two sets of starts differ only in the stored history the checkpoint already holds.
 *
 *   node --import tsx packages/bench/src/restart-history.ts [--store embedded|postgres] [--pg URL] [--products 20000]
 *     [--sessions 20000] [--views 20000000] [--purchases 1000000] [--clicks 0] [--searches 0] [--starts 2]
 *     [--keep] [--reuse <data dir> [--schema <name>]] [--hierarchies]
 *
 * `--hierarchies`: the website declares the generator's `categories` hierarchy and each start's first
 * request is a category page, timed on its own (catalog-restart-child.ts; decision 0055).
 * `--keep` leaves the data directory (and the PostgreSQL schema) in place and prints them; `--reuse` runs only
 * the starts with history on what a `--keep` run left (so the history can be written while the machine is
 * busy and the starts timed once it is quiet), then removes it.
 *
 * The history's rows are never replayed (the checkpoint holds them by number), so their content beyond
 * their size does not matter to a start; the models in the checkpoint are those of `--sessions` (their
 * size is bounded by the models' caps, not by the history: docs/benchmarks.md). Figures in
 * docs/benchmarks.md ("Restart with stored events").
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@aisle/engine/internal';
import { runInChild } from './child-process.js';
import type { RestartChildInput, RestartStore, StartResult, WriteResult } from './catalog-restart-child.js';
import { machineInfo } from './machine.js';

const args = process.argv.slice(2);
if (args.includes('--help')) {
  // Without this the run starts (and writes 20M rows by default).
  console.log('node packages/bench/dist/restart-history.js [--store embedded|postgres] [--pg URL] [--products 20000] [--sessions 20000]\n'
    + '  [--views 20000000] [--purchases 1000000] [--clicks 0] [--searches 0] [--starts 2] [--keep] [--reuse <data dir> [--schema <name>]]\n'
    + '  [--hierarchies]   (the options: the header of packages/bench/src/restart-history.ts)');
  process.exit(0);
}
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const kind = option('store') ?? 'embedded';
const pgUrl = option('pg') ?? 'postgres://postgres@127.0.0.1:5432/test';
const products = Number(option('products') ?? 20_000);
const sessions = Number(option('sessions') ?? 20_000);
const views = Number(option('views') ?? 20_000_000);
const purchases = Number(option('purchases') ?? 1_000_000);
const clicks = Number(option('clicks') ?? 0);
const searches = Number(option('searches') ?? 0);
const starts = Math.max(1, Number(option('starts') ?? 2));
const keep = args.includes('--keep');
const hierarchies = args.includes('--hierarchies');
const reuse = option('reuse');
const HOUR_MS = 3_600_000;
/** Rows written per statement of the history. */
const BATCH = 500_000;
/** Queries of the completion evidence, and sessions per query. */
const QUERIES = 50_000;
const SESSIONS_PER_QUERY = 20;

// The engine's dependencies, not the bench's: resolved from the engine's package.
const require = createRequire(fileURLToPath(import.meta.resolve('@aisle/engine')));

interface SqlRunner {
  /** Runs one statement with numbered parameters written by `ph`. */
  run(sql: string, params: unknown[]): Promise<void>;
  one<T>(sql: string, params: unknown[]): Promise<T | undefined>;
  /** The bytes the store takes on disk now. */
  size(): Promise<number>;
  close(): Promise<void>;
  /** Placeholder of parameter i (1-based). */
  ph(i: number): string;
  /** A table's name in statements. */
  table(name: string): string;
  /** `n` consecutive numbers from `from` as a row source with column `i`. */
  numbers(from: string, to: string): string;
}

interface SqliteDatabase {
  prepare(sql: string): { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown };
  pragma(sql: string): unknown;
  close(): void;
}

function sqliteRunner(file: string): SqlRunner {
  const Database = require('better-sqlite3') as new (file: string) => SqliteDatabase;
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // Numbered parameters as better-sqlite3 names them (`@p1` bound from `{ p1 }`).
  const named = (params: unknown[]) => (params.length === 0 ? [] : [Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]))]);
  return {
    run: async (sql, params) => { db.prepare(sql).run(...named(params)); },
    one: async <T>(sql: string, params: unknown[]) => db.prepare(sql).get(...named(params)) as T | undefined,
    size: async () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      return statSync(file).size;
    },
    close: async () => db.close(),
    ph: (i) => `@p${i}`,
    table: (name) => name,
    numbers: (from, to) => `(WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to}) SELECT i FROM n)`,
  };
}

interface PgClient {
  connect(): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  end(): Promise<void>;
}

async function pgRunner(schema: string): Promise<SqlRunner> {
  const pg = require('pg') as { Client: new (config: { connectionString: string }) => PgClient };
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  return {
    run: async (sql, params) => { await client.query(sql, params); },
    one: async <T>(sql: string, params: unknown[]) => (await client.query<T>(sql, params)).rows[0],
    size: async () => Number((await client.query<{ n: string }>(
      'SELECT SUM(pg_total_relation_size(c.oid)) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = \'r\'', [schema])).rows[0]!.n),
    close: () => client.end(),
    ph: (i) => `$${i}`,
    table: (name) => `"${schema}".${name}`,
    numbers: (from, to) => `(SELECT generate_series(${from}::bigint, ${to}::bigint) AS i)`,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const machine = machineInfo();
console.log(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverage}, node ${machine.node}; store ${kind}, ${products} products, `
  + `${sessions} sessions through the engine; history: ${views} views, ${purchases} purchases, ${clicks} clicks, ${searches} searches`);
const dataDir = reuse ?? mkdtempSync(path.join(tmpdir(), 'aisle-restart-history-'));
const schema = option('schema') ?? `aisle_bench_history_${process.pid}`;
const store: RestartStore = kind === 'postgres' ? { type: 'postgres', url: pgUrl, schema } : undefined;
const runner = async (): Promise<SqlRunner> => (store === undefined ? sqliteRunner(path.join(dataDir, 'aisle.sqlite')) : pgRunner(schema));
const timeoutMs = 3 * 60 * 60_000;

/** Sets a table's sequence so the next row gets `after + 1`. */
async function advance(sql: SqlRunner, table: 'events' | 'clicks', after: number): Promise<void> {
  if (after === 0) return;
  if (store === undefined) await sql.run(`INSERT OR REPLACE INTO sqlite_sequence (name, seq) VALUES (${sql.ph(1)}, ${sql.ph(2)})`, [table, after]);
  else await sql.run(`SELECT setval('${sql.table(table)}_seq_seq', $1)`, [after]);
}

/** Writes rows `1..count` with `insert` (its `$from`/`$to` placeholders), in batches; returns the bytes the store grew by. */
async function fill(sql: SqlRunner, label: string, count: number, insert: (from: number, to: number) => Promise<void>): Promise<number> {
  if (count === 0) return 0;
  const before = await sql.size();
  const started = performance.now();
  for (let from = 1; from <= count; from += BATCH) await insert(from, Math.min(count, from + BATCH - 1));
  const grown = (await sql.size()) - before;
  console.log(`history: ${count} ${label} written in ${s(performance.now() - started)}, ${(grown / count).toFixed(0)} bytes each on disk (with indexes)`);
  return grown;
}

async function startAll(label: string): Promise<StartResult[]> {
  const results: StartResult[] = [];
  for (let i = 0; i < starts; i++) {
    const input: RestartChildInput = { phase: 'start', dataDir, store, hierarchies };
    const r = await runInChild<RestartChildInput, StartResult>('catalog-restart-child', input, { timeoutMs });
    results.push(r);
    const replay = r.log.find((l) => l.message.includes('stored events replayed'));
    const opened = r.log.find((l) => l.message.includes('engine opened'));
    const page = r.firstHierarchyMs === undefined ? '' : `first category page ${s(r.firstHierarchyMs)} (its CPU ${s(r.hierarchyCpuMs!)}), `;
    console.log(`start ${label} ${i + 1}: engine ${s(r.engineCreatedMs)}, ${page}first search ${s(r.firstSearchMs)}, ready ${s(r.readyMs)} `
      + `(CPU at ready ${s(r.cpuMs)}; RSS ${(r.rssBytes / 1e9).toFixed(2)} GB); ${replay?.message ?? 'no replay line'} ${JSON.stringify(replay?.details ?? {})}; `
      + `${opened?.message ?? ''} ${JSON.stringify(opened?.details.steps ?? {})}`);
  }
  return results;
}

try {
  if (reuse !== undefined) {
    await startAll('with history (reused)');
  } else {
    await writeAndStart();
  }
} finally {
  if (keep) {
    console.log(`kept: --reuse ${dataDir}${store === undefined ? '' : ` --schema ${schema}`}`);
  } else {
    rmSync(dataDir, { recursive: true, force: true });
    if (store !== undefined) {
      const sql = await pgRunner(schema);
      await sql.run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`, []);
      await sql.close();
    }
  }
}

/** Steps 1–5 of the header: the store, the recorded sessions, the starts before and after the history. */
async function writeAndStart(): Promise<void> {
  // The tables, then the sequences moved past the history.
  await (await openStore(store, store === undefined ? dataDir : undefined)).close();
  let sql = await runner();
  await advance(sql, 'events', views + purchases);
  await advance(sql, 'clicks', clicks);
  await sql.close();
  const written = await runInChild<RestartChildInput, WriteResult>('catalog-restart-child', { phase: 'write', dataDir, products, sessions, store, hierarchies }, { timeoutMs });
  console.log(`write: ${written.products} products in ${s(written.loadMs)}, ${sessions} sessions in ${s(written.eventsMs)}; checkpoint written at close`);
  sql = await runner();
  if (searches > 0) {
    // The completion evidence a start loads — bounded (the 20,000 queries with the most sessions, at most 20
    // sessions each), not history: written before the first starts, so both sets of starts load the same.
    const now = Date.now();
    await fill(sql, 'query sessions', QUERIES * SESSIONS_PER_QUERY, (from, to) => sql.run(
      `INSERT INTO ${sql.table('query_sessions')} (website_id, query, session, hour)
       SELECT 'shop', 'query ' || (n.i % ${QUERIES}), 'session-' || n.i, ${sql.ph(1)} FROM ${sql.numbers(String(from), String(to))} n`, [now - (now % HOUR_MS)]));
    await sql.run(`INSERT INTO ${sql.table('completion_queries')} (website_id, query, sessions)
      SELECT 'shop', 'query ' || n.i, ${SESSIONS_PER_QUERY} FROM ${sql.numbers('0', String(QUERIES - 1))} n`, []);
  }
  await sql.close();
  await startAll('without history');

  sql = await runner();
  const t = sql.table.bind(sql);
  const template = async (eventKind: string) => (await sql.one<{ seq: number }>(`SELECT MIN(seq) AS seq FROM ${t('events')} WHERE kind = ${sql.ph(1)}`, [eventKind]))?.seq;
  const copyEvents = (templateSeq: number, offset: number) => (from: number, to: number) => sql.run(
    `INSERT INTO ${t('events')} (seq, website_id, kind, order_id, transaction_id, customer_id, session_id, event_time, origin, received_at, payload)
     SELECT n.i + ${offset}, e.website_id, e.kind, CASE WHEN e.kind = 'purchase' THEN 'history-' || n.i END, e.transaction_id, e.customer_id,
       e.session_id, e.event_time, 'history', e.received_at, e.payload FROM ${sql.numbers(String(from), String(to))} n, ${t('events')} e WHERE e.seq = ${sql.ph(1)}`,
    [templateSeq]);
  const viewSeq = await template('view');
  const purchaseSeq = await template('purchase');
  if (viewSeq === undefined || purchaseSeq === undefined) throw new Error('the write phase stored no view or no purchase to copy');
  const viewBytes = await fill(sql, 'views', views, copyEvents(viewSeq, 0));
  await fill(sql, 'purchases', purchases, copyEvents(purchaseSeq, views));
  const now = Date.now();
  const clickPayload = JSON.stringify({ refId: 'SKU-00001', type: 'click', eventTime: new Date(now).toISOString(), eventTimeMs: now, queryId: 'q', position: 3, list: { kind: 'search', source: 'red shirt', variant: null } });
  await fill(sql, 'clicks', clicks, (from, to) => sql.run(
    `INSERT INTO ${t('clicks')} (seq, website_id, click_id, transaction_id, customer_id, session_id, ref_id, event_time, origin, received_at, payload)
     SELECT n.i, 'shop', 'history-' || n.i, 'history-tx-' || (n.i / 3), 'customer-' || (n.i % 100000), 'session-' || (n.i / 5), 'SKU-' || (n.i % ${products}),
       ${sql.ph(1)}, 'history', ${sql.ph(1)}, ${sql.ph(2)} FROM ${sql.numbers(String(from), String(to))} n`, [now, clickPayload]));
  await fill(sql, 'logged searches', searches, (from, to) => sql.run(
    `INSERT INTO ${t('logged_responses')} (query_id, website_id, kind, at, key, counted_as, clicked, converted)
     SELECT 'history-' || n.i, 'shop', 'search', ${sql.ph(1)} - (n.i % 2160) * ${HOUR_MS}, 'query ' || (n.i % ${QUERIES}), NULL, 0, 0
     FROM ${sql.numbers(String(from), String(to))} n`, [now]));
  await sql.close();
  if (views > 0) console.log(`disk per stored view: ${(viewBytes / views).toFixed(0)} bytes`);
  await startAll('with history');
}
