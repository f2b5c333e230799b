/** `tokenize` (catalog/full-text/tokenizer): the words of 1,000 product titles per iteration. @module */
import { tokenize } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'tokenize';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const titles = ctx.products.slice(0, 1000).map((p) => String(p.title));
  const accented = titles.map((t) => `${t} café crème brûlée`);
  return [
    { name: '1,000 ASCII titles', fn: () => { let n = 0; for (const t of titles) n += tokenize(t).length; consume(n); } },
    { name: '1,000 titles with accents (NFKD path)', fn: () => { let n = 0; for (const t of accented) n += tokenize(t).length; consume(n); } },
  ];
}
