/**
 * Derived indexes (attribute features, image vectors) built off the request path.
 *
 * A build is written once as a generator that `yield`s between small steps. It runs
 * - **in the request** (`runSync`) when the catalog is small (at most `syncLimit` live products —
 *   a few milliseconds of work), so small shops and tests see a catalog change at once;
 * - **in time slices** (`runSliced`) otherwise: steps run until the slice (default 8 ms) is used,
 *   then the build awaits the next turn of the loop, so searches, events and other websites run in
 *   between, and the catalog's changes first (`nextBackgroundTurn`).
 *
 * While a sliced build runs, look-ups answer from the previous index (the caller filters its results
 * against the live catalog: deleted products are never returned); before the very first index
 * exists, `get()` returns `undefined` and the tactic answers nothing, so the cascade moves on to its
 * next tactic. A finished build is swapped in at once; when the catalog changed again meanwhile,
 * the next look-up starts another build (which reuses the rows of unchanged products).
 * @module
 */
import type { CatalogView, ProductList } from '../types.js';
import { runInSlices, SLICE_MS } from '../catalog/build/time-slices.js';
import { runSteps } from '../catalog/steps.js';

/** Steps of a build: yields between steps, returns the index. */
export type BuildSteps<T> = Generator<void, T, void>;

/**
 * Rows between two yields of a build's passes that do one array write per row (an index's row → item
 * map, a counting sort): unsliced, such passes held the loop 80–120 ms at 1M products
 * (docs/benchmarks.md, "Stalls and memory at 1M"). A mask: yield when `(r & WIDE_STEP) === WIDE_STEP`.
 */
export const WIDE_STEP = 65535;

/** Runs a build to its end, synchronously (the catalog's {@link runSteps}: a build's steps are steps). */
export function runSync<T>(steps: BuildSteps<T>): T {
  return runSteps(steps);
}

/** Runs a build in slices of about `sliceMs`, yielding to the event loop between slices. */
export function runSliced<T>(steps: BuildSteps<T>, sliceMs = SLICE_MS): Promise<T> {
  // Background work: never in the caller's turn (a request), one slice per turn of the loop shared with
  // the other background runners, the catalog's changes first (time-slices.ts, `nextBackgroundTurn`).
  return runInSlices(steps, sliceMs, 'background');
}

/** An index built from one catalog version. */
export interface VersionedIndex {
  readonly version: number;
}

/** The state of one derived index, for readiness checks (see {@link BackgroundIndex.status}). */
export interface IndexStatus {
  /** An index exists (possibly of an older catalog version or settings, while its replacement is built). */
  built: boolean;
  /** The index answering now reflects the current catalog version and settings. */
  upToDate: boolean;
  /** A background build is running. */
  building: boolean;
  /** Live products of the catalog version the index answering now was built from (0 when none). */
  builtFrom: number;
  /** The message of the last failed build, until a build succeeds. */
  error?: string;
}

/**
 * Whether an index may serve (pure): built for the current catalog, or a rebuild running while an index
 * of a non-empty earlier version answers (no empty window after a change); not before the first build
 * of a catalog that has products, and not after a failed build. `reason` says why not.
 */
export function indexReadiness(name: string, status: IndexStatus, liveCount: number): { ready: boolean; reason?: string } {
  if (status.error !== undefined) return { ready: false, reason: `${name} index build failed: ${status.error}` };
  if (!status.built) return { ready: false, reason: `${name} index not built yet${status.building ? ' (building)' : ''}` };
  if (status.upToDate || status.builtFrom > 0 || liveCount === 0) return { ready: true };
  return { ready: false, reason: `${name} index of the loaded catalog not built yet${status.building ? ' (building)' : ''}` };
}

/**
 * Builds `(previous, products, version) → index`, rebuilding when `catalog.version` changes (or
 * {@link invalidate} is called): synchronously for small catalogs, in the background (time-sliced)
 * otherwise. {@link refresh} starts that work eagerly — the owner calls it when the catalog changes,
 * so no look-up ever triggers a build and the same request gets the same answer — and `get()` still
 * starts it for catalogs that do not announce their changes.
 */
export class BackgroundIndex<T extends VersionedIndex> {
  private current: T | undefined;
  /** Settings generation the current index was built under; {@link invalidate} moves `generation` on. */
  private currentGeneration = 0;
  private generation = 0;
  private currentRows = 0;
  private building: Promise<void> | undefined;
  private lastError: unknown;
  /** Number of builds finished (for tests and stats). */
  builds = 0;
  /** Called with each failed build (the engine logs and counts it as `index-build`); the previous index keeps answering. */
  onError: ((error: unknown) => void) | undefined;
  /** While true, no background build starts (see {@link hold}). */
  private held = false;

  /**
   * `rebase` (optional) carries an index over to a newer catalog version when the changes since its own
   * cannot have changed it (see {@link CatalogView.valuesOnlyChangedSince}), instead of a rebuild.
   */
  constructor(
    private readonly catalog: CatalogView,
    private readonly build: (previous: T | undefined, products: ProductList, version: number) => BuildSteps<T>,
    private readonly syncLimit: number,
    private readonly sliceMs = 8,
    private readonly rebase?: (previous: T, version: number) => T | undefined,
  ) {}

