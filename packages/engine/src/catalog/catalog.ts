/**
 * One website's catalog: a live, versioned, columnar product store with full-text and filter indexes.
 *
 * Change model — versions and swap: every batch (upsert, replace, delete) makes a new immutable
 * {@link CatalogState}, then swaps one reference. Most batches take a path that costs what they touch
 * and shares the rest of the previous version: numeric values of known products are patched
 * (`patch-values.ts`), new products appended (`append-products.ts`), changed ones tombstoned and
 * appended again, deleted ones tombstoned (`tombstones.ts`); background merges rewrite the catalog
 * without its tombstones. The others — a replace, a field's kind changing, a delete tombstones cannot
 * represent — rebuild it in one go from the live products with the batch applied, read from the store
 * (`changed-products.ts`).
 * A search takes that reference once when it starts, so it sees the catalog entirely before or after
 * a batch, never half of one, and workers can keep reading the old version's SharedArrayBuffers
 * while the new one is built; see docs/architecture-search.md.
 *
 * Builds run in time slices (`time-slices.ts`): the event loop keeps serving searches (from the
 * previous version), recommendations and events while a big catalog is rebuilt. Changes of one
 * catalog go through one queue: a build starts from the version the previous build produced, and
 * the changes that arrive during a build are applied together by the next one (each in order), so
 * none is lost and a burst of small upserts costs one rebuild, not one each.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { MAX_REPORTED_SKIPS, type LoadOptions, type LoadSummary, type ProductSource, type StrayValues } from '../engine-api.js';
import type { CatalogView, Product, ProductList, SynonymEntry } from '../types.js';
import { buildCatalogState, buildCatalogSteps } from './build/build-catalog-state.js';
import { runSteps, STEP, type Steps } from './steps.js';
import type { CatalogState } from './catalog-index.js';
import { IMAGE_VECTOR_FIELD, availableProduct, isPresent, numericValue, ownValueReader } from './field-values.js';
import type { LoggedChange } from './durability/catalog-change-log.js';
import { appendProducts, planAppend } from './changes/append-products.js';
import { applyValuePatch, planValuePatch } from './changes/patch-values.js';
import { mergeProductPatches } from './changes/merge-patch.js';
import { changedProducts, type CatalogChange, type ChangeResult } from './changes/changed-products.js';
import { readProducts, readReplacement, type CatalogFit } from './input/read-products.js';
import { withEarlierSkips, type SkipReport } from './input/skip-report.js';
import { beginChange, runInSlices, SLICE_MS } from './build/time-slices.js';
import { carryDerivedSteps, deriveLikeSteps } from './columns/derived-carry.js';
import { ensureHierarchySteps } from './columns/hierarchy-column.js';
import type { HierarchySetting } from '../contract/settings-schema.js';
import { applyDeletes, forEachLiveProduct, liveBuildProducts, liveDocCount, liveDocs, liveVectorDimension, queryFieldKind, liveProductList, liveProductListSteps, planDeletes } from './changes/tombstones.js';
import { vectorOf } from './columns/vector-column.js';
import { firstMismatch, valueFits, type FieldMismatch, type FieldTypes } from './field-types.js';

/** Options of a {@link Catalog}. */
export interface CatalogOptions {
  /** BM25F weight per field (defaults: title 3, brand 2, search_category 1.5, others 1; 0 = not searchable). */
  fieldWeights?: Record<string, number>;
  /** Synonyms of every search on this catalog (same shape as the website setting; searches add the setting's). */
  synonyms?: SynonymEntry[];
}

/**
 * Where a catalog reports the failure of work no caller waits for: a background merge, or a version
 * listener that threw. `doing` says which. The catalog knows nothing of who listens (the engine passes
 * its failure reporter); a catalog given none warns through the process.
 */
export type CatalogFailureHook = (error: unknown, doing: string) => void;

/** A catalog's failure hook until it is given one: a process warning (a catalog used alone). */
function warnProcess(error: unknown, doing: string): void {
  process.emitWarning(`catalog: ${doing} failed: ${error instanceof Error ? error.message : String(error)}`, 'AisleCatalogWarning');
}

/**
 * How builds are run (internal; tests set them to exercise the time-sliced path on small catalogs).
 */
