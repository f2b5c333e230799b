/**
 * Catalogs shared by replicas on PostgreSQL. Every catalog change made through any replica is first
 * appended to the shared change log (`store/pg-change-feed.ts`, kind `catalog`), and every replica —
 * the writer included — applies the log in sequence order, so all replicas apply the same changes in
 * the same order and converge to the same catalog. A change is acknowledged once it is committed in
 * PostgreSQL (durable) and applied on the replica that took it; the others are woken by
 * LISTEN/NOTIFY and, as the fallback, poll every `pollIntervalMs`.
 *
 * Applying is a thin caller of the catalog's own functions: the changes read together go to
 * {@link Catalog.replay} as one batch (one build for a burst, as at a restart); a patch is merged with
 * the catalog's merge (`merge-patch.ts`) on each replica against the same preceding changes, so a
 * patch never overwrites a concurrent change made through another replica.
 *
 * Start: each website's catalog is loaded from the latest snapshot stored in PostgreSQL (or empty),
 * then the log after it is applied; the engine resolves its creation (and so answers /readyz) only
 * then. One replica at a time (advisory lock) writes a new snapshot every `catalogSnapshotIntervalMs`
 * when changes arrived; the log rows the previous snapshot held are then deleted. A replica that fell
 * behind those deleted rows reloads the snapshot (as a replace) and goes on from there.
 * @module
 */
import { MAX_REPORTED_SKIPS, type LoadOptions, type LoadSummary, type ProductSource, type SkippedLine } from '../engine-api.js';
import { AisleError } from '../errors.js';
import { Catalog, type CatalogOptions, type ChangeResult } from '../catalog/catalog.js';
import type { LoggedChange } from '../catalog/durability/change-log.js';
import { mergeProductPatches } from '../catalog/changes/merge-patch.js';
import { readProducts } from '../catalog/input/read-products.js';
import { withEarlierSkips } from '../catalog/input/skip-report.js';
import { productsOf } from '../catalog/columns/product-store.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshotInSlices } from '../catalog/durability/snapshot.js';
import { liveProductList } from '../catalog/changes/tombstones.js';
import { PgChangeFeed, type ChangeRow } from '../store/pg-change-feed.js';
import type { Product } from '../types.js';
import { randomGuid } from '../util/ids.js';

/** The change-log kind of catalog changes. */
export const CATALOG_KIND = 'catalog';
/** Default interval between snapshot attempts (each replica tries; one writes). */
export const DEFAULT_CATALOG_SNAPSHOT_INTERVAL_MS = 30_000;
/** Rows read per page (at most about PAGE × PART_CHARS of text). */
const PAGE = 100;
/** Target size of one stored payload part (a big replace spans several rows of one transaction; the driver reads many small values faster than a few big ones). */
const PART_CHARS = 1 << 20;

/** A catalog change as replicated: the logged kinds plus a patch (merged on each replica). */
export type ReplicatedChange =
  | LoggedChange
  | { kind: 'patch'; patches: readonly Product[]; positions: readonly number[]; onError: 'reject' | 'skip' };

/** The kinds of background work of the replication whose failures are reported. */
export type ReplicationTask = 'replica-poll' | 'change-log' | 'snapshot-write';

