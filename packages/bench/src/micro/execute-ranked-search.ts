/**
 * `executeRankedSearch` (search/execute-search): a search with the re-rank stage — the built-in
 * semantic model's similarity over the best 100 matches, and a customer's affinities over the best 500 —
 * beside the same search without it (`execute-search.ts`), so the stage's cost reads as the difference.
 * @module
 */
import {
  affinityOf, affinityProfile, DEFAULT_AFFINITY_ROLES, executeRankedSearch, makeReranker, trainTextModel, validateSearchRequest,
} from '@aisle/engine/internal';
import type { Product } from '../types.js';
import { type MicroCase, type MicroContext, consume, contextCatalog } from './context.js';

export const measures = 'executeRankedSearch';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const catalog = await contextCatalog(ctx);
  const fields = ['title', 'brand', 'search_category'];
  const steps = trainTextModel(ctx.products, fields);
  let next = steps.next();
  while (!next.done) next = steps.next();
  const model = next.value;
  const request = validateSearchRequest({ website_id: 'bench', client: 'bench', start: 0, size: 20, q: 'black' });
  // Uncached: every iteration embeds the 100 candidates (the engine caches them per product).
  const semantic = makeReranker({
    semantic: {
      weight: 0.5,
      scores: async (candidates) => {
        const q = model.embedOne('black');
        return {
          label: 'aisle-ri@bench',
          similarities: candidates.map((p) => {
            const v = model.embedWeighted(fields.map((f) => ({ text: typeof p[f] === 'string' ? (p[f] as string) : '', weight: 1 })));
            let dot = 0;
            for (let i = 0; i < v.length; i++) dot += v[i] * q[i];
            return dot;
          }),
        };
      },
    },
  });
  const byRef = new Map<string, Product>(ctx.products.map((p) => [p.refId, p]));
  const history = ctx.products.slice(0, 20).map((p) => p.refId);
  const profile = affinityProfile({ purchased: history.slice(0, 3), recent: history.slice(3, 10), historic: history.slice(10) }, (id) => byRef.get(id), DEFAULT_AFFINITY_ROLES);
  const personal = makeReranker({ personalization: { weight: 0.3, affinity: (p) => (profile ? affinityOf(profile, p) : 0) } });
  const n = ctx.products.length.toLocaleString('en-US');
  return [
    { name: `text "black" + semantic re-rank of 100 (uncached vectors), ${n} products`, fn: async () => consume(await executeRankedSearch(catalog, request, { rerank: semantic })) },
    { name: `text "black" + personalization re-rank of 500, ${n} products`, fn: async () => consume(await executeRankedSearch(catalog, request, { rerank: personal })) },
  ];
}
