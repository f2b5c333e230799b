/** `executeSearch` (search/execute-search): a whole search request inline, plan to payload. @module */
import { executeSearch, validateSearchRequest } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume, contextCatalog } from './context.js';

export const measures = 'executeSearch';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const catalog = await contextCatalog(ctx);
  const base = { website_id: 'bench', client: 'bench', start: 0, size: 20 };
  const requests: [string, Record<string, unknown>][] = [
    ['text "black"', { q: 'black' }],
    ['text + facets + min/max', { q: 'classic', aggregations: ['brand', 'search_category'], range_fields: ['price'] }],
    ['typo "hedphones"', { q: 'hedphones' }],
  ];
  return requests.map(([name, body]) => {
    const request = validateSearchRequest({ ...base, ...body });
    return { name: `${name}, ${ctx.products.length.toLocaleString('en-US')} products`, fn: async () => consume(await executeSearch(catalog, request)) };
  });
}