export interface CatalogBuildTuning {
  /** Milliseconds of build work between two turns of the event loop (default {@link SLICE_MS}). */
  sliceMs?: number;
  /**
   * Changes leaving the catalog at most this big (products before plus products given) are built
   * synchronously, in the call (default {@link SYNC_BUILD_LIMIT}).
   */
  syncLimit?: number;
  /** Value patches: above one changed doc in this many, rebuild a field's order linearly (default 64). */
  patchLinearRatio?: number;
  /** Tombstones that start a background merge (default {@link mergeThreshold}); tests set 0 to merge after every delete. */
  mergeAt?: (docCount: number) => number;
}

/**
 * Tombstoned docs from which a background merge rewrites the catalog without them: an eighth of the
 * docs, at least 1,000. Every delete then costs its own products' work, and the merge's rebuild (linear
 * in the catalog) is paid once per that many deletes; tombstones cost searches a bit test per text hit
 * and a correction per posting while they are there (see docs/architecture-search.md).
 */
export function mergeThreshold(docCount: number): number {
  return Math.max(1000, docCount >>> 3);
}

/** A background merge: the version it started from and, once built, the merged version. */
interface Merge {
  from: CatalogState;
  /** Changes published since `from`, to apply again on the merged version. */
  since: Change[];
  merged?: CatalogState;
  /** Calls of {@link Catalog.merge} waiting for it. */
  waiters: { resolve(): void; reject(error: unknown): void }[];
}

/**
 * Up to this many products a rebuild takes a few milliseconds (~15 µs a product): it runs in the
 * call, so a change of a small catalog is visible as soon as the call returns, even unawaited.
 */
export const SYNC_BUILD_LIMIT = 1000;

/** One queued change. */
type Change = CatalogChange;

/**
 * Makes a batch of changes durable (the catalog change log), all or nothing, and resolves with the
 * log position of its last change. Called once the version holding them is built and before it is
 * published: when it rejects, the version is dropped and every change of the batch fails.
 */
export type ChangeLogger = (changes: readonly Change[]) => Promise<number>;

export type { ChangeResult } from './changes/changed-products.js';

/** What a build produced: the new version (none when nothing changed) and each change's result. */
interface BuildOutcome {
  state?: CatalogState;
  results: ChangeResult[];
  /** Docs of the version's part built in one go (a full rebuild or a merge; appends come after). */
  compactDocs?: number;
}

interface QueuedChange {
  change: Change;
  seq: number;
  /** Its position in the change log, once logged (or when replayed from the log). */
  position?: number;
  resolve(result: ChangeResult): void;
  reject(error: unknown): void;
}


/** What the fast paths take from the catalog's options. */
interface FastPathOptions {
  /** Value patches: share of changed docs above which a field's order is rebuilt linearly. */
  linearRatio?: number;
  /** The catalog's BM25F field weights (whether a field an append adds is full-text indexed). */
  fieldWeights?: Record<string, number>;
}

/**
 * The fast paths of upsert batches, planned before anything is built: value-only updates of known
 * products (prices, stock) patch the touched columns; new products that fit the columns as they are
 * are appended to them; a mix does both, the patch first (new docs come after every known one, as in a
 * rebuild). Undefined when any product needs the full rebuild.
 */
function* patchOrAppend(
  base: CatalogState, batches: readonly Product[][], options: FastPathOptions, version: number,
  places?: ReadonlyMap<string, number>,
): Steps<{ state: CatalogState; results: ChangeResult[] } | 'compact' | undefined> {
  const known: Product[][] = [];
  const fresh: Product[][] = [];
  // Per batch, the catalog size right after it (new refIds counted once).
  const sizes: number[] = [];
  const newRefIds = new Set<string>();
  for (const batch of batches) {
    const k: Product[] = [];
    const f: Product[] = [];
    for (const p of batch) {
      if (base.docByRefId.has(p.refId)) k.push(p);
      else { f.push(p); newRefIds.add(p.refId); }
    }
    known.push(k);
    fresh.push(f);
    sizes.push(liveDocCount(base) + newRefIds.size);
  }
  const anyKnown = known.some((b) => b.length > 0);
  const anyFresh = newRefIds.size > 0;
  const plan = anyKnown ? yield* planValuePatch(base, known) : undefined;
  if (anyKnown && !plan) return undefined;
  // A patch changes no field's kind, so new products fit the patched version exactly when they fit this one.
  const added = anyFresh ? yield* planAppend(base, fresh) : undefined;
  if (anyFresh && !added) return undefined;
  let state = base;
  if (plan) {
    const patched = yield* applyValuePatch(base, plan, version, options.linearRatio);
    // Too many dead dictionary values: only a rebuild compacts them.
    if (!patched) return 'compact';
    state = patched;
  }
  if (added) state = yield* appendProducts(state, added, version, places, options.fieldWeights);
  return { state, results: batches.map((b, i) => ({ count: b.length, catalogSize: sizes[i] })) };
}

