/** `ResultPages.record` (clicks): what remembering a result page adds to every search and recommendation answer. @module */
import { MemoryStore, ResultPages } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'ResultPages.record';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const refIds = ctx.products.slice(0, 20).map((p) => p.refId);
  // The memory store: the writes (every 100 ms, off the answer's path) are not what is measured here.
  const pages = new ResultPages(new MemoryStore(), { attributionWindowDays: () => 30, secretOf: () => 'bench secret', websites: () => ['bench'], onError: (err) => { throw err; } });
  const list = { websiteId: 'bench', kind: 'search' as const, source: 'red shoes', customerId: null, sessionId: null, variant: null, firstPosition: 1, refIds };
  return [{ name: 'a search page of 20 products', measures: 'ResultPages.record', fn: () => consume(pages.record(list)) }];
}
