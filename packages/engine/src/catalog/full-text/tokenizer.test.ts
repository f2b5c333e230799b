import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analysedAlike, foldText, forEachWord, TEXT_ANALYSIS_VERSION, tokenize } from './tokenizer.js';

describe('tokenize', () => {
  it('lower-cases and splits on anything that is not a letter or digit', () => {
    expect(tokenize("Women's Cycling-Shorts, 2XL!")).toEqual(['women', 's', 'cycling', 'shorts', '2xl']);
  });
  it('removes accents and folds compatibility forms (NFKD)', () => {
    expect(tokenize('Café Ångström ÜBER ﬁne ＡＢＣ')).toEqual(['cafe', 'angstrom', 'uber', 'fine', 'abc']);
  });
  it('reads a symbol (™, ℠, ®, ©, Ⓡ, ㎏) as a separator, never as letters of the word beside it', () => {
    // NFKD spells ™ as "TM" and ℠ as "SM": "Acme™" was the word "acmetm", which "acme" did not find.
    expect(tokenize('Acme™ Shirt')).toEqual(['acme', 'shirt']);
    expect(tokenize('Nike™Air ™Acme Servo℠')).toEqual(['nike', 'air', 'acme', 'servo']);
    expect(tokenize('Acme® Acme© Ⓡbrand ⓒ2024 5㎏ ₨500 №5')).toEqual(['acme', 'acme', 'brand', '2024', '5', '500', '5']);
    // Numbers and letters in compatibility forms keep folding: they are digits and letters themselves.
    expect(tokenize('m² ①st Ⅻ ﬁne')).toEqual(['m2', '1st', 'xii', 'fine']);
    const words: string[] = [];
    forEachWord('Acme™Shirt', { word: (text, start, end) => words.push(text.slice(start, end)) });
    expect(words).toEqual(['acme', 'shirt']);
  });
  it('tells which texts gave other words under text analysis 1 (symbols spelled by NFKD)', () => {
    for (const text of ['Acme™', 'Servo℠ kit', 'Ⓡbrand', '5㎏', '℃']) expect(analysedAlike(text, 1), text).toBe(false);
    for (const text of ['Acme® ©', 'plain text', 'Café €5 ★', 'm² ①']) expect(analysedAlike(text, 1), text).toBe(true);
    expect(analysedAlike('Acme™', TEXT_ANALYSIS_VERSION)).toBe(true);
    expect(analysedAlike('plain', TEXT_ANALYSIS_VERSION + 1)).toBe(false);
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

describe('tokenize: ASCII fast path', () => {
  it('gives the words of the unicode pattern on any ASCII text', () => {
    fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 60 }), (text) => {
      expect(tokenize(text)).toEqual(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    }), { numRuns: 500 });
  });
});

describe('forEachWord', () => {
  const words = (text: string): string[] => {
    const out: string[] = [];
    forEachWord(text, { word: (folded, start, end) => out.push(folded.slice(start, end)) });
    return out;
  };
  it('hands over the words of tokenize, in order, on ASCII and on any text', () => {
    expect(words("Women's Cycling-Shorts, 2XL!")).toEqual(['women', 's', 'cycling', 'shorts', '2xl']);
    expect(words('Café Ångström ÜBER ﬁne ＡＢＣ 東京')).toEqual(tokenize('Café Ångström ÜBER ﬁne ＡＢＣ 東京'));
    // The Kelvin sign lower-cases to an ASCII k: the text is ASCII once folded.
    expect(words('\u212A9 x')).toEqual(tokenize('\u212A9 x'));
    fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 60 }), (text) => {
      expect(words(text)).toEqual(tokenize(text));
    }), { numRuns: 500 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
      expect(words(text)).toEqual(tokenize(text));
    }), { numRuns: 500 });
  });
});
