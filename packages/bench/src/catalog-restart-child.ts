/**
 * The two processes of the restart benchmark (catalog-restart.ts), each forked fresh:
 * - `write`: an engine with a data directory (embedded SQLite store) and one website loads N generated
 *   products and some shopper history, writes its catalog snapshot, and closes;
 * - `start`: a new engine on that data directory, timed from the process's own start
 *   (`performance.timeOrigin`) to: the modules loaded, `createEngine` resolved, the first text search
 *   and facet browse answered, and `readiness()` ready. The engine's own start log (its `info` lines,
 *   see engine.ts) gives the breakdown of the catalog load.
 * With `hierarchies` the website declares the generator's `categories` hierarchy (as the bench website
 * does) and the start's first request is a category page (a subtree two levels down with the category
 * menu), timed on its own. With `engineRoot` the engine is the one built in that tree
 * (`packages/engine/dist`), so that an A/B can start an older commit's engine (ab/restart-hierarchies.ts).
 * @module
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Engine, EngineLogger, createEngine as CreateEngine } from '@aisle/engine';
import type { Product, generateCatalogStream as GenerateCatalogStream, generateInteractions as GenerateInteractions } from '@aisle/engine/demo';
import { serveChild } from './child-process.js';

/** Milliseconds from the process's start until this module's body runs: node, tsx (from sources) and every import. */
const modulesLoadedMs = performance.now();

/**
 * The store of both phases: SQLite in the data directory when absent; PostgreSQL (the catalog kept in the
 * store, no data directory) with `{ type: 'postgres', url, schema }`.
 */
export type RestartStore = { type: 'postgres'; url: string; schema: string } | undefined;

/** What both phases may be asked besides their own (see the module doc). */
interface RestartOptions {
  store?: RestartStore;
  /** The website declares the `categories` hierarchy; the start's first request is a category page. */
  hierarchies?: boolean;
  /** A tree whose `packages/engine/dist` is the engine (default: this package's dependency). */
  engineRoot?: string;
}

export type RestartChildInput =
  | ({ phase: 'write'; dataDir: string; products: number; sessions: number } & RestartOptions)
  | ({ phase: 'start'; dataDir: string } & RestartOptions);

/** The engine's entry points a phase uses, from this package's dependency or from `engineRoot`. */
interface EngineModules {
  createEngine: typeof CreateEngine;
  generateCatalogStream: typeof GenerateCatalogStream;
  generateInteractions: typeof GenerateInteractions;
}

async function engineModules(engineRoot: string | undefined): Promise<EngineModules> {
  const at = (file: string) => pathToFileURL(path.join(engineRoot!, 'packages', 'engine', 'dist', file)).href;
  const [main, demo] = engineRoot === undefined
    ? await Promise.all([import('@aisle/engine'), import('@aisle/engine/demo')])
    : await Promise.all([import(at('index.js')) as Promise<typeof import('@aisle/engine')>, import(at('demo/index.js')) as Promise<typeof import('@aisle/engine/demo')>]);
  return { createEngine: main.createEngine, generateCatalogStream: demo.generateCatalogStream, generateInteractions: demo.generateInteractions };
}

/** The engine options of a phase's store. */
function storeOptions(input: { dataDir: string; store?: RestartStore }): { dataDir: string } | { store: NonNullable<RestartStore> } {
  return input.store === undefined ? { dataDir: input.dataDir } : { store: input.store };
}

/** What the write phase did. */
export interface WriteResult { products: number; loadMs: number; eventsMs: number; snapshotMs: number; snapshotBytes: number }

/** An `info` line the engine logged while starting. */
export interface StartLogLine { message: string; details: Record<string, unknown> }

/** What the start phase measured: each time in ms from the process's start. */
export interface StartResult {
  modulesLoadedMs: number;
  engineCreatedMs: number;
  firstSearchMs: number;
  firstBrowseMs: number;
  readyMs: number;
  /** The checks not ready at the first readiness call (with their reasons). */
  firstNotReady: string[];
  products: number;
  /** With `hierarchies`: the category page, the start's first request (ms from the process's start), its CPU, a digest of its answer. */
  firstHierarchyMs?: number;
  hierarchyCpuMs?: number;
  hierarchyAnswer?: string;
  /** CPU of the process (user + system, every thread) until `createEngine` resolved, the first search answered, ready. */
  engineCpuMs: number;
  searchCpuMs: number;
  cpuMs: number;
  rssBytes: number;
  log: StartLogLine[];
}

/** Requests of the write phase kept in flight. */
const WRITERS = 32;

/** Calls `send` for every body, {@link WRITERS} at a time. */
async function inFlight<T>(bodies: readonly T[], send: (body: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    while (next < bodies.length) await send(bodies[next++]!);
  }));
}

const cpuMs = (): number => { const cpu = process.cpuUsage(); return (cpu.user + cpu.system) / 1000; };

const WEBSITE = { websiteId: 'shop', client: 'shop', tokens: ['restart-token'], hmacSecret: 'restart-secret' };

/** The website of a phase: with `hierarchies`, the generator's category paths declared as one. */
function websiteOf(input: RestartOptions) {
  return input.hierarchies ? { ...WEBSITE, settings: { hierarchies: { categories: { field: 'categories' } } } } : WEBSITE;
}

