/**
 * `runPartial` (search/run-partial): one pass over a catalog's doc range — posting intersection for
 * the words, facet counting, min/max, range buckets and top-k — for plans that exercise one part each.
 * @module
 */
import { compileSearchPlan, runPartial, validateSearchRequest } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume, contextCatalog } from './context.js';

export const measures = 'runPartial';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const catalog = await contextCatalog(ctx);
  const state = catalog.state;
  const n = state.index.docCount;
  const base = { website_id: 'bench', client: 'bench', start: 0, size: 20 };
  const plan = (body: Record<string, unknown>) => compileSearchPlan(state, validateSearchRequest({ ...base, ...body })).plan;
  const variants: [string, Record<string, unknown>][] = [
    ['one common word (posting list scan)', { q: 'black' }],
    ['two words (posting intersection)', { q: 'classic black' }],
    ['all docs: facet counts on brand and search_category', { q: '', aggregations: ['brand', 'search_category'] }],
    ['all docs: min/max of price and ratings', { q: '', range_fields: ['price', 'ratings'] }],
    ['all docs: range buckets of price (10 bands)', { q: '', range_buckets: { price: [10, 20, 50, 100, 200, 500, 1000, 2000, 5000] } }],
    ['all docs: top-20 by price (top-k)', { q: '', sort_fields: [{ price: { order: 'asc', type: 'number' } }] }],
    ['all docs: top-20 by brand then price (two-key top-k)', { q: '', sort_fields: [{ brand: { order: 'asc', type: 'text' } }, { price: { order: 'desc', type: 'number' } }] }],
    // Scope conditions (search/conditions.ts): per-doc checks over browse candidates and over text matches.
    ['browse: scope price 20-80 (numeric checks per candidate)', { q: '', scope: { price: { min: 20, max: 80 } } }],
    ['browse: scope brand exists (value checks per candidate)', { q: '', scope: { brand: { exists: true } } }],
    ['one common word, scope price 20-80 (checks per match)', { q: 'black', scope: { price: { min: 20, max: 80 } } }],
  ];
  return variants.map(([name, body]) => {
    const p = plan(body);
    return { name: `${name}, ${n.toLocaleString('en-US')} docs`, fn: () => consume(runPartial(state.index, p, 0, n).total) };
  });
}
