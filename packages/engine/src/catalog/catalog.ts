/**
 * One website's catalog: a live, versioned, columnar product store with full-text and filter indexes.
 *
 * Change model — rebuild-and-swap: every batch (upsert, replace, delete) builds a complete new
 * immutable {@link CatalogState} from the previous products plus the batch, then swaps one reference.
 * A search takes that reference once when it starts, so it sees the catalog entirely before or after
 * a batch, never half of one, and workers can keep reading the old version's SharedArrayBuffers
 * while the new one is built. The cost is a full rebuild per batch (linear in the catalog): aisle
 * expects feeds in batches, not product-by-product writes; see docs/architecture-search.md.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { LoadOptions, LoadSummary, ProductSource } from '../engine-api.js';
import type { CatalogView, Product } from '../types.js';
import { buildCatalogState } from './build-catalog-state.js';
import type { CatalogState } from './catalog-index.js';
import { IMAGE_VECTOR_FIELD, numericValue } from './field-values.js';
import { readProducts } from './read-products.js';

/** Options of a {@link Catalog}. */
export interface CatalogOptions {
  /** BM25F weight per field (defaults: title 3, brand 2, search_category 1.5, others 1; 0 = not searchable). */
  fieldWeights?: Record<string, number>;
  /** Groups of equivalent query words, e.g. `[["tv", "television"]]`. */
  synonyms?: string[][];
}

/**
 * Products in order, the last occurrence of a refId winning at the position of its first; with the
 * refId → position map (the new version's doc ids, handed to the builder so it is not rebuilt).
 */
function mergeByRefId(base: readonly Product[], baseDocs: ReadonlyMap<string, number>, batch: readonly Product[]): { products: Product[]; docByRefId: Map<string, number> } {
  const products = base.slice();
  const docByRefId = new Map(baseDocs);
  for (const p of batch) {
    const at = docByRefId.get(p.refId);
    if (at === undefined) {
      docByRefId.set(p.refId, products.length);
      products.push(p);
    } else products[at] = p;
  }
  return { products, docByRefId };
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

  constructor(options: CatalogOptions = {}) {
    this.options = { fieldWeights: options.fieldWeights, synonyms: options.synonyms };
    this.current = buildCatalogState([], { catalogId: this.id, version: 0, fieldWeights: options.fieldWeights });
  }

  /** @internal A catalog holding an already built state (snapshot loading). */
  static fromProducts(products: Product[], options: CatalogOptions, makeState?: (catalogId: string) => CatalogState): Catalog {
    const catalog = new Catalog(options);
    catalog.current = makeState ? makeState(catalog.id) : buildCatalogState(products, { catalogId: catalog.id, version: 1, fieldWeights: options.fieldWeights });
    return catalog;
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
    return this.current.products.length;
  }

  /** True when a product with this refId is in the catalog. */
  has(refId: string): boolean {
    return this.current.docByRefId.has(refId);
  }

  /** The product exactly as given, or undefined. */
  getProduct(refId: string): Product | undefined {
    const doc = this.current.docByRefId.get(refId);
    return doc === undefined ? undefined : this.current.products[doc];
  }

  /** Known and `availability` is not 0 (missing, -1 or positive count as in stock). */
  isInStock(refId: string): boolean {
    const product = this.getProduct(refId);
    return product !== undefined && numericValue(product.availability) !== 0;
  }

  /** Visits every product in doc (insertion) order. */
  forEachProduct(visit: (product: Product) => void): void {
    for (const p of this.current.products) visit(p);
  }

  /** The product's `image_vector` as stored (Float32), or undefined. */
  getImageVector(refId: string): Float32Array | undefined {
    const s = this.current;
    const doc = s.docByRefId.get(refId);
    const v = s.vectors;
    if (doc === undefined || !v || v.present[doc] !== 1) return undefined;
    return v.data.subarray(doc * v.dimension, (doc + 1) * v.dimension);
  }

  /** Name of the reserved vector field. */
  static readonly imageVectorField = IMAGE_VECTOR_FIELD;

  private swap(products: Product[], docByRefId?: Map<string, number>): void {
    this.current = buildCatalogState(products, {
      catalogId: this.id, version: this.current.index.version + 1, fieldWeights: this.options.fieldWeights, docByRefId,
    });
  }

  /**
   * Inserts or updates products by refId (an update keeps the product's position). The batch is
   * read completely first; a bad record rejects it whole (default) and nothing changes.
   */
  async upsert(source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const { products, skipped } = await readProducts(source, options);
    // Merged against the state current *now* (after the read), synchronously: no lost update.
    if (products.length > 0) {
      const merged = mergeByRefId(this.current.products, this.current.docByRefId, products);
      this.swap(merged.products, merged.docByRefId);
    }
    return { loaded: products.length, skipped, catalogSize: this.liveCount };
  }

  /** Replaces the whole catalog atomically with the products of `source`. */
  async replace(source: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const { products, skipped } = await readProducts(source, options);
    const merged = mergeByRefId([], new Map(), products);
    this.swap(merged.products, merged.docByRefId);
    return { loaded: products.length, skipped, catalogSize: this.liveCount };
  }

  /** Deletes products by refId; unknown refIds are ignored. */
  delete(refIds: readonly string[]): { deleted: number; catalogSize: number } {
    const gone = new Set(refIds.filter((r) => this.current.docByRefId.has(r)));
    if (gone.size > 0) this.swap(this.current.products.filter((p) => !gone.has(p.refId)));
    return { deleted: gone.size, catalogSize: this.liveCount };
  }
}
