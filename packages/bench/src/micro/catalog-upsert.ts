/**
 * `Catalog.upsert` (catalog/catalog): one-product changes of a live catalog by kind — a new price (value
 * patch), a new product (append), a new title (full rebuild). Each case has a catalog of its own.
 * @module
 */
import { Catalog } from '@aisle/engine/internal';
import type { Product } from '../types.js';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'Catalog.upsert';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const fresh = async (): Promise<Catalog> => {
    const catalog = new Catalog();
    await catalog.replace(ctx.products);
    return catalog;
  };
  const [prices, inserts, titles] = [await fresh(), await fresh(), await fresh()];
  const size = ctx.products.length.toLocaleString('en-US');
  const price = (p: Product) => (typeof p.price === 'number' ? p.price : 1);
  let i = 0;
  let j = 0;
  let t = 0;
  return [
    {
      name: `1 product of ${size}, new price (value patch)`,
      fn: async () => {
        const p = ctx.products[i++ % ctx.products.length];
        consume(await prices.upsert([{ ...p, price: price(p) + i }]));
      },
    },
    {
      name: `1 new product into ${size} (append)`,
      fn: async () => {
        const p = ctx.products[j % ctx.products.length];
        consume(await inserts.upsert([{ ...p, refId: `bench-new-${j++}` }]));
      },
    },
    {
      name: `1 product of ${size}, new title (full rebuild)`,
      fn: async () => {
        const p = ctx.products[t++ % ctx.products.length];
        consume(await titles.upsert([{ ...p, title: `${String(p.title)} v${t}` }]));
      },
    },
  ];
}
