/** `popcount` (catalog/columns/bitset): counting a 1M-bit candidate set. @module */
import { bitsetWords, popcount } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'popcount';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const set = new Uint32Array(bitsetWords(1_000_000));
  for (let i = 0; i < set.length; i++) set[i] = (i * 2654435761) >>> 0;
  return [{ name: '1M-bit set', fn: () => consume(popcount(set)) }];
}
