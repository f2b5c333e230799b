/**
 * What every micro-benchmark file gets: a generated catalog and a scratch directory. A file imports the
 * function it measures statically from `@aisle/engine/internal` (a rename is a type error) and exports
 * `cases(ctx)` returning the tasks to time.
 * @module
 */
import { Catalog } from '@aisle/engine/internal';
import type { Product } from '../types.js';

export interface MicroContext {
  /** A generated catalog (seed 1). */
  products: Product[];
  /** A scratch directory for files (snapshots). */
  tmpDir: string;
}

export interface MicroCase {
  /** What one iteration does. */
  name: string;
  fn: () => unknown;
  /** The function measured, when the file measures several (default: the file's `measures`). */
  measures?: string;
}

export function makeContext(products: Product[], tmpDir: string): MicroContext {
  return { products, tmpDir };
}

/** Keeps results observable so the optimiser cannot drop the measured work. */
export let sink: unknown;
export function consume(value: unknown): void {
  sink = value;
}

/** A catalog of the context's products (cached per context). */
const catalogs = new WeakMap<MicroContext, Promise<Catalog>>();
export function contextCatalog(ctx: MicroContext): Promise<Catalog> {
  let c = catalogs.get(ctx);
  if (!c) {
    c = (async () => {
      const catalog = new Catalog();
      await catalog.replace(ctx.products);
      return catalog;
    })();
    catalogs.set(ctx, c);
  }
  return c;
}