async function write(input: Extract<RestartChildInput, { phase: 'write' }>): Promise<WriteResult> {
  const { createEngine, generateCatalogStream, generateInteractions } = await engineModules(input.engineRoot);
  const engine = await createEngine({ ...storeOptions(input), workers: 0, websites: [websiteOf(input)] });
  try {
    let t = performance.now();
    const summary = await engine.replaceProducts(WEBSITE.websiteId, generateCatalogStream({ count: input.products, seed: 1 }));
    const loadMs = performance.now() - t;
    t = performance.now();
    if (input.sessions > 0) {
      // The history's shoppers browse the first products (enough of them for the sessions asked).
      const sample: Product[] = [];
      for (const p of generateCatalogStream({ count: Math.min(input.products, input.sessions * 2), seed: 1 })) sample.push(p);
      const { views, purchases } = generateInteractions({ products: sample, sessions: input.sessions, seed: 7, now: Date.now() });
      // Many shoppers at once (group commits): millions of stored views are written in minutes, not hours.
      await inFlight(views, (body) => engine.recordViews(WEBSITE.websiteId, body));
      await inFlight(purchases, (body) => engine.recordPurchases(WEBSITE.websiteId, body));
    }
    const eventsMs = performance.now() - t;
    t = performance.now();
    await engine.saveSnapshots();
    const snapshotMs = performance.now() - t;
    // Once more, for the trees an A/B starts from an older engine root: before snapshots carried their
    // change log mark (decision 0056) a start after one snapshot replayed the load (a rebuild of the
    // catalog), after a second nothing; with the mark the second changes nothing.
    await engine.saveSnapshots();
    // On PostgreSQL the catalog's snapshot is in the store (its size is not reported here).
    const snapshotBytes = input.store === undefined ? statSync(path.join(input.dataDir, 'catalogs', `${WEBSITE.websiteId}.aislesnap`)).size : 0;
    return { products: summary.catalogSize, loadMs, eventsMs, snapshotMs, snapshotBytes };
  } finally {
    await engine.close();
  }
}

async function start(input: Extract<RestartChildInput, { phase: 'start' }>): Promise<StartResult> {
  const log: StartLogLine[] = [];
  const collect = (details: object, message?: string): void => { log.push({ message: message ?? '', details: details as Record<string, unknown> }); };
  const logger: EngineLogger = { info: collect, warn: collect, error: collect };
  const { createEngine, generateCatalogStream } = await engineModules(input.engineRoot);
  // The engine as `aisle serve` starts it: default search workers.
  const engine: Engine = await createEngine({ ...storeOptions(input), websites: [websiteOf(input)], logger });
  const engineCreatedMs = performance.now();
  const engineCpuMs = cpuMs();
  const base = { website_id: WEBSITE.websiteId, client: WEBSITE.client, start: 0, size: 20 };
  let hierarchy: Pick<StartResult, 'firstHierarchyMs' | 'hierarchyCpuMs' | 'hierarchyAnswer'> = {};
  if (input.hierarchies) {
    // The first product's department and category (the generator is deterministic): a category page.
    const [first] = generateCatalogStream({ count: 1, seed: 1 });
    const under = (first!.categories as string[]).slice(0, 2).join(' > ');
    const page = await engine.search({ ...base, q: '', scope: { categories: [under] }, hierarchical_facets: ['categories'], aggregations: ['brand'] });
    hierarchy = { firstHierarchyMs: performance.now(), hierarchyCpuMs: cpuMs() - engineCpuMs };
    if (page.payload.total_results === 0) throw new Error(`the category page ${under} found nothing`);
    const { total_results: total, hierarchical_aggregations: tree, aggregations } = page.payload;
    hierarchy.hierarchyAnswer = createHash('sha256').update(JSON.stringify({ total, tree, aggregations })).digest('hex').slice(0, 16);
  }
  const text = await engine.search({ ...base, q: 'red shirt', aggregations: ['brand', 'search_category'], range_fields: ['price'] });
  const firstSearchMs = performance.now();
  const searchCpuMs = cpuMs();
  const browse = await engine.search({
    ...base, q: '', scope: { search_category: [String(text.payload.result[0]?.search_category ?? '')] }, aggregations: ['brand'],
    range_fields: ['price'], sort_fields: [{ price: { order: 'asc', type: 'number' } }],
  });
  const firstBrowseMs = performance.now();
  if (text.payload.total_results === 0 || browse.payload.total_results === 0) throw new Error('the first searches found nothing: the catalog was not restored');
  let readiness = await engine.readiness();
  const firstNotReady = readiness.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.reason ?? ''}`);
  while (!readiness.ready) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    readiness = await engine.readiness();
  }
  const readyMs = performance.now();
  const readyCpuMs = cpuMs();
  const products = (await engine.stats(WEBSITE.websiteId)).products;
  const rssBytes = process.memoryUsage().rss;
  await engine.close();
  return {
    modulesLoadedMs, engineCreatedMs, firstSearchMs, firstBrowseMs, readyMs, firstNotReady, products,
    engineCpuMs, searchCpuMs, cpuMs: readyCpuMs, rssBytes, log, ...hierarchy,
  };
}

serveChild<RestartChildInput, WriteResult | StartResult>((input) => (input.phase === 'write' ? write(input) : start(input)));