/**
 * Every change of a batch by a fast path, in order: consecutive upserts as one value patch and/or
 * append ({@link patchOrAppend}), consecutive deletes as tombstones (`tombstones.ts`). Undefined when
 * some change needs the full rebuild (a replace, a kind change, a vector dimension change).
 */
function* fastPaths(
  base: CatalogState, changes: readonly Change[], options: FastPathOptions, version: number,
): Steps<{ state?: CatalogState; results: ChangeResult[] } | undefined> {
  let state = base;
  const results: ChangeResult[] = [];
  for (let i = 0; i < changes.length;) {
    const kind = changes[i].kind;
    if (kind === 'replace') return undefined;
    let j = i;
    while (j < changes.length && changes[j].kind === kind) j++;
    const run = changes.slice(i, j);
    i = j;
    if (kind === 'upsert') {
      const batches = run.map((c) => (c as { products: Product[] }).products);
      const patched = yield* patchOrAppend(state, batches, options, version);
      if (patched === 'compact') return undefined;
      const fast = patched ?? (yield* replaceAndAppend(state, batches, options, version));
      if (!fast) return undefined;
      state = fast.state;
      results.push(...fast.results);
      continue;
    }
    const gone = new Set<string>();
    let size = liveDocCount(state);
    for (const c of run) {
      let count = 0;
      for (const refId of (c as { refIds: readonly string[] }).refIds) if (!gone.has(refId) && state.docByRefId.has(refId)) { gone.add(refId); count++; }
      size -= count;
      results.push({ count, catalogSize: size });
    }
    if (gone.size === 0) continue;
    const docs = planDeletes(state, [...gone]);
    if (!docs) return undefined;
    state = yield* applyDeletes(state, docs, version);
  }
  if (state === base) return { results };
  return { state: state.index.version === version ? state : withVersion(state, version), results };
}

/**
 * Upserts that change known products in more than numeric values: the old docs are tombstoned and
 * the products appended again, each keeping its place in the product order (`CatalogIndex.ordinal`),
 * as a rebuild would keep it. Undefined when the deletes or the append need the full rebuild.
 */
function* replaceAndAppend(
  base: CatalogState, batches: readonly Product[][], options: FastPathOptions, version: number,
): Steps<{ state: CatalogState; results: ChangeResult[] } | undefined> {
  const places = new Map<string, number>();
  for (const batch of batches) {
    for (const p of batch) {
      const doc = base.docByRefId.get(p.refId);
      if (doc !== undefined) places.set(p.refId, base.index.ordinal?.[doc] ?? doc);
    }
  }
  if (places.size === 0) return undefined;
  const docs = planDeletes(base, [...places.keys()]);
  if (!docs) return undefined;
  const tombstoned = yield* applyDeletes(base, docs, version);
  const out = yield* patchOrAppend(tombstoned, batches, options, version, places);
  if (out === undefined || out === 'compact') return undefined;
  // Sizes: the replaced products were never gone; only refIds new to `base` add to the catalog.
  let size = liveDocCount(base);
  const seen = new Set<string>();
  const results = batches.map((batch) => {
    for (const p of batch) if (!places.has(p.refId) && !seen.has(p.refId)) { seen.add(p.refId); size++; }
    return { count: batch.length, catalogSize: size };
  });
  return { state: out.state, results };
}

/** `state` numbered `version` (a merged version published as the next one); shares everything. */
function withVersion(state: CatalogState, version: number): CatalogState {
  const out = { ...state, index: { ...state.index, version } };
  runSteps(carryDerivedSteps(state, out));
  return out;
}

/**
 * The values of `products` that a numeric field of `state` reads as missing (not numbers): a field that
 * searches read as numbers (`queryFieldKind`: never `refId`, nor a field pinned to another type than
 * `number`, whose values are all kept as text). Costs what
 * the load holds (products × numeric fields), not what the catalog holds: in steps, as a load of a
 * million products reads several million values.
 */
function* strayValues(state: CatalogState, products: readonly Product[], fieldTypes: FieldTypes | undefined): Steps<StrayValues[]> {
  const out: StrayValues[] = [];
  for (const [fid, field] of state.index.fields.entries()) {
    if (queryFieldKind(state, fid, fieldTypes) !== 'numeric') continue;
    const valueOf = ownValueReader(field.name);
    let stray: StrayValues | undefined;
    for (let i = 0; i < products.length; i++) {
      if ((i & (STEP - 1)) === STEP - 1) yield;
      const p = products[i];
      const v = valueOf(p);
      if (!isPresent(v) || !Number.isNaN(numericValue(v))) continue;
      stray ??= { field: field.name, count: 0, refIds: [] };
      stray.count++;
      if (stray.refIds.length < MAX_REPORTED_SKIPS) stray.refIds.push(p.refId);
    }
    if (stray) out.push(stray);
  }
  return out;
}

