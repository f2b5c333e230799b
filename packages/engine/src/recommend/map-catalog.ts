/**
 * A {@link CatalogView} over a Map, for driving the recommendation models without the search catalog
 * (tests, offline evaluations): the version changes on every write, as the real catalog's does, so the
 * models' derived indexes see the change.
 * @module
 */
import { objectProductList } from '../catalog/columns/product-store.js';
import { availableProduct } from '../catalog/field-values.js';
import type { CatalogView, Product, ProductList } from '../types.js';

/** A catalog view over a Map of products by refId. */
export class MapCatalog implements CatalogView {
  version = 1;
  private readonly byRef = new Map<string, Product>();
  constructor(products: Product[]) {
    for (const p of products) this.byRef.set(p.refId, p);
  }
  get liveCount(): number {
    return this.byRef.size;
  }
  has(refId: string): boolean {
    return this.byRef.has(refId);
  }
  getProduct(refId: string): Product | undefined {
    return this.byRef.get(refId);
  }
  isInStock(refId: string): boolean {
    const product = this.byRef.get(refId);
    return product !== undefined && availableProduct(product);
  }
  liveProducts(): ProductList {
    return objectProductList([...this.byRef.values()]);
  }
  upsert(p: Product): void {
    this.byRef.set(p.refId, p);
    this.version++;
  }
  delete(refId: string): void {
    this.byRef.delete(refId);
    this.version++;
  }
}
