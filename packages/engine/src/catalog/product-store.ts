/**
 * The products of one catalog version, by doc id, behind one small interface: every reader (search
 * pages, `getProduct`, PATCH merges, recommendations, snapshots) goes through {@link ProductStore}, so
 * how products are kept is decided here only.
 *
 * Kept as {@link StoredJson} (one UTF-8 buffer with offsets, decoded only when a product is read)
 * plus, for the fast paths that change a few docs without a rebuild (value patches, appends), those
 * docs' objects on top. A full rebuild encodes everything again, which folds the objects back into
 * the buffer. Issue 13, item 3; see docs/architecture-search.md ("Stored products").
 * @module
 */
import type { Product } from '../types.js';
import { runSteps, type Steps } from './build-catalog-state.js';
import { StoredJson } from './stored-json.js';

/** Docs decoded between two yields of {@link ProductStore.decodeAll}. */
const DECODE_STEP = 1024;

/**
 * The products of a catalog version: immutable. `get` may return a fresh object on every call (callers
 * must not rely on identity nor modify it).
 */
export class ProductStore {
  private constructor(
    /** Docs `0 .. encoded.count - 1`, as text. */
    private readonly encoded: StoredJson,
    /** Docs replaced since the text was encoded (value patches), by doc id. */
    private readonly replaced: ReadonlyMap<number, Product>,
    /** Docs appended since the text was encoded, from doc `encoded.count` on. */
    private readonly appended: readonly Product[],
  ) {}

  /** `products` in doc order, encoded (in steps: see {@link StoredJson.buildSteps}). */
  static *encodeSteps(products: readonly Product[]): Steps<ProductStore> {
    return new ProductStore(yield* StoredJson.buildSteps(products), new Map(), []);
  }

  /** {@link ProductStore.encodeSteps} in one go. */
  static encode(products: readonly Product[]): ProductStore {
    return new ProductStore(StoredJson.from(products), new Map(), []);
  }

  /** A store over already encoded text (a snapshot's). */
  static fromStoredJson(encoded: StoredJson): ProductStore {
    return new ProductStore(encoded, new Map(), []);
  }

  /** Number of products. */
  get length(): number {
    return this.encoded.count + this.appended.length;
  }

  /** Doc `doc`'s product exactly as given (same keys in the same order). */
  get(doc: number): Product {
    const n = this.encoded.count;
    if (doc >= n) return this.appended[doc - n];
    return this.replaced.get(doc) ?? this.encoded.get(doc);
  }

  /** Docs `docs`, in the given order (a page of results). */
  page(docs: ArrayLike<number>): Product[] {
    return Array.from(docs, (d) => this.get(d));
  }

  /**
   * This store with `replaced` docs changed and `appended` added at the end; shares the text, copies
   * only the (few) objects kept beside it.
   */
  with(replaced: Iterable<readonly [number, Product]>, appended: readonly Product[] = []): ProductStore {
    const nextReplaced = new Map(this.replaced);
    const nextAppended = appended.length > 0 ? [...this.appended, ...appended] : this.appended.slice();
    for (let i = this.appended.length; i < nextAppended.length; i++) nextAppended[i] = asStored(nextAppended[i]);
    const n = this.encoded.count;
    for (const [doc, product] of replaced) {
      if (doc >= n) nextAppended[doc - n] = asStored(product);
      else nextReplaced.set(doc, asStored(product));
    }
    return new ProductStore(this.encoded, nextReplaced, nextAppended);
  }

  /** Every product, decoded, in doc order (what a full rebuild starts from); yields every few docs. */
  *decodeAll(): Steps<Product[]> {
    const out = new Array<Product>(this.length);
    for (let d = 0; d < out.length; d++) {
      out[d] = this.get(d);
      if (d % DECODE_STEP === DECODE_STEP - 1) yield;
    }
    return out;
  }

  /** Every product, decoded, in doc order, in one go. */
  toArray(): Product[] {
    return runSteps(this.decodeAll());
  }

  /** Visits every product in doc order. */
  forEach(visit: (product: Product, doc: number) => void): void {
    for (let d = 0, n = this.length; d < n; d++) visit(this.get(d), d);
  }

  /**
   * The encoded text when nothing was changed beside it (then it is the whole store, as a snapshot
   * writes it), else undefined.
   */
  get encodedOnly(): StoredJson | undefined {
    return this.replaced.size === 0 && this.appended.length === 0 ? this.encoded : undefined;
  }
}

/**
 * The product as the stored text gives it back (a JSON round trip: -0 reads 0, undefined values are
 * dropped), so a doc kept as an object beside the text reads exactly as after the next rebuild.
 */
function asStored(product: Product): Product {
  return JSON.parse(JSON.stringify(product)) as Product;
}
