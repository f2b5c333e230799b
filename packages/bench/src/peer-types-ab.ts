/**
 * aisle's peer request types (the peers run's workload) on two or more builds of the repository, in one
 * process: every build's own engine (its `dist`) indexes the same generated catalog, and each query is
 * answered by every build in turn, the order rotating from query to query. On a loaded machine the
 * figures of separate runs move by more than most changes; answers interleaved query by query share the
 * load, so their ratio is what a change is judged by. Each build gets the settings under test
 * (`settings.distinct` grouping by the bench's {@link DISTINCT_FIELD}; the other types say
 * `distinct: false`, as the peers adapter does); a build that does not know `distinct` answers only the
 * other types.
 *
 *   node packages/bench/dist/peer-types-ab.js [products] [--queries=N] <repository root> <repository root> …
 *
 * Prints a Markdown table: per build and request type, median / p99 ms over the timed queries (after
 * a warm-up of 5 per type).
 * @module
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateCatalog } from '@aisle/engine/demo';
import { DISTINCT_FIELD, REQUEST_LABELS, REQUEST_TYPES, type RequestType, type SearchRequest } from './types.js';
import { buildWorkload } from './workloads/index.js';
import { summarize } from './stats.js';

const args = process.argv.slice(2);
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const queriesArg = args.find((a) => a.startsWith('--queries='));
const queries = queriesArg ? Number(queriesArg.slice('--queries='.length)) : 200;
const roots = args.filter((a) => !/^\d+$/.test(a) && !a.startsWith('--')).map((r) => path.resolve(r));
if (roots.length === 0) {
  console.error('usage: peer-types-ab [products] [--queries=N] <repository root> …');
  process.exit(2);
}

interface Internal {
  Catalog: new () => { upsert(products: unknown[]): Promise<unknown> };
  executeSearch(catalog: unknown, request: unknown, context: { settings?: unknown }): Promise<{ total_results: number }>;
  validateSearchRequest(body: unknown): unknown;
}

const products = generateCatalog({ count, seed: 1 });
const workload = buildWorkload(products.slice(0, 20_000), queries);
const builds: { label: string; internal: Internal; catalog: unknown; distinct: boolean }[] = [];
for (const root of roots) {
  const internal = await import(pathToFileURL(path.join(root, 'packages/engine/dist/internal.js')).href) as Internal;
  const catalog = new internal.Catalog();
  const t = performance.now();
  await catalog.upsert(products);
  // A build whose request schema has no `distinct` ignores it (unknown top-level fields are dropped).
  const knows = JSON.stringify(internal.validateSearchRequest({ website_id: 'w', client: 'c', q: '', start: 0, distinct: true })).includes('distinct');
  builds.push({ label: path.basename(root), internal, catalog, distinct: knows });
  console.error(`${path.basename(root)}: built ${count} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const settings = { distinct: { field: DISTINCT_FIELD } };

const samples = builds.map(() => new Map<RequestType, number[]>());
for (const type of REQUEST_TYPES) {
  const list: SearchRequest[] = workload[type];
  const runs = builds.map((b) => (type === 'distinct' && !b.distinct ? undefined : b));
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < builds.length; j++) {
      const k = (i + j) % builds.length;
      const build = runs[k];
      if (!build) continue;
      const body = type === 'distinct' ? list[i] : { ...list[i], ...(build.distinct ? { distinct: false } : {}) };
      const request = build.internal.validateSearchRequest(body);
      const t = performance.now();
      await build.internal.executeSearch(build.catalog, request, { settings: build.distinct ? settings : {} });
      const ms = performance.now() - t;
      if (i >= 5) (samples[k].get(type) ?? samples[k].set(type, []).get(type)!).push(ms);
    }
  }
}
const lines = [`| build | ${REQUEST_TYPES.map((t) => REQUEST_LABELS[t]).join(' | ')} |`, `|---|${REQUEST_TYPES.map(() => '---:').join('|')}|`];
builds.forEach((b, k) => {
  lines.push(`| ${b.label} | ${REQUEST_TYPES.map((t) => {
    const s = samples[k].get(t);
    if (!s || s.length === 0) return '–';
    const l = summarize(s);
    return `${l.median.toFixed(2)} / ${l.p99.toFixed(1)}`;
  }).join(' | ')} |`);
});
console.log(lines.join('\n'));
