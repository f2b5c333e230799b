/** A test catalog holding `products` (built and published before it is returned). */
import { Catalog } from '../../catalog/catalog.js';
import type { Product } from '../../types.js';

export async function catalogOf(products: Product[], options?: ConstructorParameters<typeof Catalog>[0]): Promise<Catalog> {
  const catalog = new Catalog(options);
  await catalog.upsert(products);
  return catalog;
}