  /** Whether the current index is of the current catalog version and settings generation. */
  private fresh(version: number): boolean {
    return this.current !== undefined && this.current.version === version && this.currentGeneration === this.generation;
  }

  /** The current index carried over to `version`, when `rebase` allows it. */
  private rebased(version: number): T | undefined {
    if (this.current === undefined || this.rebase === undefined || this.current.version >= version) return undefined;
    if (this.currentGeneration !== this.generation) return undefined;
    const next = this.rebase(this.current, version);
    if (next !== undefined) this.current = next;
    return next;
  }

  private buildNow(version: number): void {
    const products = snapshot(this.catalog);
    const generation = this.generation;
    try {
      this.current = runSync(this.build(this.current, products, version));
    } catch (err) {
      this.lastError = err;
      this.onError?.(err);
      return;
    }
    this.currentGeneration = generation;
    this.currentRows = products.length;
    this.builds++;
    this.lastError = undefined;
  }

  /**
   * The index to answer from, without ever blocking on a large build: the up-to-date one; or, for a
   * small catalog, one built now; or the previous one (possibly of an older catalog version —
   * filter its results against the live catalog) while a background build runs; `undefined` before
   * the first build finishes.
   */
  get(): T | undefined {
    this.refresh();
    return this.current;
  }

  /** The index answering now, as it is (no refresh started): its identity changes when a build swaps it. */
  peek(): T | undefined {
    return this.current;
  }

  /**
   * Brings the index up to date with the catalog and settings, or starts doing so: nothing when it is;
   * a carry-over when the changes cannot have changed it; a synchronous build for a small catalog;
   * else a background build (unless one is running). Build failures are kept for {@link status}.
   */
  refresh(): void {
    const version = this.catalog.version;
    if (this.fresh(version) || this.building !== undefined) return;
    if (this.rebased(version)) return;
    if (this.catalog.liveCount <= this.syncLimit) this.buildNow(version);
    else this.kick();
  }

  /** The settings the index is derived from changed: the next refresh rebuilds (the current index serves meanwhile). */
  invalidate(): void {
    this.generation++;
  }

  /** Whether the index answering now was built from the current catalog version (and settings). */
  get upToDate(): boolean {
    return this.fresh(this.catalog.version);
  }

  /** Built, up to date, building, failed: what a readiness check needs to know. */
  status(): IndexStatus {
    const out: IndexStatus = {
      built: this.current !== undefined,
      upToDate: this.upToDate,
      building: this.building !== undefined,
      builtFrom: this.current === undefined ? 0 : this.currentRows,
    };
    if (this.lastError !== undefined) out.error = this.lastError instanceof Error ? this.lastError.message : String(this.lastError);
    return out;
  }

  /**
   * Starts no background build until {@link release}: the engine's start holds the builds of a big
   * catalog until every catalog is loaded and the store is open, so their time slices do not stretch
   * the start (the index is then not built yet, as readiness says). Small catalogs still build in the call.
   */
  hold(): void {
    this.held = true;
  }

  /** Ends a {@link hold} and starts the build it held back. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    this.refresh();
  }

  /** Starts a background build of the current catalog version unless one is running (or builds are held). */
  kick(): void {
    if (this.building !== undefined || this.held) return;
    const version = this.catalog.version;
    if (this.rebased(version)) return;
    // The products are captured now (the catalog version's list, read product by product while the
    // build runs); a product changed later has a new revision, picked up by the next build. Listed in
    // the build's slices when the catalog can: with deletions, the list is a pass over every doc.
    const listing = this.catalog.liveProductsSteps?.() ?? listedAlready(snapshot(this.catalog));
    const previous = this.current;
    const generation = this.generation;
    let rows = 0;
    const build = this.build;
    function* steps(): BuildSteps<T> {
      const products = yield* listing;
      rows = products.length;
      return yield* build(previous, products, version);
    }
    this.building = (async () => {
      try {
        const next = await runSliced(steps(), this.sliceMs);
        // A synchronous build of a newer version may have happened meanwhile (catalog shrank).
        if (this.current === undefined || this.current.version < next.version || this.currentGeneration < generation) {
          this.current = next;
          this.currentGeneration = generation;
          this.currentRows = rows;
        }
        this.builds++;
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err;
        this.onError?.(err);
      } finally {
        this.building = undefined;
      }
      // Changed again while this build ran: start the next one now rather than at some later look-up.
      if (this.lastError === undefined && !this.fresh(this.catalog.version)) this.refresh();
    })();
  }