/**
 * A website's product catalog (implements {@link CatalogView}). Products are kept exactly as given;
 * columns (text dictionaries, numbers, vectors), filter postings and the full-text index are built
 * from them on SharedArrayBuffers. Nothing is shared between two catalogs.
 */
export class Catalog implements CatalogView {
  /** Unique id of this catalog instance (keys worker-side caches together with the version). */
  readonly id: string = randomUUID();
  /** The options given at creation (field weights, synonyms); searches combine them with the website settings. */
  readonly options: Readonly<CatalogOptions>;
  private current: CatalogState;
  /**
   * The website's pinned field types (`settings.fields`), set by the engine whenever its settings
   * change: every load and patch read after that checks its products against them.
   */
  fieldTypes: FieldTypes | undefined;
  /** Changes waiting for the next build. */
  private readonly queue: QueuedChange[] = [];
  /** True while a build runs (its changes are out of the queue). */
  private building = false;
  /** Ends the change priority the running batch holds (see `beginChange`); a no-op between batches. */
  private endChange: () => void = () => {};
  private readonly sliceMs: number;
  private readonly syncLimit: number;
  /** Changes queued so far (each gets the next number) and the last one the current version holds. */
  private queuedSeq = 0;
  private appliedSeqNumber = 0;
  /** The change-log position of the last logged change the current version holds (0: none). */
  private loggedPositionNumber = 0;
  private logger: ChangeLogger | undefined;
  /** Resolved when no build runs and nothing is queued (see {@link Catalog.patch}). */
  private idleWaiters: (() => void)[] = [];
  private readonly patchLinearRatio: number | undefined;
  private readonly versionListeners = new Set<() => void>();
  /** See {@link Catalog.reportFailuresTo}. */
  private failureHook: CatalogFailureHook = warnProcess;
  private readonly mergeAt: (docCount: number) => number;
  /** The merge running in the background, if any. */
  private merging: Merge | undefined;
  /** The last {@link Catalog.deriveHierarchies} call's work (they run one after another). */
  private hierarchyWork: Promise<void> = Promise.resolve();

  /** `tuning` is internal (tests). */
  constructor(options: CatalogOptions = {}, tuning: CatalogBuildTuning = {}) {
    this.options = { fieldWeights: options.fieldWeights, synonyms: options.synonyms };
    this.sliceMs = tuning.sliceMs ?? SLICE_MS;
    this.syncLimit = tuning.syncLimit ?? SYNC_BUILD_LIMIT;
    this.patchLinearRatio = tuning.patchLinearRatio;
    this.mergeAt = tuning.mergeAt ?? mergeThreshold;
    this.current = buildCatalogState([], { catalogId: this.id, version: 0, fieldWeights: options.fieldWeights });
  }

  /** @internal A catalog holding an already built state (snapshot loading). */
  static fromState(options: CatalogOptions, makeState: (catalogId: string) => CatalogState): Catalog {
    const catalog = new Catalog(options);
    catalog.current = makeState(catalog.id);
    catalog.compactDocCount = catalog.current.index.docCount;
    return catalog;
  }

  /**
   * Builds in time slices what loading a snapshot left to build on first use (the dictionaries' value
   * tables, the refId one being the refId → doc map: a million entries take a few hundred milliseconds),
   * so that no request pays for it. Resolves when done.
   */
  completeInBackground(): Promise<void> {
    const state = this.current;
    function* steps(): Generator<void, void, void> {
      for (const dictionary of state.dictionaries) yield* dictionary.indexSteps();
    }
    return runInSlices(steps(), this.sliceMs);
  }

