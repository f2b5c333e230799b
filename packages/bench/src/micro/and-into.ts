/** `andInto` (catalog/bitset): intersecting two filter bitsets over 1M doc ids. @module */
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'andInto';

interface BitsetModule {
  andInto(target: Uint32Array, other: Uint32Array): void;
  andNotInto(target: Uint32Array, other: Uint32Array): void;
  bitsetWords(bits: number): number;
}

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const { andInto, andNotInto, bitsetWords } = await ctx.engine<BitsetModule>('catalog/bitset');
  const words = bitsetWords(1_000_000);
  const a = new Uint32Array(words), b = new Uint32Array(words), target = new Uint32Array(words);
  for (let i = 0; i < words; i++) { a[i] = (i * 2654435761) >>> 0; b[i] = (i * 40503 + 7) >>> 0; }
  return [
    { name: 'AND of two 1M-bit sets', fn: () => { target.set(a); andInto(target, b); consume(target[7]); } },
    { name: 'AND NOT of two 1M-bit sets', fn: () => { target.set(a); andNotInto(target, b); consume(target[7]); } },
  ];
}
