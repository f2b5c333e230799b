/**
 * `engine.previewSettings` (POST …/settings/preview): one search ranked under the settings in force and
 * under a merchandising rule merged in, nothing stored — beside the shopper's `engine.search` of the same
 * query through the same engine, so the preview's cost reads as a ratio of one search (it runs two, reads
 * the stored settings once, and records nothing).
 * @module
 */
import { createEngine } from '@aisle/engine';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'previewSettings';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const engine = await createEngine({ workers: 0, websites: [{ websiteId: 'bench', client: 'bench', tokens: ['bench-token-0123456789'], hmacSecret: 'bench' }] });
  await engine.upsertProducts('bench', ctx.products);
  const brand = String(ctx.products[0]!.brand);
  const rule = {
    id: 'bench', query: 'black', pin: [{ refId: ctx.products[1]!.refId, position: 1 }], hide: [ctx.products[2]!.refId],
    boost: [{ scope: { brand: [brand] }, weight: 2 }],
  };
  const n = ctx.products.length.toLocaleString('en-US');
  return [
    {
      name: `engine.search text "black", 20 results, ${n} products`, measures: 'search',
      fn: async () => consume(await engine.search({ website_id: 'bench', client: 'bench', q: 'black', start: 0, size: 20 })),
    },
    {
      name: `preview of a rule (pin, hide, boost) on "black", 20 results, ${n} products`,
      fn: async () => consume(await engine.previewSettings('bench', { search: { q: 'black', size: 20 }, settings: { rules: [rule] } })),
    },
  ];
}
