/**
 * What every micro-benchmark file gets: a generated catalog and the engine's modules by path. A file
 * exports `cases(ctx)` returning the tasks to time, or throws {@link Unavailable} when the function it
 * measures does not exist yet (the engine is written in parallel).
 * @module
 */
import { engineModuleExists, importEngine } from '../engine-module.js';
import type { Product } from '../types.js';

export interface MicroContext {
  /** A generated catalog (seed 1). */
  products: Product[];
  /** Imports an engine module if it exists, else throws Unavailable. */
  engine<T>(modulePath: string): Promise<T>;
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

export class Unavailable extends Error {}

export function makeContext(products: Product[], tmpDir: string): MicroContext {
  return {
    products,
    tmpDir,
    async engine<T>(modulePath: string): Promise<T> {
      if (!engineModuleExists(modulePath)) throw new Unavailable(`engine module ${modulePath} does not exist yet`);
      return importEngine<T>(modulePath);
    },
  };
}

/** Keeps results observable so the optimiser cannot drop the measured work. */
export let sink: unknown;
export function consume(value: unknown): void {
  sink = value;
}

/** Shapes of the engine modules the micro-benchmarks use (declared here; see engine-module.ts). */
export interface CatalogLike {
  replace(source: Iterable<Product>): Promise<unknown>;
  state: { index: unknown };
}
export interface CatalogModule {
  Catalog: new () => CatalogLike;
  saveCatalogSnapshot(catalog: CatalogLike, file: string): Promise<void>;
  loadCatalogSnapshot(file: string): Promise<CatalogLike>;
  tokenize(text: string): string[];
}

/** A catalog of the context's products (cached per context). */
const catalogs = new WeakMap<MicroContext, Promise<CatalogLike>>();
export function contextCatalog(ctx: MicroContext): Promise<CatalogLike> {
  let c = catalogs.get(ctx);
  if (!c) {
    c = (async () => {
      const { Catalog } = await ctx.engine<CatalogModule>('catalog/index');
      const catalog = new Catalog();
      await catalog.replace(ctx.products);
      return catalog;
    })();
    catalogs.set(ctx, c);
  }
  return c;
}
