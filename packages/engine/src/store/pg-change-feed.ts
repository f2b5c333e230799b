/**
 * The shared change log of replicas on PostgreSQL, and the catalog snapshots kept beside it. This
 * module knows SQL, not catalogs: a change is a `kind` (`catalog` today; settings, keys or any other
 * replicated state can ride on the same log later with kinds of their own), a website id and a text
 * payload, split over several rows (`part`, `final`) when large, all written in one transaction.
 *
 * Tables (in the store's schema, created at open when missing, under the schema's migration lock):
 * - `change_log (seq, kind, website_id, origin, part, final, payload, created_at)`: `seq` is a
 *   BIGSERIAL. Every append takes a transaction-scoped advisory lock first, so appends of all
 *   replicas commit one after another and sequence numbers become visible in increasing order: a
 *   reader of "rows after my cursor" never skips a row that commits later with a smaller seq.
 *   The append's transaction also sends `NOTIFY aisle_changes` (payload: the schema) on commit.
 * - `catalog_snapshots (website_id, seq, pruned_through, parts, bytes, written_at)` and
 *   `catalog_snapshot_parts (website_id, part, data)`: the latest flatbuffers snapshot of a website's
 *   catalog, in parts of {@link SNAPSHOT_PART_BYTES} (a bytea field is at most 1 GB and travels as a
 *   hex string, so one big value would not fit a JavaScript string), holding every catalog change up
 *   to `seq`. Catalog rows up to `pruned_through` have been deleted from the log: a replica whose
 *   position is older must start from the snapshot again.
 * @module
 */
import pg from 'pg';
import { runPgTransaction } from './pg-transaction.js';
import { GroupCommitter } from './group-commit.js';

/** Changes to append in one transaction, each as its payload parts. */
interface AppendOp { kind: string; websiteId: string; origin: string; changes: readonly (readonly string[])[] }

/**
 * Bytes per stored snapshot part. A bytea travels as hex text twice its size; the driver handles many
 * 1 MB values several times faster than a few big ones (measured: 16 MB read as one value ~1.2 s, as
 * 1 MB slices ~0.5 s), and no text comes near JavaScript's string limit.
 */
export const SNAPSHOT_PART_BYTES = 1 << 20;
/** Snapshot parts read per query. */
const PARTS_PER_READ = 16;
/** A connection attempt gives up after this long instead of waiting on an unreachable server indefinitely. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The NOTIFY channel; the payload names the schema, so several schemas can share a database. */
export const CHANGE_CHANNEL = 'aisle_changes';
/** Advisory lock ids (second key; the first is the schema's hash): 1 = migrations (PostgresStore), 3 = change-log appends, 4 = snapshot writes. */
const APPEND_LOCK = 3;
const SNAPSHOT_LOCK = 4;

const DDL = `
  CREATE TABLE IF NOT EXISTS {s}.change_log (
    seq BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    website_id TEXT NOT NULL,
    origin TEXT NOT NULL,
    part INTEGER NOT NULL DEFAULT 0,
    final BOOLEAN NOT NULL DEFAULT TRUE,
    payload TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
  );
  CREATE INDEX IF NOT EXISTS change_log_kind_website ON {s}.change_log (kind, website_id, seq);
  CREATE TABLE IF NOT EXISTS {s}.catalog_snapshots (
    website_id TEXT PRIMARY KEY,
    seq BIGINT NOT NULL,
    pruned_through BIGINT NOT NULL DEFAULT 0,
    parts INTEGER NOT NULL,
    bytes BIGINT NOT NULL,
    written_at TIMESTAMPTZ NOT NULL DEFAULT now()
  );
  CREATE TABLE IF NOT EXISTS {s}.catalog_snapshot_parts (
    website_id TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (website_id, part)
  );`;

/** One row of the change log, as read. `payload` is null for the reader's own rows (it has them). */
export interface ChangeRow {
  seq: number;
  kind: string;
  websiteId: string;
  origin: string;
  part: number;
  final: boolean;
  payload: string | null;
}

/** Where a website's stored snapshot stands (without its bytes). */
export interface SnapshotMark {
  websiteId: string;
  /** The last change-log seq the snapshot holds. */
  seq: number;
  /** Catalog rows of this website up to this seq are deleted from the log. */
  prunedThrough: number;
  bytes: number;
}

/** Options of {@link PgChangeFeed.open}. */
export interface PgChangeFeedOptions {
  url: string;
  schema: string;
  /** Connections in the pool (default 3); the LISTEN connection is one more. */
  poolSize?: number;
}

/** The change log and snapshot tables of one schema; see the module comment. */
export class PgChangeFeed {
  private listener: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(private readonly pool: pg.Pool, private readonly options: PgChangeFeedOptions) {}

  private get s(): string {
    return `"${this.options.schema}"`;
  }

