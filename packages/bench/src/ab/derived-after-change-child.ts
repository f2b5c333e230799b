/**
 * One side of the derived-lookups A/B ({@link ./derived-after-change.ts}): an engine of the tree at
 * `root` (its packages/engine/dist, imported at run time, so the other side can be an older commit's
 * worktree) on the generated catalog, with the searches that read derived structures warmed (the
 * steady state of a live shop); then, per message, one one-product change and the first search of each
 * probe right after it, timed, with the longest event-loop stall during the change and during the probes.
 * @module
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import { loadDataset } from '../datasets.js';
import type { SearchRequest } from '../types.js';
import { watchEventLoopStalls } from '../event-loop-stalls.js';
import { waitForIdle } from './idle.js';

/** The changes of the A/B, one product each. */
export const CHANGE_KINDS = ['price', 'new', 'retitle', 'delete'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The searches timed after each change; each reads a structure derived from the catalog version. */
export const PROBES = ['hierarchy', 'text_sort', 'facets'] as const;
export type Probe = (typeof PROBES)[number];

export type DerivedChildMessage =
  | { type: 'setup'; root: string; products: number; label: string; engine: boolean }
  | { type: 'change'; kind: ChangeKind; i: number }
  | { type: 'stop' };

export type DerivedChildReply =
  | { type: 'ready'; buildMs: number }
  | { type: 'sample'; changeMs: number; changeStallMs: number; probeMs: Record<Probe, number>; probeStallMs: number; cpuMs: number; totals: Record<Probe, number> }
  | { type: 'stopped' }
  | { type: 'error'; error: string };

/** What the changes and probes go to: an engine, or a bare catalog (see {@link bareCatalog}). */
interface EngineLike {
  replaceProducts(websiteId: string, products: Iterable<unknown>): Promise<unknown>;
  upsertProducts(websiteId: string, products: Iterable<unknown>): Promise<unknown>;
  deleteProducts(websiteId: string, refIds: readonly string[]): Promise<unknown>;
  search(body: SearchRequest): Promise<{ payload: { total_results: number } }>;
  close(): Promise<void>;
}

interface CatalogLike {
  replace(products: Iterable<unknown>): Promise<unknown>;
  upsert(products: Iterable<unknown>): Promise<unknown>;
  delete(refIds: readonly string[]): Promise<unknown>;
}
interface Internal {
  Catalog: new () => CatalogLike;
  executeSearch(catalog: CatalogLike, request: unknown, context: { settings: unknown }): Promise<{ total_results: number }>;
  validateSearchRequest(body: unknown): unknown;
}

/**
 * A bare `Catalog` searched with the bench website's settings, behind the engine's calls: the changes
 * and searches without the engine's own work after a change (its recommendation indexes, rebuilt in
 * the background), which would otherwise run between the probes.
 */
function bareCatalog({ Catalog, executeSearch, validateSearchRequest }: Internal): EngineLike {
  const catalog = new Catalog();
  return {
    replaceProducts: (_, products) => catalog.replace(products),
    upsertProducts: (_, products) => catalog.upsert(products),
    deleteProducts: (_, refIds) => catalog.delete(refIds),
    search: async (body) => ({ payload: await executeSearch(catalog, validateSearchRequest(body), { settings: BENCH_WEBSITE.settings }) }),
    close: async () => {},
  };
}

let engine: EngineLike | undefined;
/** With `DERIVED_PROFILE` set (a directory): the changes and probes profiled, written there at `stop`. */
let session: Session | undefined;
let label = '';
/** Products kept for the changes (the rest is dropped after the load); picked in order. */
let kept: Record<string, unknown>[] = [];
let probes: Record<Probe, SearchRequest> | undefined;
const site = BENCH_WEBSITE.websiteId;

function probeRequests(category: string): Record<Probe, SearchRequest> {
  const base = { website_id: site, client: BENCH_WEBSITE.client, q: '', start: 0, size: 10 } as SearchRequest;
  return {
    // The bench's category menu (workloads/hierarchical-facets.ts): a category page two levels down.
    hierarchy: { ...base, scope: { categories: [category] }, hierarchical_facets: ['categories'] } as SearchRequest,
    text_sort: { ...base, sort_fields: [{ title: { order: 'asc', type: 'text' } }] } as SearchRequest,
    facets: { ...base, aggregations: ['brand', 'search_category'] } as SearchRequest,
  };
}

async function handle(m: DerivedChildMessage): Promise<DerivedChildReply> {
  if (m.type === 'setup') {
    const dist = (file: string) => pathToFileURL(join(m.root, 'packages/engine/dist', file)).href;
    const products = await loadDataset({ kind: 'generated', count: m.products, seed: 1 });
    const t0 = performance.now();
    engine = m.engine
      ? await (await import(dist('index.js')) as { createEngine(o: unknown): Promise<EngineLike> }).createEngine({ websites: [BENCH_WEBSITE] })
      : bareCatalog(await import(dist('internal.js')) as Internal);
    await engine.replaceProducts(site, products);
    const buildMs = performance.now() - t0;
    kept = products.filter((_, i) => i % 997 === 0).map((p) => ({ ...p }));
    const placed = kept.find((p) => Array.isArray(p.categories) && p.categories.length >= 2)!;
    probes = probeRequests((placed.categories as string[]).slice(0, 2).join(' > '));
    products.length = 0;
    for (const probe of PROBES) await engine.search(probes[probe]);
    await waitForIdle();
    label = m.label;
    if (process.env.DERIVED_PROFILE) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    return { type: 'ready', buildMs };
  }
  if (m.type === 'change') {
    const p = kept[m.i % kept.length]!;
    const change = m.kind === 'price' ? () => engine!.upsertProducts(site, [{ ...p, price: 1000 + m.i }])
      : m.kind === 'new' ? () => engine!.upsertProducts(site, [{ ...p, refId: `zz-new-${m.i}`, title: `zznew${m.i} ${String(p.title)}` }])
      : m.kind === 'retitle' ? () => engine!.upsertProducts(site, [{ ...p, refId: `zz-new-${m.i - 1}`, title: `zzretitled${m.i} ${String(p.title)}` }])
      : () => engine!.deleteProducts(site, [`zz-new-${m.i - 2}`]);
    // One more turn after each phase: the chain's tick measures the gap the phase's last piece of work
    // held the loop for (work without a yield in between would otherwise record none).
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const changeStalls = watchEventLoopStalls();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await change();
    const changeMs = performance.now() - t0;
    await turn();
    const changeStallMs = changeStalls.stop();
    const probeStalls = watchEventLoopStalls();
    const probeMs = {} as Record<Probe, number>;
    const totals = {} as Record<Probe, number>;
    for (const probe of PROBES) {
      const t1 = performance.now();
      totals[probe] = (await engine!.search(probes![probe])).payload.total_results;
      probeMs[probe] = performance.now() - t1;
    }
    const used = process.cpuUsage(cpu);
    await turn();
    const probeStallMs = probeStalls.stop();
    return { type: 'sample', changeMs, changeStallMs, probeMs, probeStallMs, cpuMs: (used.user + used.system) / 1000, totals };
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(process.env.DERIVED_PROFILE!, `${label}.cpuprofile`), JSON.stringify(profile));
  }
  await engine?.close();
  return { type: 'stopped' };
}

process.on('message', (m: DerivedChildMessage) => {
  handle(m).then((reply) => {
    process.send!(reply);
    if (reply.type === 'stopped') process.disconnect();
  }, (error: unknown) => process.send!({ type: 'error', error: error instanceof Error ? error.stack ?? error.message : String(error) }));
});
