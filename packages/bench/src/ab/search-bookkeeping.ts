/**
 * What `engine.search` adds to the search itself (the per-search bookkeeping: the signed result id, the
 * result list kept for clicks, the search log and its completions), in one process: the same queries
 * through `engine.search` and through `executeRankedSearch` on the same catalog, interleaved per query
 * (the side going first alternating every round), after the engine's background work settled. The tree
 * measured is the one at `--root` (default: this one), so an older commit's worktree can be compared.
 *
 * Run: `node packages/bench/dist/ab/search-bookkeeping.js [--root <tree>] [--products 100000] [--rounds 6]`
 * @module
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadDataset } from '../datasets.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { SearchRequest } from '../types.js';
import { buildWorkload } from '../workloads/index.js';
import { waitForIdle } from './idle.js';
import { option } from '../cli-option.js';

const root = option('root', join(import.meta.dirname, '../../../..'));
const products = Number(option('products', '100000'));
const rounds = Number(option('rounds', '6'));

interface SiteLike { catalog: unknown; config: { settings?: unknown } }
interface EngineLike {
  replaceProducts(websiteId: string, products: unknown): Promise<unknown>;
  search(body: SearchRequest): Promise<unknown>;
  close(): Promise<void>;
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]!; };

async function main(): Promise<void> {
  const load = (path: string) => import(pathToFileURL(join(root, 'packages/engine/dist', path)).href);
  const { createEngine } = await load('index.js') as { createEngine(o: unknown): Promise<EngineLike> };
  const { executeRankedSearch, validateSearchRequest } = await load('internal.js') as {
    executeRankedSearch(catalog: unknown, request: unknown, context: unknown): Promise<unknown>;
    validateSearchRequest(body: unknown): unknown;
  };
  const all = await loadDataset({ kind: 'generated', count: products, seed: 1 });
  const workload = buildWorkload(all.slice(0, 20_000), 300);
  const engine = await createEngine({ websites: [BENCH_WEBSITE] });
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, all);
  await waitForIdle();
  // The engine's website state, read as the engine reads it (a private field: this is a bench of its internals).
  const site = (engine as unknown as { sites: Map<string, SiteLike> }).sites.get(BENCH_WEBSITE.websiteId)!;
  for (const type of ['text', 'text_facets'] as const) {
    const full: number[] = [];
    const core: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const body of workload[type]) {
        for (const side of r % 2 === 0 ? [0, 1] : [1, 0]) {
          const t0 = performance.now();
          if (side === 0) await engine.search(body);
          else await executeRankedSearch(site.catalog, validateSearchRequest(body), { settings: site.config.settings ?? {} });
          (side === 0 ? full : core).push(performance.now() - t0);
        }
      }
    }
    const [f, c] = [median(full), median(core)];
    console.log(`${products.toLocaleString('en-US')} products, ${type}: engine.search ${f.toFixed(3)} ms, executeRankedSearch alone ${c.toFixed(3)} ms, `
      + `bookkeeping ${(1000 * (f - c)).toFixed(0)} µs (medians of ${full.length}; ${root})`);
  }
  await engine.close();
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
