/**
 * What one stored row of a recommendation response costs the embedded store's thread, by table layout:
 * SQLite (WAL, `synchronous = FULL`, as the store opens it), 200,000 rows already in the table, then
 * 40,000 inserted in transactions of 500 (a flush's batch), CPU per row. The layouts: the result list
 * table as it is (`AUTOINCREMENT` sequence, unique (website, id), (website, seq) and (website, created)
 * indexes), without `AUTOINCREMENT`, without the sequence index, keyed by (website, id) without a rowid
 * and no other index, a bare heap (the floor of a row: binding and writing it); the logged-response table
 * as it is and without a rowid. The figures behind decision 0052's "one row instead of two".
 *
 * Run: `node packages/bench/dist/http/store-row-cost.js [--rounds 3]`
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { option } from '../cli-option.js';

const rounds = Number(option('rounds', '3'));
const PREFILLED = 200_000;
const INSERTED = 40_000;
const BATCH = 500;

const listColumns = `website_id TEXT NOT NULL, query_id TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, customer_id TEXT, session_id TEXT,
  variant TEXT, first_position INTEGER NOT NULL, ref_ids TEXT NOT NULL, created_at INTEGER NOT NULL, experiment TEXT`;
const listIndexes = (seq: boolean) => `CREATE UNIQUE INDEX lists_query ON lists (website_id, query_id);
  ${seq ? 'CREATE INDEX lists_seq ON lists (website_id, seq);' : ''}
  CREATE INDEX lists_created ON lists (website_id, created_at);`;
const responseColumns = 'query_id TEXT PRIMARY KEY, website_id TEXT NOT NULL, kind TEXT NOT NULL, at INTEGER NOT NULL, key TEXT NOT NULL, counted_as TEXT, clicked INTEGER NOT NULL, converted INTEGER NOT NULL';
const responseIndex = 'CREATE INDEX responses_age ON responses (website_id, kind, at);';

/** A layout: its schema, and the insert of one row of an id at a time. */
interface Layout { name: string; schema: string; insert: string; values: (queryId: string, at: number) => unknown[] }

const listInsert = 'INSERT INTO lists (website_id, query_id, kind, source, customer_id, session_id, variant, first_position, ref_ids, created_at, experiment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const listValues = (queryId: string, at: number): unknown[] => ['bench', queryId, 'recommendation', 'PopularItems', null, null, null, 1, '["p1234","p5678","p9012"]', at, null];
const responseInsert = "INSERT INTO responses (query_id, website_id, kind, at, key, counted_as, clicked, converted) VALUES (?, ?, 'recommendation', ?, 'PopularItems', NULL, 0, 0) ON CONFLICT (query_id) DO NOTHING";
const responseValues = (queryId: string, at: number): unknown[] => [queryId, 'bench', at];

const layouts: Layout[] = [
  { name: 'result list, as stored', schema: `CREATE TABLE lists (seq INTEGER PRIMARY KEY AUTOINCREMENT, ${listColumns}); ${listIndexes(true)}`, insert: `${listInsert} ON CONFLICT (website_id, query_id) DO NOTHING`, values: listValues },
  { name: 'result list, no AUTOINCREMENT', schema: `CREATE TABLE lists (seq INTEGER PRIMARY KEY, ${listColumns}); ${listIndexes(true)}`, insert: `${listInsert} ON CONFLICT (website_id, query_id) DO NOTHING`, values: listValues },
  { name: 'result list, no sequence index', schema: `CREATE TABLE lists (seq INTEGER PRIMARY KEY, ${listColumns}); ${listIndexes(false)}`, insert: `${listInsert} ON CONFLICT (website_id, query_id) DO NOTHING`, values: listValues },
  { name: 'result list, keyed, no other index', schema: `CREATE TABLE lists (${listColumns}, PRIMARY KEY (website_id, query_id)) WITHOUT ROWID;`, insert: listInsert, values: listValues },
  { name: 'result list, bare heap (floor)', schema: `CREATE TABLE lists (${listColumns});`, insert: listInsert, values: listValues },
  { name: 'logged response, as stored', schema: `CREATE TABLE responses (${responseColumns}); ${responseIndex}`, insert: responseInsert, values: responseValues },
  { name: 'logged response, without rowid', schema: `CREATE TABLE responses (${responseColumns}) WITHOUT ROWID; ${responseIndex}`, insert: responseInsert, values: responseValues },
];

/** Ids shaped as the engine's (issue time in base 36, 16 random characters, 11 of signature): time-ordered, like the real ones. */
let issued = Date.now() - 10_000_000;
const nextId = (): string => `${(issued++).toString(36)}.${randomBytes(12).toString('base64url')}.${randomBytes(8).toString('base64url').slice(0, 11)}`;

/** CPU per inserted row of one layout, in a fresh database. */
function measure(layout: Layout): number {
  const dir = mkdtempSync(join(tmpdir(), 'aisle-store-row-cost-'));
  const db = new Database(join(dir, 'rows.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(layout.schema);
    const insert = db.prepare(layout.insert);
    const fill = db.transaction((n: number) => { for (let i = 0; i < n; i++) insert.run(layout.values(nextId(), issued)); });
    for (let done = 0; done < PREFILLED; done += 10_000) fill(10_000);
    const ids = Array.from({ length: INSERTED }, nextId);
    const batch = db.transaction((from: number) => { for (let i = from; i < from + BATCH; i++) insert.run(layout.values(ids[i]!, issued)); });
    const t0 = process.cpuUsage();
    for (let from = 0; from < INSERTED; from += BATCH) batch.immediate(from);
    const t = process.cpuUsage(t0);
    return (t.user + t.system) / INSERTED;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const perLayout = new Map<string, number[]>(layouts.map((l) => [l.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const layout of layouts) perLayout.get(layout.name)!.push(measure(layout));
  console.log(`round ${round + 1} done (load ${loadavg().map((x) => x.toFixed(1)).join(' ')})`);
}
for (const [name, us] of perLayout) console.log(`${name.padEnd(36)} ${us.map((x) => x.toFixed(2)).join(' ')} µs CPU/row`);
