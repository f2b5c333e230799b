/**
 * Derived indexes (attribute features, image vectors) built off the request path.
 *
 * A build is written once as a generator that `yield`s between small steps. It runs
 * - **in the request** (`runSync`) when the catalog is small (at most `syncLimit` live products —
 *   a few milliseconds of work), so small shops and tests see a catalog change at once;
 * - **in time slices** (`runSliced`) otherwise: steps run until the slice (default 8 ms) is used,
 *   then the build awaits `setImmediate`, so searches, events and other websites run in between.
 *
 * While a sliced build runs, look-ups answer from the previous index (the caller filters its results
 * against the live catalog: deleted products are never returned); before the very first index
 * exists, `get()` returns `undefined` and the tactic answers nothing, so the cascade moves on to its
 * next tactic. A finished build is swapped in at once; when the catalog changed again meanwhile,
 * the next look-up starts another build (which reuses the rows of unchanged products).
 * @module
 */
import type { CatalogView, Product } from '../types.js';

/** Steps of a build: yields between steps, returns the index. */
export type BuildSteps<T> = Generator<void, T, void>;

/** Runs a build to its end, synchronously. */
export function runSync<T>(steps: BuildSteps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs a build in slices of about `sliceMs`, yielding to the event loop between slices. */
export async function runSliced<T>(steps: BuildSteps<T>, sliceMs = 8): Promise<T> {
  // Never run in the caller's turn (a request): the first slice starts on the next turn of the loop.
  await new Promise<void>((resolve) => setImmediate(resolve));
  let end = performance.now() + sliceMs;
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() >= end) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      end = performance.now() + sliceMs;
    }
  }
}

/** An index built from one catalog version. */
export interface VersionedIndex {
  readonly version: number;
}

/**
 * Builds `(previous, products, version) → index`, rebuilding when `catalog.version` changes:
 * synchronously for small catalogs, in the background (time-sliced) otherwise.
 */
export class BackgroundIndex<T extends VersionedIndex> {
  private current: T | undefined;
  private building: Promise<void> | undefined;
  private lastError: unknown;
  /** Number of builds finished (for tests and stats). */
  builds = 0;

  /**
   * `rebase` (optional) carries an index over to a newer catalog version when the changes since its own
   * cannot have changed it (see {@link CatalogView.valuesOnlyChangedSince}), instead of a rebuild.
   */
  constructor(
    private readonly catalog: CatalogView,
    private readonly build: (previous: T | undefined, products: readonly Product[], version: number) => BuildSteps<T>,
    private readonly syncLimit: number,
    private readonly sliceMs = 8,
    private readonly rebase?: (previous: T, version: number) => T | undefined,
  ) {}

  /** The current index carried over to `version`, when `rebase` allows it. */
  private rebased(version: number): T | undefined {
    if (this.current === undefined || this.rebase === undefined || this.current.version >= version) return undefined;
    const next = this.rebase(this.current, version);
    if (next !== undefined) this.current = next;
    return next;
  }

  /**
   * The index to answer from, without ever blocking on a large build: the up-to-date one; or, for a
   * small catalog, one built now; or the previous one (possibly of an older catalog version —
   * filter its results against the live catalog) while a background build runs; `undefined` before
   * the first build finishes.
   */
  get(): T | undefined {
    const version = this.catalog.version;
    if (this.current !== undefined && this.current.version === version) return this.current;
    if (this.building === undefined && this.rebased(version)) return this.current;
    if (this.building === undefined && this.catalog.liveCount <= this.syncLimit) {
      this.current = runSync(this.build(this.current, snapshot(this.catalog), version));
      this.builds++;
      return this.current;
    }
    this.kick();
    return this.current;
  }

  /** Whether the index answering now was built from the current catalog version. */
  get upToDate(): boolean {
    return this.current !== undefined && this.current.version === this.catalog.version;
  }

  /** Starts a background build of the current catalog version unless one is running. */
  kick(): void {
    if (this.building !== undefined) return;
    const version = this.catalog.version;
    if (this.rebased(version)) return;
    // The products are captured now (one synchronous pass over the catalog); a product changed later
    // is a new object, picked up by the next build.
    const products = snapshot(this.catalog);
    const previous = this.current;
    this.building = (async () => {
      try {
        const next = await runSliced(this.build(previous, products, version), this.sliceMs);
        // A synchronous build of a newer version may have happened meanwhile (catalog shrank).
        if (this.current === undefined || this.current.version < next.version) this.current = next;
        this.builds++;
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err;
      } finally {
        this.building = undefined;
      }
    })();
  }

  /** Resolves when the index reflects the catalog version current at the time of the call (test hook). */
  async whenReady(): Promise<void> {
    const target = this.catalog.version;
    for (;;) {
      if (this.current !== undefined && this.current.version >= target) return;
      if (this.building === undefined) {
        if (this.catalog.liveCount <= this.syncLimit) {
          this.get();
          continue;
        }
        this.kick();
      }
      await this.building;
      if (this.lastError !== undefined) throw this.lastError;
    }
  }
}

function snapshot(catalog: CatalogView): Product[] {
  const products: Product[] = [];
  catalog.forEachProduct((p) => products.push(p));
  return products;
}
