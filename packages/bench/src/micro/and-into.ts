/** `andInto` (catalog/columns/bitset): intersecting two filter bitsets over 1M doc ids. @module */
import { andInto, andNotInto, bitsetWords } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'andInto';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const words = bitsetWords(1_000_000);
  const a = new Uint32Array(words), b = new Uint32Array(words), target = new Uint32Array(words);
  for (let i = 0; i < words; i++) { a[i] = (i * 2654435761) >>> 0; b[i] = (i * 40503 + 7) >>> 0; }
  return [
    { name: 'AND of two 1M-bit sets', fn: () => { target.set(a); andInto(target, b); consume(target[7]); } },
    { name: 'AND NOT of two 1M-bit sets', fn: () => { target.set(a); andNotInto(target, b); consume(target[7]); } },
  ];
}