  /**
   * Derives in time slices the `hierarchies` the current version does not have yet (a snapshot of an
   * older format, a setting the snapshot's version did not have, a setting put in force at run time),
   * so that no search derives one on the event loop; derived on this version, they are carried to the
   * versions made from it (derived-carry.ts). Resolves when done.
   */
  deriveHierarchies(hierarchies: Readonly<Record<string, HierarchySetting>> = {}): Promise<void> {
    // One after another, on the version current when each starts: a second call for the same
    // hierarchies (the stored settings applied at start, then the start's own step) finds them derived.
    const derive = (): Promise<void> => {
      const state = this.current;
      function* steps(): Generator<void, void, void> {
        for (const setting of Object.values(hierarchies)) yield* ensureHierarchySteps(state, setting);
      }
      return runInSlices(steps(), this.sliceMs);
    };
    const work = this.hierarchyWork.then(derive);
    // A failure goes to this call's caller; the next call starts after it either way.
    this.hierarchyWork = work.then(() => undefined, () => undefined);
    return work;
  }

  /** The current immutable version; a search reads it once and keeps it for its whole run. */
  get state(): CatalogState {
    return this.current;
  }

  /** Increases on every change (0 for a new, empty catalog). */
  get version(): number {
    return this.current.index.version;
  }

  /** Number of products. */
  get liveCount(): number {
    return liveDocCount(this.current);
  }

  /**
   * What an upsert's or a patch's records must fit (a replace keeps no product, so only the pinned
   * types): the pinned field types and the dimension of the live image vectors, as they are when the
   * records are checked.
   */
  fit(): CatalogFit {
    return { fieldTypes: this.fieldTypes, vectorDimension: liveVectorDimension(this.current) };
  }

  /** True when a product with this refId is in the catalog. */
  has(refId: string): boolean {
    return this.current.docByRefId.has(refId);
  }

  /** The product exactly as given, or undefined. */
  getProduct(refId: string): Product | undefined {
    const doc = this.current.docByRefId.get(refId);
    return doc === undefined ? undefined : this.current.store.get(doc);
  }

  /** Known and `availability` is not 0 (missing, -1 or positive count as in stock). */
  isInStock(refId: string): boolean {
    const product = this.getProduct(refId);
    return product !== undefined && availableProduct(product);
  }

  /** See {@link CatalogView.valuesOnlyChangedSince}. */
  valuesOnlyChangedSince(version: number, matters: (field: string) => boolean): boolean {
    const current = this.current;
    if (version === current.index.version) return true;
    const patched = current.patchedSince;
    if (patched === undefined || version < patched.version || version > current.index.version) return false;
    for (const field of patched.fields) if (matters(field)) return false;
    return true;
  }

  /** See {@link CatalogView.onNewVersion}. */
  onNewVersion(listener: () => void): () => void {
    this.versionListeners.add(listener);
    return () => this.versionListeners.delete(listener);
  }

  /**
   * Tells the listeners. Listeners record their own failures (derived indexes keep theirs for the
   * readiness status); one that throws anyway does not stop the others nor the change, which has
   * succeeded: its error goes to the failure hook ({@link Catalog.reportFailuresTo}).
   */
  private announceVersion(): void {
    for (const listener of this.versionListeners) {
      try {
        listener();
      } catch (err) {
        this.failureHook(err, 'a catalog version listener');
      }
    }
  }

  /**
   * Up to `limit` live products whose values do not fit `types`, in product order: what a settings
   * change pinning those types would leave unfit. Reads only the pinned fields' values (fields no
   * product has are skipped), handing the event loop back every {@link SYNC_BUILD_LIMIT} products.
   */
  async fieldMismatches(types: FieldTypes, limit: number): Promise<FieldMismatch[]> {
    const state = this.current;
    const present = Object.keys(types).filter((field) => state.fieldByName.has(field));
    if (present.length === 0) return [];
    const readers = present.map((field) => ({ field, type: types[field]!.type, valueOf: state.store.fieldReader(field) }));
    const refIdOf = state.store.fieldReader('refId');
    const out: FieldMismatch[] = [];
    const docs = liveDocs(state);
    for (let i = 0; i < docs.length && out.length < limit; i++) {
      if (i > 0 && i % SYNC_BUILD_LIMIT === 0) await new Promise((resolve) => setImmediate(resolve));
      const d = docs[i]!;
      const unfit = readers.find((r) => !valueFits(r.type, r.valueOf(d)));
      if (unfit) out.push(firstMismatch({ refId: refIdOf(d), [unfit.field]: unfit.valueOf(d) }, { [unfit.field]: types[unfit.field]! })!);
    }
    return out;
  }

  /** Visits every product in doc (insertion) order. */
  forEachProduct(visit: (product: Product) => void): void {
    forEachLiveProduct(this.current, visit);
  }

  /** See {@link CatalogView.liveProducts}: read from the current version's store on demand. */
  liveProducts(): ProductList {
    return liveProductList(this.current);
  }

