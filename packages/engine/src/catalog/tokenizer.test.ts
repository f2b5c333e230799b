import { describe, expect, it } from 'vitest';
import { foldText, tokenize } from './tokenizer.js';

describe('tokenize', () => {
  it('lower-cases and splits on anything that is not a letter or digit', () => {
    expect(tokenize("Women's Cycling-Shorts, 2XL!")).toEqual(['women', 's', 'cycling', 'shorts', '2xl']);
  });
  it('removes accents and folds compatibility forms (NFKD)', () => {
    expect(tokenize('Café Ångström ÜBER ﬁne ＡＢＣ')).toEqual(['cafe', 'angstrom', 'uber', 'fine', 'abc']);
  });
  it('keeps letters of every script', () => {
    expect(tokenize('Смартфон  ΤΗΛΕΌΡΑΣΗ 東京')).toEqual(['смартфон', 'τηλεοραση', '東京']);
  });
  it('gives no words for empty, blank or punctuation-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  \t\n')).toEqual([]);
    expect(tokenize('!?-…')).toEqual([]);
  });
  it('folds the same way for the index and the query', () => {
    expect(foldText('CAFÉ')).toBe(foldText('cafe\u0301'));
  });
});
