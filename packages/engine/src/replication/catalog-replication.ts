/**
 * Catalogs shared by replicas on PostgreSQL, the PostgreSQL store's {@link SharedCatalogs}. Every
 * catalog change made through any replica is first appended to the shared change log (each website's
 * {@link PgCatalogChangeLog} over `store/pg-change-feed.ts`, kind `catalog`), and every replica —
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
import type { LoggedChange } from '../catalog/durability/catalog-change-log.js';
import { mergeProductPatches } from '../catalog/changes/merge-patch.js';
import { readProducts, readReplacement } from '../catalog/input/read-products.js';
import { withEarlierSkips } from '../catalog/input/skip-report.js';
import { productsOf } from '../catalog/columns/product-store.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshotInSlices } from '../catalog/durability/snapshot.js';
import { liveProductList } from '../catalog/changes/tombstones.js';
import { PgChangeFeed, type ChangeRow } from '../store/pg-change-feed.js';
import type { Product } from '../types.js';
import { randomGuid } from '../util/ids.js';
import {
  completeChanges, decodeChange, PAGE, PgCatalogChangeLog, type ReadChange, type ReplicatedChange,
} from './pg-catalog-change-log.js';
import type { ReplicationTask, SharedCatalogs } from '../store/shared-catalogs.js';

/** Default interval between snapshot attempts (each replica tries; one writes). */
export const DEFAULT_CATALOG_SNAPSHOT_INTERVAL_MS = 30_000;
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
  /** The website's change log and stored snapshot. */
  log: PgCatalogChangeLog;
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

/** The replicated catalogs of one engine; see the module comment. */
export class CatalogReplication implements SharedCatalogs {
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
    const log = new PgCatalogChangeLog(this.feed, websiteId, this.origin);
    const snapshot = await log.loadSnapshot();
    let catalog: Catalog;
    if (snapshot === undefined) catalog = new Catalog(options);
    else catalog = Catalog.fromState(options, decodeCatalogSnapshot(snapshot.data, snapshot.label).makeState);
    const seq = snapshot?.position ?? 0;
    this.sites.set(websiteId, { websiteId, catalog, log, applied: seq, snapshotSeq: seq });
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
        const changes = completeChanges(rows, []);
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
    const { products, skipped } = await readProducts(source, options, undefined, site.catalog.fit());
    if (products.length === 0) return { loaded: 0, skipped: skipped.first, skippedCount: skipped.count, catalogSize: site.catalog.liveCount };
    const { catalogSize } = await this.write(websiteId, { kind: 'upsert', products }) as ChangeResult;
    return { loaded: products.length, skipped: skipped.first, skippedCount: skipped.count, catalogSize };
  }

  /** Replace through the log. */
  async replace(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const site = this.site(websiteId);
    const { products, skipped } = await readReplacement(source, options, site.catalog.fieldTypes);
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
    const { products: patches, skipped } = await readProducts(source, options, positions, site.catalog.fit());
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
      await this.site(websiteId).log.append([change], `${this.origin}:${localId}`);
    } catch (err) {
      // Not committed (or unknown: then the applier finds the row without its local entry and reads its payload).
      this.own.delete(localId);
      throw err;
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
          const { complete, partial } = completeChanges(rows, this.partial);
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
      const snapshot = await site.log.loadSnapshot();
      if (snapshot === undefined || snapshot.position <= site.applied) continue;
      // The snapshot's live products (tombstoned ones are not part of it), decoded from its columns as
      // stored: the replace analyses them (a snapshot of another text analysis is not built again here).
      const state = decodeCatalogSnapshot(snapshot.data, snapshot.label).makeStoredState(site.catalog.id);
      await site.catalog.replay([{ kind: 'replace', products: productsOf(liveProductList(state)) }]);
      site.applied = snapshot.position;
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
          if (await site.log.saveSnapshot(seq, () => encodeCatalogSnapshotInSlices(state))) site.snapshotSeq = seq;
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