  /** See {@link CatalogView.liveProductsSteps}: the current version, captured now, listed in steps. */
  liveProductsSteps(): Steps<ProductList> {
    return liveProductListSteps(this.current);
  }

  /** The product's `image_vector` as stored (Float32), or undefined. */
  getImageVector(refId: string): Float32Array | undefined {
    const s = this.current;
    const doc = s.docByRefId.get(refId);
    const v = s.vectors;
    return doc === undefined || !v ? undefined : vectorOf(v, doc);
  }

  /** Name of the reserved vector field. */
  static readonly imageVectorField = IMAGE_VECTOR_FIELD;

  /**
   * Logs every later change through `logger` before its call resolves (the engine's write-ahead log;
   * see change-log.ts). Undefined stops logging.
   */
  setChangeLogger(logger: ChangeLogger | undefined): void {
    this.logger = logger;
  }

  /**
   * Sends the failures of this catalog's background work (a merge, a version listener that threw)
   * to `hook` instead of a process warning: the engine passes its failure reporter, so they are
   * logged, counted and handed on like every other background failure.
   */
  reportFailuresTo(hook: CatalogFailureHook): void {
    this.failureHook = hook;
  }

  /** Number of the last change the current version holds (with every change before it). */
  get appliedSeq(): number {
    return this.appliedSeqNumber;
  }

  /**
   * The change-log position of the last logged change the current version holds: a snapshot of the
   * current version holds every logged change up to it (read together with {@link state}).
   */
  get loggedPosition(): number {
    return this.loggedPositionNumber;
  }

  /**
   * Applies changes read back from the change log, in order, as one batch (one build, not one per
   * change: a restart after many logged changes of a big catalog costs one rebuild). They were
   * validated when first made and are not logged again; `throughPosition` is the log position of the
   * last one, when they come from this catalog's change log.
   */
  async replay(changes: readonly LoggedChange[], throughPosition?: number): Promise<ChangeResult[]> {
    if (changes.length === 0) return [];
    const pending: Promise<ChangeResult>[] = [];
    // All queued before a build is started, so the next build takes them all.
    changes.forEach((change, i) => {
      const queued: Change = change.kind === 'delete' ? { kind: 'delete', refIds: change.refIds.slice() } : { kind: change.kind, products: change.products.slice() };
      const seq = ++this.queuedSeq;
      const position = i === changes.length - 1 ? throughPosition : undefined;
      pending.push(new Promise<ChangeResult>((resolve, reject) => this.queue.push({ change: queued, seq, position, resolve, reject })));
    });
    if (!this.building) this.buildNext();
    return Promise.all(pending);
  }

  /** Queues a change; resolves once a version containing it is durable and the current one. */
  private enqueue(change: Change): Promise<ChangeResult> {
    const seq = ++this.queuedSeq;
    const applied = new Promise<ChangeResult>((resolve, reject) => {
      this.queue.push({ change, seq, resolve, reject });
      if (!this.building) this.buildNext();
    });
    return applied;
  }

  /**
   * Builds one version from the current one and every queued change, then swaps it in and starts
   * the next build if changes arrived meanwhile. Small catalogs are built synchronously; big ones in
   * time slices, searches reading the previous version in between.
   */
  private buildNext(): void {
    const merge = this.merging?.merged ? this.merging : undefined;
    const batch = this.queue.splice(0);
    if (batch.length === 0 && !merge) return;
    if (merge) this.merging = undefined;
    this.building = true;
    // Until the batch is published (or fails), background slices wait (time-slices.ts).
    this.endChange = beginChange();
    const base = this.current;
    const changes = batch.map((q) => q.change);
    const id = this.id;
    const fieldWeights = this.options.fieldWeights;
    const fastOptions: FastPathOptions = { linearRatio: this.patchLinearRatio, fieldWeights };
    const version = base.index.version + 1;
    function* steps(): Steps<BuildOutcome> {
      if (merge) {
        // The merged version, with the changes published since it started and the queued ones applied
        // again by the fast paths (all were applied so before); when one cannot be, the merge is dropped.
        const replayed = yield* fastPaths(merge.merged!, [...merge.since, ...changes], fastOptions, version);
        if (replayed) {
          const results = replayed.results.slice(merge.since.length);
          return { state: replayed.state ?? withVersion(merge.merged!, version), results, compactDocs: merge.merged!.index.docCount };
        }
      }
      const fast = yield* fastPaths(base, changes, fastOptions, version);
      if (fast) return fast;
      const applied = yield* changedProducts(base, changes);
      if (!applied.changed) return { results: applied.results };
      const state = yield* buildCatalogSteps(applied.products, { catalogId: id, version, fieldWeights });
      // Before it is published: no search waits for what the version it replaces had derived.
      yield* deriveLikeSteps(base, state);
      return { state, results: applied.results, compactDocs: state.index.docCount };
    }
    const done = (out: BuildOutcome): void => {
      // A merge publishes with the batch (or alone): its waiters learn once it is current.
      if (merge) this.afterPublish.push(...merge.waiters.map((w) => w.resolve));
      this.commit(batch, out);
    };
    const failed = (error: unknown): void => {
      if (merge) for (const w of merge.waiters) w.reject(error);
      this.settle(batch, undefined, error);
    };
    let size = base.store.length;
    for (const c of changes) size += c.kind === 'delete' ? 0 : c.products.length;
    if (size <= this.syncLimit) {
      let out: BuildOutcome;
      try {
        out = runSteps(steps());
      } catch (error) {
        failed(error);
        return;
      }
      done(out);
    } else {
      runInSlices(steps(), this.sliceMs, 'change').then(done, failed);
    }
  }