/** `err` with what was being done in front of its message. */
function failure(doing: string, err: unknown): Error {
  return new Error(`${doing}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

/** Options of {@link CatalogReplication.open}. */
export interface CatalogReplicationOptions {
  url: string;
  schema: string;
  /** Fallback poll interval when no NOTIFY arrives (ms). */
  pollIntervalMs: number;
  /** How often a replica tries to store a new snapshot (ms; default 30 s). */
  snapshotIntervalMs?: number;
  /**
   * Hears of every failure of background work: `replica-poll` (reading the log, the LISTEN
   * connection; once per outage), `change-log` (applying changes), `snapshot-write` (storing a snapshot).
   */
  onError: (task: ReplicationTask, err: Error, websiteId?: string) => void;
}

interface Site {
  websiteId: string;
  catalog: Catalog;
  /** Every change of this website with a seq at or below this is in the catalog's current version. */
  applied: number;
  /** The seq of the latest stored snapshot known to this replica. */
  snapshotSeq: number;
}

interface OwnChange {
  change: ReplicatedChange;
  resolve(result: LoadSummary | ChangeResult): void;
  reject(error: unknown): void;
}

/** A complete change read from the log (all its rows). */
interface ReadChange { seq: number; websiteId: string; origin: string; rows: ChangeRow[] }

/** The JSON of one stored part. */
type PartJson =
  | { op: 'upsert' | 'replace'; products: Product[] }
  | { op: 'delete'; refIds: string[] }
  | { op: 'patch'; products: Product[]; positions: number[]; onError: 'reject' | 'skip' };

/** Serialises a change into payload parts of about {@link PART_CHARS} each. Pure. */
export function encodeChange(change: ReplicatedChange): string[] {
  if (change.kind === 'delete') return [JSON.stringify({ op: 'delete', refIds: change.refIds })];
  const products = change.kind === 'patch' ? change.patches : change.products;
  const parts: string[] = [];
  let lines: string[] = [];
  let size = 0;
  let from = 0;
  const flush = (to: number): void => {
    const head = change.kind === 'patch'
      ? `{"op":"patch","onError":${JSON.stringify(change.onError)},"positions":${JSON.stringify(change.positions.slice(from, to))},"products":[`
      : `{"op":${JSON.stringify(change.kind)},"products":[`;
    parts.push(`${head}${lines.join(',')}]}`);
    lines = [];
    size = 0;
    from = to;
  };
  products.forEach((p, i) => {
    const line = JSON.stringify(p);
    if (size > 0 && size + line.length > PART_CHARS) flush(i);
    lines.push(line);
    size += line.length + 1;
  });
  if (lines.length > 0 || parts.length === 0) flush(products.length);
  return parts;
}

/** Joins the parts of a change back into one change. Pure. */
export function decodeChange(parts: readonly string[]): ReplicatedChange {
  const json = parts.map((p) => JSON.parse(p) as PartJson);
  const first = json[0]!;
  if (first.op === 'delete') return { kind: 'delete', refIds: first.refIds };
  const products = json.flatMap((j) => (j as { products: Product[] }).products);
  if (first.op === 'patch') {
    return { kind: 'patch', patches: products, positions: json.flatMap((j) => (j as { positions: number[] }).positions), onError: first.onError };
  }
  return { kind: first.op, products };
}

/** The replicated catalogs of one engine; see the module comment. */
export class CatalogReplication {
  /** This replica's id; its rows carry `<origin>:<local id>` so it recognises its own changes. */
  private readonly origin = randomGuid();
  private readonly sites = new Map<string, Site>();
  private readonly own = new Map<number, OwnChange>();
  private nextLocalId = 0;
  /** Rows up to here have been read. */
  private cursor = 0;
  /** Rows of a change whose last row has not been read yet. */
  private partial: ChangeRow[] = [];
  private running: Promise<void> | undefined;
  private rerun = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotting = false;
  /** Since when reading the log fails (ms), while it does. */
  private failing: number | undefined;
  private closed = false;

  private constructor(private readonly feed: PgChangeFeed, private readonly options: CatalogReplicationOptions) {}

  /** Connects to the change log (tables created when missing). */
  static async open(options: CatalogReplicationOptions): Promise<CatalogReplication> {
    const feed = await PgChangeFeed.open({ url: options.url, schema: options.schema });
    return new CatalogReplication(feed, options);
  }

  /**
   * A website's catalog as of the latest stored snapshot (empty without one). Call for every website
   * before {@link CatalogReplication.start}, which applies the log after it.
   */
  async loadCatalog(websiteId: string, options: CatalogOptions): Promise<Catalog> {
    const snapshot = await this.feed.readSnapshot(websiteId);
    let catalog: Catalog;
    if (snapshot === undefined) catalog = new Catalog(options);
    else {
      catalog = Catalog.fromState(options, decodeCatalogSnapshot(snapshot.data, `postgres snapshot of "${websiteId}"`).makeState);
    }
    const seq = snapshot?.seq ?? 0;
    this.sites.set(websiteId, { websiteId, catalog, applied: seq, snapshotSeq: seq });
    return catalog;
  }

  /**
   * Applies the log after the loaded snapshots (resolving once the catalogs hold every change
   * committed before the call), then listens for NOTIFY, polls, and writes snapshots in the background.
   */
  async start(): Promise<void> {
    const applied = [...this.sites.values()].map((s) => s.applied);
    this.cursor = applied.length > 0 ? Math.min(...applied) : await this.feed.lastSeq();
    await this.catchUp();
    this.feed.listen(() => this.wake(), (err) => this.options.onError('replica-poll', failure('the LISTEN connection to PostgreSQL', err)));
    this.pollTimer = setInterval(() => this.wake(true), this.options.pollIntervalMs);
    this.pollTimer.unref();
    const interval = this.options.snapshotIntervalMs ?? DEFAULT_CATALOG_SNAPSHOT_INTERVAL_MS;
    this.snapshotTimer = setInterval(() => void this.writeSnapshots(), interval);
    this.snapshotTimer.unref();
  }

  /**
   * Adds a website after the start: its snapshot, then its changes up to the cursor, applied in the
   * applier's turn (so nothing is applied twice or skipped).
   */
  async addWebsite(websiteId: string, options: CatalogOptions): Promise<Catalog> {
    let catalog!: Catalog;
    await this.exclusive(async () => {
      catalog = await this.loadCatalog(websiteId, options);
      const site = this.sites.get(websiteId)!;
      while (site.applied < this.cursor) {
        const rows = (await this.feed.read(site.applied, PAGE, `${this.origin}:`, websiteId)).filter((r) => r.seq <= this.cursor);
        if (rows.length === 0) break;
        await this.reloadPruned(site);
        const changes = this.completeChanges(rows, []);
        await this.applySite(site, changes.complete.filter((c) => this.keep(site, c)));
        site.applied = changes.partial.length > 0 ? changes.partial[0]!.seq - 1 : rows.at(-1)!.seq;
        if (changes.partial.length > 0) { this.partial.push(...changes.partial); break; }
      }
      site.applied = Math.max(site.applied, this.cursor);
    });
    return catalog;
  }

  /** Upsert through the log: read and check the source here, log, apply in turn. */
  async upsert(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const site = this.site(websiteId);
    const { products, skipped } = await readProducts(source, options);
    if (products.length === 0) return { loaded: 0, skipped: skipped.first, skippedCount: skipped.count, catalogSize: site.catalog.liveCount };
    const { catalogSize } = await this.write(websiteId, { kind: 'upsert', products }) as ChangeResult;
    return { loaded: products.length, skipped: skipped.first, skippedCount: skipped.count, catalogSize };
  }

  /** Replace through the log. */
  async replace(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    this.site(websiteId);
    const { products, skipped } = await readProducts(source, options);
    const { catalogSize } = await this.write(websiteId, { kind: 'replace', products }) as ChangeResult;
    return { loaded: products.length, skipped: skipped.first, skippedCount: skipped.count, catalogSize };
  }

  /**
   * Delete through the log. Logged even when this replica does not know the refIds: one created a
   * moment ago through another replica may not be applied here yet, and the log decides.
   */
  async delete(websiteId: string, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }> {
    this.site(websiteId);
    const { count, catalogSize } = await this.write(websiteId, { kind: 'delete', refIds: refIds.slice() }) as ChangeResult;
    return { deleted: count, catalogSize };
  }

  /**
   * Patch through the log. Whether each refId exists is decided where the patch is applied, in log
   * order, identically on every replica (a product created a moment ago through another replica may
   * not be applied here yet); with `onError: 'reject'` a patch naming an unknown refId is answered
   * with the error and changes nothing anywhere.
   */
  async patch(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const site = this.site(websiteId);
    const onError = options?.onError ?? 'reject';
    const positions: number[] = [];
    const { products: patches, skipped } = await readProducts(source, options, positions);
    if (patches.length === 0) return { loaded: 0, skipped: skipped.first, skippedCount: skipped.count, catalogSize: site.catalog.liveCount };
    const summary = await this.write(websiteId, { kind: 'patch', patches, positions, onError }) as LoadSummary;
    return withEarlierSkips(summary, skipped);
  }

  private site(websiteId: string): Site {
    const site = this.sites.get(websiteId);
    if (site === undefined) throw new AisleError('WEBSITE_NOT_FOUND', `unknown website_id "${websiteId}"`);
    return site;
  }

  /** Logs a change (durable in PostgreSQL), then resolves with its result once this replica applied it. */
  private async write(websiteId: string, change: ReplicatedChange): Promise<LoadSummary | ChangeResult> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const localId = ++this.nextLocalId;
    const applied = new Promise<LoadSummary | ChangeResult>((resolve, reject) => this.own.set(localId, { change, resolve, reject }));
    // The applier may settle it (a NOTIFY or a poll reads the committed row) before `append` below
    // returns and the caller awaits it: a rejection then must not count as unhandled (it would end the
    // process). The caller still receives it through the `return applied` below.
    applied.catch(() => undefined);
    try {
      await this.feed.append(CATALOG_KIND, websiteId, `${this.origin}:${localId}`, encodeChange(change));
    } catch (err) {
      // Not committed (or unknown: then the applier finds the row without its local entry and reads its payload).
      this.own.delete(localId);
      throw new AisleError('STORE_FAILURE', `the catalog change could not be written to PostgreSQL; it is not acknowledged: ${(err as Error).message}`, { cause: err });
    }
    this.wake();
    return applied;
  }

  /** Runs the applier now (or once more after the current run). `poll` also checks for pruned rows. */
  private wake(poll = false): void {
    if (this.closed) return;
    void this.catchUp(poll).then(
      () => { this.failing = undefined; },
      (err: unknown) => {
        // Reported once per outage, not at every poll while PostgreSQL is away.
        if (this.failing === undefined) this.options.onError('replica-poll', failure('reading the catalog change log', err));
        this.failing ??= Date.now();
      },
    );
  }

  /** Runs `work` when no catch-up runs (and none starts meanwhile). */
  private async exclusive(work: () => Promise<void>): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    const run = work();
    this.running = run;
    try {
      await run;
    } finally {
      if (this.running === run) this.running = undefined;
      // A wake-up that came meanwhile was deferred to after this work.
      if (this.rerun) this.wake();
    }
  }

  /** Reads and applies every row committed so far; concurrent calls share one run (and one more after it). */
  private async catchUp(checkPruned = false): Promise<void> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    const run = (async () => {
      do {
        this.rerun = false;
        if (checkPruned) await this.reloadPruned();
        checkPruned = false;
        for (;;) {
          const rows = await this.feed.read(this.cursor, PAGE, `${this.origin}:`);
          if (rows.length === 0) break;
          // Checked after the read: rows pruned before it (a replica two snapshots behind — say one
          // that was busy loading the first snapshot while two more were written) show here as a
          // pruned mark beyond its position, and the snapshot replaces what the gap would have lost.
          await this.reloadPruned();
          const { complete, partial } = this.completeChanges(rows, this.partial);
          this.partial = partial;
          this.cursor = rows.at(-1)!.seq;
          const bySite = new Map<Site, ReadChange[]>();
          for (const change of complete) {
            const site = this.sites.get(change.websiteId);
            if (site === undefined || !this.keep(site, change)) continue;
            let list = bySite.get(site);
            if (!list) bySite.set(site, list = []);
            list.push(change);
          }
          await Promise.all([...bySite].map(([site, changes]) => this.applySite(site, changes)));
          const through = this.partial.length > 0 ? this.partial[0]!.seq - 1 : this.cursor;
          for (const site of this.sites.values()) site.applied = Math.max(site.applied, through);
          if (rows.length < PAGE) break;
        }
      } while (this.rerun && !this.closed);
    })();
    this.running = run;
    try {
      await run;
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Whether a change read from the log is still to be applied to `site`: not when the catalog already
   * holds it (its seq is at or below the site's position, e.g. after a snapshot reload). This
   * replica's own change held by a reloaded snapshot is stored and applied, so its caller is answered:
   * with the counts as requested (every product of an upsert or replace, every refId of a delete,
   * every patch), since the snapshot does not say what each change found.
   */
  private keep(site: Site, change: ReadChange): boolean {
    if (change.seq > site.applied) return true;
    const own = this.ownOf(change)?.own;
    if (own !== undefined) {
      const catalogSize = site.catalog.liveCount;
      const c = own.change;
      this.settle(change, (o) => o.resolve(c.kind === 'patch'
        ? { loaded: c.patches.length, skipped: [], skippedCount: 0, catalogSize }
        : { count: c.kind === 'delete' ? c.refIds.length : c.products.length, catalogSize }));
    }
    return false;
  }

  /** Groups rows (after the rows of a change already begun) into complete changes and the rest. */
  private completeChanges(rows: readonly ChangeRow[], begun: readonly ChangeRow[]): { complete: ReadChange[]; partial: ChangeRow[] } {
    const complete: ReadChange[] = [];
    let current = [...begun];
    for (const row of rows) {
      if (row.kind !== CATALOG_KIND) continue;
      current.push(row);
      // The rows of one change are consecutive (one statement under the append lock); it is complete
      // once its final part and every part before it are here.
      const final = current.find((r) => r.final);
      if (final !== undefined && current.length === final.part + 1) {
        current.sort((x, y) => x.part - y.part);
        complete.push({ seq: Math.max(...current.map((r) => r.seq)), websiteId: row.websiteId, origin: row.origin, rows: current });
        current = [];
      }
    }
    return { complete, partial: current };
  }

  /** The own change a row names, if it is this replica's and still waited for. */
  private ownOf(change: ReadChange): { localId: number; own?: OwnChange } | undefined {
    const prefix = `${this.origin}:`;
    if (!change.origin.startsWith(prefix)) return undefined;
    const localId = Number(change.origin.slice(prefix.length));
    return { localId, own: this.own.get(localId) };
  }

  /**
   * Applies one website's changes in order, as one {@link Catalog.replay} (one build for the lot, as
   * at a restart). A patch is merged here with the catalog's own merge ({@link mergeProductPatches})
   * against the products as the changes before it in this batch leave them, and goes in as the
   * upsert of the merged products (so a numbers-only patch still takes the value-patch path).
   */
  private async applySite(site: Site, changes: readonly ReadChange[]): Promise<void> {
    // The products as the changes taken so far leave them: changed ones here (null: deleted), the
    // others in the catalog (unless a replace came first).
    const overlay = new Map<string, Product | null>();
    let replaced = false;
    const lookup = (refId: string): Product | undefined => {
      const changed = overlay.get(refId);
      if (changed !== undefined) return changed ?? undefined;
      return replaced ? undefined : site.catalog.getProduct(refId);
    };
    const batch: { change: LoggedChange; read: ReadChange; patchSkipped?: SkippedLine[] }[] = [];
    for (const read of changes) {
      const change = await this.changeOf(read);
      if (change.kind === 'patch') {
        let merged;
        try {
          merged = mergeProductPatches(change.patches, change.positions, lookup, change.onError);
        } catch (err) {
          // A patch naming a product deleted meanwhile fails the same way on every replica: it changes nothing.
          this.settle(read, (own) => own.reject(err));
          continue;
        }
        for (const p of merged.products) overlay.set(p.refId, p);
        batch.push({ change: { kind: 'upsert', products: merged.products }, read, patchSkipped: merged.skipped });
        continue;
      }
      if (change.kind === 'replace') {
        overlay.clear();
        replaced = true;
      }
      if (change.kind === 'delete') for (const refId of change.refIds) overlay.set(refId, null);
      else for (const p of change.products) overlay.set(p.refId, p);
      batch.push({ change, read });
    }
    if (batch.length === 0) return;
    try {
      const results = await site.catalog.replay(batch.map((b) => b.change));
      batch.forEach((b, i) => this.settle(b.read, (own) => own.resolve(b.patchSkipped === undefined
        ? results[i]!
        : { loaded: results[i]!.count, skipped: b.patchSkipped.slice(0, MAX_REPORTED_SKIPS), skippedCount: b.patchSkipped.length, catalogSize: results[i]!.catalogSize })));
    } catch (err) {
      this.options.onError('change-log', failure('applying catalog changes', err), site.websiteId);
      for (const b of batch) this.settle(b.read, (own) => own.reject(err));
    }
  }

  private settle(read: ReadChange, action: (own: OwnChange) => void): void {
    const mine = this.ownOf(read);
    if (mine?.own === undefined) return;
    this.own.delete(mine.localId);
    action(mine.own);
  }

  /** The change a read holds: this replica's own from memory, another's from its payload. */
  private async changeOf(read: ReadChange): Promise<ReplicatedChange> {
    const own = this.ownOf(read)?.own;
    if (own !== undefined) return own.change;
    let payloads = read.rows.map((r) => r.payload);
    if (payloads.some((p) => p === null)) {
      // This replica's row whose append reported a failure after all (the commit's answer was lost).
      const first = read.rows[0]!.seq;
      const rows = await this.feed.read(first - 1, read.rows.length, undefined, read.websiteId);
      payloads = rows.filter((r) => r.seq <= read.seq).map((r) => r.payload);
    }
    return decodeChange(payloads as string[]);
  }

  /**
   * Reloads, as a replace, the snapshot of each website (or of `only`) whose log rows after its
   * position were pruned.
   */
  private async reloadPruned(only?: Site): Promise<void> {
    for (const mark of await this.feed.snapshotMarks()) {
      const site = this.sites.get(mark.websiteId);
      if (site === undefined || (only !== undefined && site !== only)) continue;
      site.snapshotSeq = Math.max(site.snapshotSeq, mark.seq);
      if (mark.prunedThrough <= site.applied) continue;
      const snapshot = await this.feed.readSnapshot(site.websiteId);
      if (snapshot === undefined || snapshot.seq <= site.applied) continue;
      // The snapshot's live products (tombstoned ones are not part of it), decoded from its columns.
      const state = decodeCatalogSnapshot(snapshot.data, `postgres snapshot of "${site.websiteId}"`).makeState(site.catalog.id);
      await site.catalog.replay([{ kind: 'replace', products: productsOf(liveProductList(state)) }]);
      site.applied = snapshot.seq;
    }
  }

  /** One snapshot attempt per website with changes after the stored snapshot (one replica writes). */
  async writeSnapshots(): Promise<void> {
    if (this.snapshotting || this.closed) return;
    this.snapshotting = true;
    try {
      for (const site of this.sites.values()) {
        // Taken together: the version may hold more than `applied` (harmless: replaying a change twice
        // in order gives the same catalog), never less.
        const seq = site.applied;
        const state = site.catalog.state;
        if (seq <= site.snapshotSeq) continue;
        try {
          if (await this.feed.writeSnapshot(site.websiteId, seq, () => encodeCatalogSnapshotInSlices(state))) site.snapshotSeq = seq;
        } catch (err) {
          this.options.onError('snapshot-write', failure('storing the catalog snapshot in PostgreSQL', err), site.websiteId);
        }
      }
    } finally {
      this.snapshotting = false;
    }
  }

  /** Highest seq applied for a website (tests, benchmarks). */
  appliedSeq(websiteId: string): number {
    return this.site(websiteId).applied;
  }

  /** Stops the background work, waits for the applier, closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pollTimer);
    clearInterval(this.snapshotTimer);
    await this.running?.catch(() => undefined);
    for (const own of this.own.values()) own.reject(new AisleError('ENGINE_CLOSED', 'the engine closed before the change was applied'));
    this.own.clear();
    await this.feed.close();
  }
}