  /**
   * Resolves when the index reflects the catalog version current at the time of the call (test hook;
   * ends a {@link hold}: the caller wants the index).
   */
  async whenReady(): Promise<void> {
    this.held = false;
    const target = this.catalog.version;
    const generation = this.generation;
    for (;;) {
      if (this.current !== undefined && this.current.version >= target && this.currentGeneration >= generation) return;
      if (this.building === undefined) {
        this.lastError = undefined;
        this.refresh();
        if (this.building === undefined) {
          if (this.lastError !== undefined) throw this.lastError;
          continue;
        }
      }
      await this.building;
      if (this.lastError !== undefined) throw this.lastError;
    }
  }
}

function snapshot(catalog: CatalogView): ProductList {
  return catalog.liveProducts();
}

/** A list already made, as the steps of a catalog that lists its products in steps (none to run). */
function* listedAlready(products: ProductList): BuildSteps<ProductList> {
  return products;
}

/**
 * Row of each revision of a previous index: what a rebuild looks unchanged products up in, to copy
 * their rows instead of reading them again. Held for the build only. An open-addressing table in two
 * typed arrays sized once for all rows: a `Map` grown to a million entries rehashed in single steps of
 * ~100 ms (event-loop stalls measured at 1M products) and left ~40 MB of entries to collect per rebuild.
 */
export class RevisionRows {
  private readonly keys: Float64Array;
  /**
   * Row + 1 of the revision in the same slot; 0: empty slot. Zero as empty takes the array as allocated
   * (zeroed): no pass filling 2^21 slots with -1 in the one step that allocates it, at 1M.
   */
  private readonly rowsPlusOne: Int32Array;
  private readonly mask: number;

  constructor(count: number) {
    let capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    this.keys = new Float64Array(capacity);
    this.rowsPlusOne = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Revisions are integers below 2^53: mix their low and high 32 bits. */
  private slot(revision: number): number {
    return Math.imul((revision | 0) ^ ((revision / 4294967296) | 0), 0x9e3779b1) & this.mask;
  }

  /**
   * Writes the table once, in order and in steps, before {@link set} writes it at random: a fresh typed
   * array's pages are mapped at their first write, and the first 4,096 sets of {@link rowsByRevision},
   * scattered over the 24 MB of a table for 1M rows, took 4,000–7,500 page faults in one step (a fault
   * costs 8–30 µs on the shared 2-core machine: `RevisionRows.set` held build steps 36–49 ms on a CPU at
   * 1M; docs/benchmarks.md, "Big writes in steps at 1M"). Here a step maps at most 768 KB.
   */
  *mapSteps(): BuildSteps<void> {
    for (let at = 0; at < this.keys.length; at += WIDE_STEP + 1) {
      this.keys.fill(0, at, at + WIDE_STEP + 1);
      this.rowsPlusOne.fill(0, at, at + WIDE_STEP + 1);
      yield;
    }
  }

  set(revision: number, row: number): void {
    let i = this.slot(revision);
    while (this.rowsPlusOne[i] !== 0 && this.keys[i] !== revision) i = (i + 1) & this.mask;
    this.keys[i] = revision;
    this.rowsPlusOne[i] = row + 1;
  }

  /** The row of `revision`, or undefined. */
  get(revision: number): number | undefined {
    for (let i = this.slot(revision); ; i = (i + 1) & this.mask) {
      const rowPlusOne = this.rowsPlusOne[i]!;
      if (rowPlusOne === 0) return undefined;
      if (this.keys[i] === revision) return rowPlusOne - 1;
    }
  }
}

/**
 * Revisions of an index's rows: four bytes each while every one is below 2^32 (revisions number the
 * product versions of the process from one counter), else eight: at 1M, 4 MB less for the attribute
 * index and 2.8 MB for the visual one.
 */
export type RowRevisions = Uint32Array | Float64Array;

/**
 * `revisions` in four bytes each when they all fit, else in an array of their own (never a view of a
 * longer buffer); in steps of {@link WIDE_STEP} rows: at 1M rows, the check and the copy in one go held
 * the loop 33–36 ms of a build step (decisions/0074).
 */
export function* compactRevisionsSteps(revisions: Float64Array): BuildSteps<RowRevisions> {
  for (let r = 0; r < revisions.length; r++) {
    if (revisions[r]! >= 4294967296) return revisions.byteLength === revisions.buffer.byteLength ? revisions : revisions.slice();
    if ((r & WIDE_STEP) === WIDE_STEP) yield;
  }
  const out = new Uint32Array(revisions.length);
  for (let at = 0; at < revisions.length; at += WIDE_STEP + 1) {
    out.set(revisions.subarray(at, at + WIDE_STEP + 1), at);
    yield;
  }
  return out;
}

/** The {@link RevisionRows} of `revisions` (the rows of a previous index), filled in steps. */
export function* rowsByRevision(revisions: RowRevisions | undefined): BuildSteps<RevisionRows> {
  const rows = new RevisionRows(revisions?.length ?? 0);
  if (!revisions) return rows;
  yield* rows.mapSteps();
  for (let r = 0; r < revisions.length; r++) {
    rows.set(revisions[r]!, r);
    if ((r & 4095) === 4095) yield;
  }
  return rows;
}
