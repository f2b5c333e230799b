/**
 * `runPartial` (search/run-partial): one pass over a catalog's doc range — posting intersection for
 * the words, facet counting, min/max and top-k — for plans that exercise one part each.
 * @module
 */
import { type MicroCase, type MicroContext, consume, contextCatalog } from './context.js';

export const measures = 'runPartial';

interface RunPartialModule { runPartial(index: unknown, plan: unknown, lo: number, hi: number): { total: number } }
interface PlanModule { compileSearchPlan(state: unknown, request: unknown): { plan: unknown } }
interface ValidateModule { validateSearchRequest(body: unknown): unknown }

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const { runPartial } = await ctx.engine<RunPartialModule>('search/run-partial');
  const { compileSearchPlan } = await ctx.engine<PlanModule>('search/search-plan');
  const { validateSearchRequest } = await ctx.engine<ValidateModule>('search/validate-search-request');
  const catalog = await contextCatalog(ctx);
  const state = catalog.state as { index: { docCount: number } };
  const n = state.index.docCount;
  const base = { website_id: 'bench', client: 'bench', start: 0, size: 20 };
  const plan = (body: Record<string, unknown>): unknown => compileSearchPlan(state, validateSearchRequest({ ...base, ...body })).plan;
  const variants: [string, Record<string, unknown>][] = [
    ['one common word (posting list scan)', { q: 'black' }],
    ['two words (posting intersection)', { q: 'classic black' }],
    ['all docs: facet counts on brand and search_category', { q: '', aggregations: ['brand', 'search_category'] }],
    ['all docs: min/max of price and ratings', { q: '', range_fields: ['price', 'ratings'] }],
    ['all docs: top-20 by price (top-k)', { q: '', sort_fields: [{ price: { order: 'asc', type: 'number' } }] }],
    ['all docs: top-20 by brand then price (two-key top-k)', { q: '', sort_fields: [{ brand: { order: 'asc', type: 'text' } }, { price: { order: 'desc', type: 'number' } }] }],
  ];
  return variants.map(([name, body]) => {
    const p = plan(body);
    return { name: `${name}, ${n.toLocaleString('en-US')} docs`, fn: () => consume(runPartial(state.index, p, 0, n).total) };
  });
}
