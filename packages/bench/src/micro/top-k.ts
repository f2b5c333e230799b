/** `TopK.offer` (search/top-k): selecting the best 20 of 100,000 docs by a numeric key. @module */
import { TopK } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'TopK';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const n = 100_000;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = ((i * 2654435761) >>> 0) / 4294967296;
  const before = (a: number, b: number): number => keys[a]! - keys[b]! || a - b;
  return [{
    name: 'best 20 of 100,000 (random keys)',
    fn: () => { const top = new TopK(20, before); for (let d = 0; d < n; d++) top.offer(d); consume(top.sorted()[0]); },
  }];
}