  private wakeIdle(): void {
    if (this.building || this.queue.length > 0) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /**
   * Partial updates: merges each patch (a partial product with `refId`) into the stored product
   * (JSON Merge Patch, RFC 7396: `null` removes a field), then upserts the merged products — so a
   * patch that only changes numbers takes the value-patch fast path. A refId not in the catalog is an
   * error for its record (`onError` as for {@link Catalog.upsert}). Patches are merged against the
   * version holding every change queued before the call: it waits for them, then merges and queues in
   * one synchronous step, so no change can slip in between.
   */
  async patch(source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const positions: number[] = [];
    const { products: patches, skipped } = await readProducts(source, options, positions, this.fit());
    return withEarlierSkips(await this.patchRecords(patches, positions, options?.onError ?? 'reject'), skipped);
  }

  /**
   * {@link Catalog.patch} of records already read and checked; `positions[i]` is patch i's record
   * number in its request (named by errors and `skipped`). Replicas apply a logged patch with it.
   */
  async patchRecords(patches: readonly Product[], positions: readonly number[], onError: 'reject' | 'skip'): Promise<LoadSummary> {
    // The check and the merge below run in one synchronous step: nothing can be queued in between.
    while (this.building || this.queue.length > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const { products, skipped } = mergeProductPatches(patches, positions, (refId) => this.getProduct(refId), onError);
    if (products.length === 0) return { loaded: 0, skipped, skippedCount: skipped.length, catalogSize: this.liveCount };
    const { catalogSize } = await this.enqueue({ kind: 'upsert', products });
    return { loaded: products.length, skipped, skippedCount: skipped.length, catalogSize };
  }

  /**
   * The one all-or-nothing apply path of every catalog change: the new version `out.state` is built
   * but not yet visible; the batch is made durable (change log, `fdatasync`) and only then published
   * by one reference swap, which cannot fail. When the log write fails, the version is dropped and
   * every change of the batch fails: nothing of it is visible now or replayed after a restart.
   * A batch that changes nothing (deletes of unknown refIds) is neither logged nor published.
   */
  private commit(batch: readonly QueuedChange[], out: BuildOutcome): void {
    const logger = this.logger;
    if (!out.state || !logger || batch.length === 0) {
      this.settle(batch, out);
      return;
    }
    let durable: Promise<number>;
    try {
      durable = logger(batch.map((q) => q.change));
    } catch (error) {
      durable = Promise.reject(error);
    }
    durable.then((position) => {
      batch[batch.length - 1].position = position;
      this.settle(batch, out);
    }, (error: unknown) => this.settle(batch, undefined, error));
  }

  /** Publishes a built batch (or fails it), answers its calls and starts the next build. */
  private settle(batch: readonly QueuedChange[], out: BuildOutcome | undefined, error?: unknown): void {
    this.endChange();
    if (out) {
      // The one reference swap: a search started before this line keeps the previous version.
      if (out.state) this.current = out.state;
      if (out.compactDocs !== undefined) this.compactDocCount = out.compactDocs;
      if (batch.length > 0) this.appliedSeqNumber = batch[batch.length - 1].seq;
      // With the version that holds them (a snapshot reads both together).
      const position = batch.at(-1)?.position;
      if (position !== undefined) this.loggedPositionNumber = position;
      // A merge running in the background applies these changes again once it is built.
      if (out.state && this.merging) this.merging.since.push(...batch.map((q) => q.change));
    }
    this.building = false;
    if (out?.state) this.announceVersion();
    if (out) batch.forEach((q, i) => q.resolve(out.results[i]));
    else for (const q of batch) q.reject(error);
    for (const resolve of this.afterPublish.splice(0)) resolve();
    this.startMergeIfDue();
    this.buildNext();
    this.wakeIdle();
  }

  /** Resolved after the next publish (the waiters of a merge published with it). */
  private readonly afterPublish: (() => void)[] = [];

  /** Docs of the last version built in one go: docs beyond are appended (searches renormalise their postings). */
  private compactDocCount = 0;

  /**
   * Starts a background merge when the current version holds more tombstones, or more docs appended
   * since the last version built in one go, than `mergeAt` allows.
   */
  private startMergeIfDue(): void {
    const { docCount } = this.current.index;
    const limit = this.mergeAt(docCount);
    if ((this.current.tombstones?.count ?? 0) > limit || docCount - this.compactDocCount > limit) this.startMerge();
  }

  /**
   * Rewrites the current version without its tombstones, in time slices beside the change queue
   * (changes keep being applied and published meanwhile; the merged version takes them again when it
   * is published). Resolves once the merged version is current (at once when there are no tombstones).
   */
  merge(): Promise<void> {
    if (!this.merging && !this.current.tombstones && this.current.index.docCount === this.compactDocCount) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.startMerge();
      this.merging!.waiters.push({ resolve, reject });
    });
  }