  /** Connects and creates the tables when missing. */
  static async open(options: PgChangeFeedOptions): Promise<PgChangeFeed> {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(options.schema)) throw new Error(`postgres schema "${options.schema}" must be letters, digits and _ (at most 63)`);
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 3, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    pool.on('error', () => { /* an idle client died; the pool replaces it on next use */ });
    const feed = new PgChangeFeed(pool, options);
    try {
      await feed.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), 1)', [options.schema]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${feed.s}`);
        await client.query(DDL.replaceAll('{s}', feed.s));
      });
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return feed;
  }

  /**
   * A pooled connection whose loss while checked out (e.g. during a snapshot's encoding, between two
   * queries) is not an uncaught 'error' event: the next query on it fails instead.
   */
  private async checkout(): Promise<pg.PoolClient & { done(broken?: Error): void }> {
    const client = await this.pool.connect();
    const ignore = (): void => { /* surfaces as the failure of the next query */ };
    client.on('error', ignore);
    return Object.assign(client, {
      done: (broken?: Error) => {
        client.off('error', ignore);
        client.release(broken);
      },
    });
  }

  private async transaction<T>(work: (client: pg.ClientBase) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.checkout();
    return runPgTransaction(client, begin, work, (broken) => client.done(broken));
  }


  /**
   * Appends changes (each its payload parts in order) in one transaction and notifies the replicas;
   * resolves with the seq of the last row once committed (durable). Appends made while a transaction
   * is being written are group-committed together in the next one (one commit, one fsync, for a burst).
   */
  append(kind: string, websiteId: string, origin: string, changes: readonly (readonly string[])[]): Promise<number> {
    if (changes.length === 0 || changes.some((parts) => parts.length === 0)) return Promise.reject(new Error('an append has at least one change, a change at least one part'));
    return this.appends.submit({ kind, websiteId, origin, changes });
  }

  private readonly appends = new GroupCommitter<AppendOp, number>((ops) => this.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), $2)', [this.options.schema, APPEND_LOCK]);
    const seqs: number[] = [];
    // One statement per part, in order (under the lock, so a change's rows get consecutive seqs in part
    // order): a plain text parameter each, not one array literal the driver would escape whole.
    for (const op of ops) {
      let last = 0;
      for (const parts of op.changes) {
        for (let part = 0; part < parts.length; part++) {
          const { rows } = await client.query<{ seq: string }>(
            `INSERT INTO ${this.s}.change_log (kind, website_id, origin, part, final, payload) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`,
            [op.kind, op.websiteId, op.origin, part, part === parts.length - 1, parts[part]]);
          last = Number(rows[0]!.seq);
        }
      }
      seqs.push(last);
    }
    await client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, this.options.schema]);
    return seqs;
  }), 100);

  /**
   * Rows after `afterSeq` in seq order, at most `limit` (the rest of a change cut by the limit comes
   * with the next call), of one website when `websiteId` is given. Payloads of rows whose origin
   * starts with `omitPayloadOf` are left out (null): the writer has them in memory.
   */
  async read(afterSeq: number, limit: number, omitPayloadOf: string | undefined, websiteId?: string): Promise<ChangeRow[]> {
    const { rows } = await this.pool.query<{ seq: string; kind: string; website_id: string; origin: string; part: number; final: boolean; payload: string | null }>(
      `SELECT seq, kind, website_id, origin, part, final,
         CASE WHEN $3::text IS NOT NULL AND starts_with(origin, $3::text) THEN NULL ELSE payload END AS payload
       FROM ${this.s}.change_log WHERE seq > $1 AND ($4::text IS NULL OR website_id = $4::text) ORDER BY seq LIMIT $2`,
      [afterSeq, limit, omitPayloadOf ?? null, websiteId ?? null]);
    return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, websiteId: r.website_id, origin: r.origin, part: r.part, final: r.final, payload: r.payload }));
  }

  /** The highest seq committed so far (0 when empty). */
  async lastSeq(): Promise<number> {
    const { rows } = await this.pool.query<{ seq: string | null }>(`SELECT MAX(seq) AS seq FROM ${this.s}.change_log`);
    return rows[0]?.seq == null ? 0 : Number(rows[0].seq);
  }

  /** Where every website's stored snapshot stands. */
  async snapshotMarks(): Promise<SnapshotMark[]> {
    const { rows } = await this.pool.query<{ website_id: string; seq: string; pruned_through: string; bytes: string }>(
      `SELECT website_id, seq, pruned_through, bytes FROM ${this.s}.catalog_snapshots`);
    return rows.map((r) => ({ websiteId: r.website_id, seq: Number(r.seq), prunedThrough: Number(r.pruned_through), bytes: Number(r.bytes) }));
  }

  /** The latest stored snapshot of a website (read in one consistent view), or undefined. */
  async readSnapshot(websiteId: string): Promise<{ seq: number; data: Uint8Array } | undefined> {
    const read = await this.transaction(async (client) => {
      const head = await client.query<{ seq: string; parts: number; bytes: string }>(
        `SELECT seq, parts, bytes FROM ${this.s}.catalog_snapshots WHERE website_id = $1`, [websiteId]);
      const mark = head.rows[0];
      if (mark === undefined) return undefined;
      const data = new Uint8Array(Number(mark.bytes));
      let at = 0;
      for (let from = 0; from < mark.parts; from += PARTS_PER_READ) {
        const { rows } = await client.query<{ part: number; data: Buffer }>(
          `SELECT part, data FROM ${this.s}.catalog_snapshot_parts WHERE website_id = $1 AND part >= $2 AND part < $3 ORDER BY part`,
          [websiteId, from, from + PARTS_PER_READ]);
        rows.forEach((row, i) => {
          if (row.part !== from + i) throw new Error(`catalog snapshot of "${websiteId}" lacks part ${from + i}`);
          data.set(row.data, at);
          at += row.data.length;
        });
        if (rows.length !== Math.min(PARTS_PER_READ, mark.parts - from)) throw new Error(`catalog snapshot of "${websiteId}" lacks parts after ${from + rows.length - 1}`);
      }
      return { seq: Number(mark.seq), data, at };
    }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    if (read === undefined) return undefined;
    if (read.at !== read.data.length) throw new Error(`catalog snapshot of "${websiteId}" has ${read.at} bytes, expected ${read.data.length}`);
    return { seq: read.seq, data: read.data };
  }


  /**
   * Stores a snapshot holding the catalog changes of `websiteId` up to `seq`, unless another replica
   * is writing one right now (advisory lock, not waited for) or the stored one is as recent: then
   * resolves false without calling `encode`. On success the catalog rows the *previous* snapshot held
   * are deleted from the log (the rows between the two stay, so a replica slightly behind catches up
   * from the log instead of reloading a snapshot).
   */
  async writeSnapshot(websiteId: string, seq: number, encode: () => Promise<Uint8Array>): Promise<boolean> {
    return this.transaction(async (client) => {
      const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1), $2) AS ok', [`${this.options.schema}/${websiteId}`, SNAPSHOT_LOCK]);
      if (!lock[0]?.ok) return false;
      const { rows } = await client.query<{ seq: string; pruned_through: string }>(
        `SELECT seq, pruned_through FROM ${this.s}.catalog_snapshots WHERE website_id = $1`, [websiteId]);
      const previous = rows[0] === undefined ? undefined : { seq: Number(rows[0].seq), prunedThrough: Number(rows[0].pruned_through) };
      if (previous !== undefined && previous.seq >= seq) return false;
      const bytes = await encode();
      const parts = Math.max(1, Math.ceil(bytes.length / SNAPSHOT_PART_BYTES));
      await client.query(`DELETE FROM ${this.s}.catalog_snapshot_parts WHERE website_id = $1`, [websiteId]);
      for (let part = 0; part < parts; part++) {
        const slice = bytes.subarray(part * SNAPSHOT_PART_BYTES, Math.min(bytes.length, (part + 1) * SNAPSHOT_PART_BYTES));
        await client.query(`INSERT INTO ${this.s}.catalog_snapshot_parts (website_id, part, data) VALUES ($1, $2, $3)`,
          [websiteId, part, Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength)]);
      }
      const prunedThrough = Math.max(previous?.prunedThrough ?? 0, previous?.seq ?? 0);
      await client.query(
        `INSERT INTO ${this.s}.catalog_snapshots (website_id, seq, pruned_through, parts, bytes, written_at) VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (website_id) DO UPDATE SET seq = EXCLUDED.seq, pruned_through = EXCLUDED.pruned_through, parts = EXCLUDED.parts,
           bytes = EXCLUDED.bytes, written_at = EXCLUDED.written_at`,
        [websiteId, seq, prunedThrough, parts, bytes.length]);
      if (prunedThrough > 0) {
        await client.query(`DELETE FROM ${this.s}.change_log WHERE kind = 'catalog' AND website_id = $1 AND seq <= $2`, [websiteId, prunedThrough]);
      }
      return true;
    });
  }

  /**
   * Calls `wake` on every NOTIFY of this schema, over a connection of its own, reconnecting after a
   * loss (`onError` hears of each failure; polling covers the gap).
   */
  listen(wake: () => void, onError: (err: unknown) => void): void {
    // Reported once per outage, not at every reconnection attempt.
    let failing = false;
    const connect = async (): Promise<void> => {
      if (this.closed) return;
      const client = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      const retry = (err: unknown): void => {
        if (this.listener === client) this.listener = undefined;
        client.removeAllListeners();
        client.on('error', () => undefined);
        void client.end().catch(() => undefined);
        if (this.closed) return;
        if (!failing) onError(err);
        failing = true;
        clearTimeout(this.reconnectTimer);
        this.reconnectTimer = setTimeout(() => void connect(), 1000);
        this.reconnectTimer.unref();
      };
      client.on('error', retry);
      client.on('end', () => { if (this.listener === client) retry(new Error('the LISTEN connection ended')); });
      client.on('notification', (message) => { if (message.payload === this.options.schema) wake(); });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANGE_CHANNEL}`);
        if (this.closed) { await client.end(); return; }
        this.listener = client;
        failing = false;
        // Changes committed while this connection was down are picked up now.
        wake();
      } catch (err) {
        retry(err);
      }
    };
    void connect();
  }

  /** Stops listening and closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      listener.removeAllListeners();
      listener.on('error', () => undefined);
      await listener.end().catch(() => undefined);
    }
    await this.pool.end();
  }
}
