/**
 * The products of a catalog version, by doc id, and the revision of each: a number naming the
 * product's *version*. A product keeps its revision while it is unchanged — across appends, value
 * patches of other products, deletes, merges and rebuilds — and gets a new one when it is changed.
 * Derived indexes and caches key what they computed from a product by its revision (they used to key
 * by object identity, which a store decoding products on read cannot keep).
 *
 * Revisions are unique in the process: one counter for every catalog, so a cache shared by two
 * versions, or kept across a catalog replaced by another, never mistakes one product for another.
 * @module
 */
import type { Product, ProductList } from '../types.js';

/** The products of one immutable catalog version (see module doc). */
export interface ProductStore extends ProductList {
  /** Number of docs (deleted ones included: they stay until a merge). */
  readonly length: number;
  /** Doc `doc`'s product, exactly as given. */
  get(doc: number): Product;
  /** Doc `doc`'s revision. */
  revision(doc: number): number;
}

let lastRevision = 0;

/** A revision no product has had in this process. */
export function newRevision(): number {
  return ++lastRevision;
}

/** Makes sure later {@link newRevision}s are above `revision` (revisions read back from a snapshot). */
export function reserveRevisions(revision: number): void {
  if (revision > lastRevision) lastRevision = revision;
}

/** Fresh revisions for `count` new products. */
export function newRevisions(count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = newRevision();
  return out;
}

/** A store over an array of products as given, with their revisions (immutable: never written). */
export class ArrayProductStore implements ProductStore {
  /** `revisions[d]` is doc d's revision; fresh ones when not given. */
  constructor(private readonly products: readonly Product[], private readonly revisions: Float64Array = newRevisions(products.length)) {
    if (revisions.length !== products.length) throw new Error('a revision per product is needed');
  }

  get length(): number {
    return this.products.length;
  }

  get(doc: number): Product {
    return this.products[doc];
  }

  revision(doc: number): number {
    return this.revisions[doc];
  }

  /** This store with `changed` products (doc → product) replaced, each with a new revision. */
  withReplaced(changed: ReadonlyMap<number, Product>): ArrayProductStore {
    const products = this.products.slice();
    const revisions = this.revisions.slice();
    for (const [doc, product] of changed) {
      products[doc] = product;
      revisions[doc] = newRevision();
    }
    return new ArrayProductStore(products, revisions);
  }

  /** This store with `added` products after its docs, each with a new revision. */
  withAppended(added: readonly Product[]): ArrayProductStore {
    const products = this.products.concat(added);
    const revisions = new Float64Array(products.length);
    revisions.set(this.revisions);
    revisions.set(newRevisions(added.length), this.products.length);
    return new ArrayProductStore(products, revisions);
  }
}

/** The products of a list, in order (one decode each). */
export function productsOf(list: ProductList): Product[] {
  const out = new Array<Product>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list.get(i);
  return out;
}

/**
 * A list over products held as objects, for catalog views that keep them so (tests, offline tools):
 * an object's revision is the one it was first seen with, so an unchanged object keeps its revision
 * and a replaced product (a new object) gets a new one.
 */
export function objectProductList(products: readonly Product[]): ProductList {
  const revisions = Float64Array.from(products, revisionOfObject);
  return { length: products.length, get: (i) => products[i], revision: (i) => revisions[i] };
}

const objectRevisions = new WeakMap<Product, number>();

function revisionOfObject(product: Product): number {
  let revision = objectRevisions.get(product);
  if (revision === undefined) objectRevisions.set(product, (revision = newRevision()));
  return revision;
}