  private startMerge(): void {
    if (this.merging) return;
    const from = this.current;
    const merge: Merge = { from, since: [], waiters: [] };
    this.merging = merge;
    const id = this.id;
    const fieldWeights = this.options.fieldWeights;
    function* steps(): Steps<CatalogState> {
      // The live products read from the store field by field (none decoded whole), the build in steps.
      const products = yield* liveBuildProducts(from);
      const merged = yield* buildCatalogSteps(products, { catalogId: id, version: from.index.version, fieldWeights });
      // In the background too: the merged version is published with what `from` had derived.
      yield* deriveLikeSteps(from, merged);
      return merged;
    }
    const built = (merged: CatalogState): void => {
      if (this.merging !== merge) return;
      merge.merged = merged;
      if (!this.building) this.buildNext();
    };
    const failed = (error: unknown): void => {
      if (this.merging === merge) this.merging = undefined;
      for (const w of merge.waiters) w.reject(error);
      // Reported even with waiters: a merge the catalog started itself (tombstones past the threshold) has none.
      this.failureHook(error, 'merging the deleted products away');
    };
    const run = from.store.length <= this.syncLimit ? Promise.resolve().then(() => runSteps(steps())) : runInSlices(steps(), this.sliceMs);
    run.then(built, failed);
  }

  /**
   * Inserts or updates products by refId (an update keeps the product's position). The batch is
   * read completely first; a bad record rejects it whole (default) and nothing changes. Resolves
   * once the new version is the current one; changes of one catalog apply in the order their reads
   * complete.
   */
  async upsert(source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const { products, skipped } = await readProducts(source, options, undefined, this.fit());
    if (products.length === 0) return { loaded: 0, skipped: skipped.first, skippedCount: skipped.count, catalogSize: this.liveCount };
    const { catalogSize } = await this.enqueue({ kind: 'upsert', products });
    return this.summary(products, skipped, catalogSize);
  }

  /** Replaces the whole catalog atomically with the products of `source`. */
  async replace(source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const { products, skipped } = await readReplacement(source, options, this.fieldTypes);
    const { catalogSize } = await this.enqueue({ kind: 'replace', products });
    return this.summary(products, skipped, catalogSize);
  }

  /** The summary of a load, with the stray values of its products in the version now current. */
  private async summary(products: readonly Product[], skipped: SkipReport, catalogSize: number): Promise<LoadSummary> {
    const summary: LoadSummary = { loaded: products.length, skipped: skipped.first, skippedCount: skipped.count, catalogSize };
    const steps = strayValues(this.current, products, this.fieldTypes);
    const strays = products.length <= this.syncLimit ? runSteps(steps) : await runInSlices(steps, this.sliceMs, 'change');
    if (strays.length > 0) summary.strayValues = strays;
    return summary;
  }

  /**
   * Deletes products by refId; unknown refIds are ignored. Resolves once the new version is the
   * current one (on a small, idle catalog that is already so when the call returns).
   */
  async delete(refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }> {
    const { count, catalogSize } = await this.enqueue({ kind: 'delete', refIds: refIds.slice() });
    return { deleted: count, catalogSize };
  }
}
