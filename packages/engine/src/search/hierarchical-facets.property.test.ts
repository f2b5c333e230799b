/**
 * Hierarchical facets and facet-value search against a plain reference, on random catalogs and
 * requests, inline and on the worker pool (threshold 0, so every search fans out): the hierarchy's
 * counts (top level, the refined nodes' siblings and children), the total under a hierarchy scope, and
 * the facet hits' values and counts. The reference computes "the rest of the request" with the plain
 * reference search (reference-search.ts) and counts paths and values by brute force.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebsiteSettings } from '../config.js';
import type { FacetHit, HierarchyNode, Product, SearchPayload, SearchRequest } from '../types.js';
import { Catalog } from '../catalog/catalog.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { isAisleError } from '../errors.js';
import { executeSearch } from './execute-search.js';
import { SearchPool } from './search-pool.js';
import { referenceSearch } from './__tests__/reference-search.js';
import { osa } from './__tests__/reference-search.js';

const LEVELS = ['Home', 'Kitchen', 'Garden', 'Toys', 'Ålpha', 'home'];
const BRANDS = ['Acme', 'Acme Pro', 'Zeta', 'Ålpha Beta', 'zeta & co', '<b>'];
const settings: WebsiteSettings = {
  hierarchies: {
    sep: { field: 'path', separator: ' / ' },
    arr: { field: 'levels' },
    per: { fields: ['lvl0', 'lvl1', 'lvl2'] },
    multi: { field: 'paths', separator: '/' },
  },
};

const pathArb = fc.array(fc.constantFrom(...LEVELS), { maxLength: 3 });
const productArb = fc.record({
  path: pathArb,
  // Several paths in one product (the separator form on an array of strings).
  paths: fc.array(pathArb, { maxLength: 3 }),
  brand: fc.option(fc.constantFrom(...BRANDS), { nil: undefined }),
  price: fc.integer({ min: 0, max: 9 }),
});

function catalogArb(): fc.Arbitrary<Product[]> {
  return fc.array(productArb, { maxLength: 80 }).map((bodies) => bodies.map(({ path, paths, brand, price }, i) => {
    const p: Product = { refId: `p${i}`, title: `item ${brand ?? ''}`, price };
    if (path.length > 0) {
      p.path = path.join(' / ');
      p.levels = path;
      path.forEach((level, l) => { p[`lvl${l}`] = level; });
    }
    if (paths.length > 0) p.paths = paths.map((x) => x.join('/'));
    if (brand !== undefined) p.brand = brand;
    return p;
  }));
}

const refinedArb = fc.array(fc.array(fc.constantFrom(...LEVELS), { minLength: 1, maxLength: 3 }).map((l) => l.join(' > ')), { maxLength: 2 });
const requestArb = fc.record({
  name: fc.constantFrom('sep', 'arr', 'per', 'multi'),
  refined: fc.option(refinedArb, { nil: undefined }),
  brand: fc.option(fc.subarray(BRANDS), { nil: undefined }),
  disjunctiveBrand: fc.boolean(),
  price: fc.option(fc.record({ min: fc.integer({ min: 0, max: 9 }) }), { nil: undefined }),
  q: fc.constantFrom('', 'item'),
  facetQ: fc.constantFrom('', 'a', 'ac', 'acme p', 'zeta', 'zeat', 'co', 'alpha b', 'b', 'xyz', 'ame'),
  facetField: fc.constantFrom('brand', 'lvl0'),
});

type Ask = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function toRequest(ask: Ask): SearchRequest {
  const scope: SearchRequest['scope'] = {};
  if (ask.refined !== undefined) scope[ask.name] = ask.refined;
  if (ask.brand !== undefined) scope.brand = ask.brand;
  if (ask.price !== undefined) scope.price = ask.price;
  return {
    website_id: 'w', client: 'c', q: ask.q, start: 0, size: 5, scope, hierarchical_facets: [ask.name],
    facet_search: { field: ask.facetField, q: ask.facetQ, size: 100 },
    ...(ask.disjunctiveBrand && { disjunctive_facets: ['brand'] }),
  };
}

/** The paths of a product in hierarchy `name`, as level lists. */
function pathsOf(p: Product, name: string): string[][] {
  const split = (s: string, sep: string) => s.split(sep).map((l) => l.trim()).filter((l) => l.length > 0);
  switch (name) {
    case 'sep': return typeof p.path === 'string' ? [split(p.path, ' / ')] : [];
    case 'multi': return ((p.paths as string[] | undefined) ?? []).map((s) => split(s, '/'));
    case 'arr': return Array.isArray(p.levels) ? [p.levels as string[]] : [];
    default: {
      const levels: string[] = [];
      for (const f of ['lvl0', 'lvl1', 'lvl2']) { if (typeof p[f] !== 'string') break; levels.push(p[f] as string); }
      return [levels];
    }
  }
}

