import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { executeSearch } from './execute-search.js';
import { MIN_SPLIT_PART, wordSplits } from './unmatched-word.js';

describe('wordSplits', () => {
  it('cuts a word into two catalog words, letters from digits at any length', () => {
    const terms = new Set(['twin', 'xl', 'e', '12', '5x', '7', 'play', 'house', 'pla', 'yhouse']);
    const isTerm = (w: string) => terms.has(w);
    expect(wordSplits('twinxl', isTerm)).toEqual([['twin', 'xl']]);
    expect(wordSplits('e12', isTerm)).toEqual([['e', '12']]);
    expect(wordSplits('5x7', isTerm)).toEqual([['5x', '7']]);
    expect(wordSplits('playhouse', isTerm)).toEqual([['pla', 'yhouse'], ['play', 'house']]);
    // One letter beside a letter is not a word of its own.
    expect(wordSplits('xtwin', (w) => w === 'x' || w === 'twin')).toEqual([]);
  });
  it('every split joins back into the word, and each part is a term of at least MIN_SPLIT_PART characters unless letters meet digits there', () => {
    fc.assert(fc.property(fc.stringMatching(/^[a-c0-2]{0,8}$/), fc.func(fc.boolean()), (word, pick) => {
      const isTerm = (w: string) => pick(w);
      for (const [left, right] of wordSplits(word, isTerm)) {
        expect(left + right).toBe(word);
        expect(isTerm(left) && isTerm(right)).toBe(true);
        const letterDigit = /\d/.test(left.at(-1)!) !== /\d/.test(right[0]);
        if (!letterDigit) expect(Math.min(left.length, right.length)).toBeGreaterThanOrEqual(MIN_SPLIT_PART);
      }
    }));
  });
});

describe('a query word that matches nothing', () => {
  const products: Product[] = [
    { refId: 'sheet', title: 'Twin XL sheet set' },
    { refId: 'twin', title: 'Twin pack of batteries' },
    { refId: 'bulb', title: 'Candle bulb E 12 base' },
    { refId: 'pen', title: 'Franklin fountain pen' },
    { refId: 'frame', title: 'Photo frame 5x 7 inch' },
    { refId: 'callsheet', title: 'Call sheet template' },
  ];
  const ids = async (q: string) => {
    const catalog = new Catalog();
    await catalog.upsert(products);
    const r = await executeSearch(catalog, { website_id: 'w', client: 'c', q, start: 0, size: 10 });
    return { ids: r.result.map((p) => p.refId), dropped: r.suggestions.dropped_words };
  };
  it('finds two catalog words typed together, both required', async () => {
    expect((await ids('twinxl sheet')).ids).toEqual(['sheet']);
    expect((await ids('e12 bulb')).ids).toEqual(['bulb']);
    expect((await ids('frame 5x7')).ids).toEqual(['frame']);
  });
  it('completes an unfinished word that is not the last one', async () => {
    expect(await ids('frank pen')).toEqual({ ids: ['pen'], dropped: undefined });
  });
  it('splits no stop word off ("callan" is not "call an") and leaves words with matches of their own alone', async () => {
    expect((await ids('callan')).ids).toEqual([]);
    // "sheet" matches by itself: it is neither completed nor split, though "she" + "et" could be words elsewhere.
    expect((await ids('sheet')).ids.sort()).toEqual(['callsheet', 'sheet']);
  });
});
