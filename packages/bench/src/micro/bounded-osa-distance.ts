/** `boundedOsaDistance` (search/typo): the edit-distance check behind typo tolerance. @module */
import { boundedOsaDistance } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'boundedOsaDistance';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const pairs: [string, string][] = [['headphones', 'haedphones'], ['sneakers', 'sneaker'], ['backpack', 'blackjack'], ['laptop', 'lapotp']];
  return [{ name: '4 word pairs, max 2 edits', fn: () => { let s = 0; for (const [a, b] of pairs) s += boundedOsaDistance(a, b, 2); consume(s); } }];
}