function prefixesOf(p: Product, name: string): Set<string> {
  const out = new Set<string>();
  for (const path of pathsOf(p, name)) for (let k = 1; k <= path.length; k++) out.add(path.slice(0, k).join(' > '));
  return out;
}

const byCountThenValue = (a: { count: number; value: string }, b: { count: number; value: string }) =>
  b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** The reference: total, hierarchy tree and facet hits of one request. */
function reference(products: Product[], ask: Ask): { total: number; tree: HierarchyNode[]; hits: Omit<FacetHit, 'highlighted'>[] } {
  const request = toRequest(ask);
  const rest = { ...request.scope };
  delete rest[ask.name];
  // "The rest of the request": every condition but the hierarchy's own (disjunctive brand: see below).
  const base = referenceSearch(products, { ...request, scope: rest }).matches;
  const listed = ask.refined ?? [];
  const under = (p: Product) => listed.some((path) => prefixesOf(p, ask.name).has(path));
  const results = ask.refined === undefined ? base : base.filter(under);
  const all = new Set(products.flatMap((p) => [...prefixesOf(p, ask.name)]));
  const onPath = new Set<string>();
  for (const path of listed) if (all.has(path)) { const levels = path.split(' > '); for (let k = 1; k <= levels.length; k++) onPath.add(levels.slice(0, k).join(' > ')); }
  // A disjunctive brand: the hierarchy's counts still apply the brand condition (a held back condition
  // only frees its own counts), so `base` (brand applied) is what they count over.
  const level = (parent: string): HierarchyNode[] => {
    const paths = [...all].filter((x) => (parent === '' ? !x.includes(' > ') : x.startsWith(parent + ' > ') && !x.slice(parent.length + 3).includes(' > ')));
    const nodes = paths.map((path) => ({ value: path.split(' > ').at(-1)!, path, count: base.filter((p) => prefixesOf(p, ask.name).has(path)).length }))
      .filter((n) => n.count > 0 || onPath.has(n.path)).sort(byCountThenValue).slice(0, 100);
    return nodes.map((n) => (onPath.has(n.path) ? { ...n, children: level(n.path) } : n));
  };
  // Facet hits: the field counted over the products passing every condition but the field's own.
  const facetScope = { ...request.scope };
  delete facetScope[ask.facetField];
  delete facetScope[ask.name];
  const facetBase = referenceSearch(products, { ...request, scope: facetScope, disjunctive_facets: [] }).matches
    .filter((p) => ask.refined === undefined || under(p));
  const counts = new Map<string, number>();
  for (const p of facetBase) { const v = p[ask.facetField]; if (typeof v === 'string') counts.set(v, (counts.get(v) ?? 0) + 1); }
  const q = tokenize(ask.facetQ);
  const inOrder = (value: string, edits: (w: string) => number) => {
    const words = tokenize(value);
    let from = 0;
    return q.every((w, k) => {
      const last = k === q.length - 1;
      const e = edits(w);
      const ok = (t: string) => (last ? t.startsWith(w) || (e > 0 && [...Array(t.length + 1).keys()].some((n) => osa(w, t.slice(0, n)) <= e)) : t === w || (e > 0 && osa(w, t) <= e));
      const at = words.findIndex((t, j) => j >= from && ok(t));
      if (at < 0) return false;
      from = at + 1;
      return true;
    });
  };
  let hits = [...counts].filter(([v]) => inOrder(v, () => 0));
  if (hits.length === 0) hits = [...counts].filter(([v]) => inOrder(v, (w) => (w.length >= 8 ? 2 : w.length >= 4 ? 1 : 0)));
  return {
    total: results.length,
    tree: level(''),
    hits: hits.map(([value, count]) => ({ value, count })).sort(byCountThenValue),
  };
}

type Run = (catalog: Catalog, request: SearchRequest) => Promise<SearchPayload>;

function contract(name: string, run: Run, numRuns: number): void {
  describe(name, () => {
    it('counts hierarchies and facet values as the reference does', async () => {
      await fc.assert(fc.asyncProperty(catalogArb(), requestArb, async (products, ask) => {
        const catalog = new Catalog();
        await catalog.upsert(products);
        if (!products.some((p) => p[ask.facetField] !== undefined)) {
          // A facet search of a field no product has is a misspelling, as a sort key's or a bucket field's.
          await expect(run(catalog, toRequest(ask))).rejects.toSatisfy((e: unknown) => isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST');
          return;
        }
        const payload = await run(catalog, toRequest(ask));
        const expected = reference(products, ask);
        expect(payload.total_results).toBe(expected.total);
        expect(payload.hierarchical_aggregations![ask.name]).toEqual(expected.tree);
        expect(payload.facet_hits!.map(({ value, count }) => ({ value, count }))).toEqual(expected.hits);
      }), { numRuns });
    });
  });
}

contract('hierarchical facets and facet search inline', (catalog, request) => executeSearch(catalog, request, { settings }), 150);

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());
contract('hierarchical facets and facet search on the pool (threshold 0)', (catalog, request) => executeSearch(catalog, request, { settings, pool }), 80);
