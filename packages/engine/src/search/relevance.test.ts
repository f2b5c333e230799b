import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { WebsiteSettings } from '../config.js';
import { validateEngineOptions } from '../config.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { proximityOf } from './proximity.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { catalogOf } from './__tests__/catalog-of.js';

const request = (q: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size: 50, ...extra });
const ids = (r: { result: Product[] }) => r.result.map((p) => p.refId);


const search = async (catalog: Catalog, q: string, settings?: WebsiteSettings, extra: Partial<SearchRequest> = {}) =>
  executeSearch(catalog, request(q, extra), { settings });

describe('stemming', () => {
  const shoes: Product[] = [
    { refId: 'a', title: "Men's running shoes" },
    { refId: 'b', title: 'Mens run shoe' },
    { refId: 'c', title: 'Women runner sandals' },
  ];
  it('finds the other forms of a word (English by default), the word itself first', async () => {
    const catalog = await catalogOf(shoes);
    expect(ids(await search(catalog, 'mens running shoes')).sort()).toEqual(['a', 'b']);
    expect(ids(await search(catalog, 'men running shoes')).sort()).toEqual(['a', 'b']);
    expect(ids(await search(catalog, 'shoe'))).toEqual(['b', 'a']); // exact before stem
  });
  it('follows the language setting, read per search', async () => {
    const catalog = await catalogOf([{ refId: 'fr', title: 'chaussures de course' }, { refId: 'x', title: 'chaussure' }]);
    expect(ids(await search(catalog, 'chaussure', { language: 'fr' })).sort()).toEqual(['fr', 'x']);
    // English stems "chaussures" to "chaussur": no French plural rule, but the prefix finds it as the last word.
    expect(ids(await search(catalog, 'chaussure course', { language: 'fr' }))).toEqual(['fr']);
  });
});

describe('stop words', () => {
  it('drops the language defaults and the setting\'s words from the query, unless nothing else is left', async () => {
    const catalog = await catalogOf([{ refId: 'a', title: 'case for iphone' }, { refId: 'b', title: 'iphone case' }, { refId: 'c', title: 'the who live' }]);
    expect(ids(await search(catalog, 'case for the iphone')).sort()).toEqual(['a', 'b']);
    expect(ids(await search(catalog, 'the who'))).toEqual(['c']);
    expect(ids(await search(catalog, 'iphone case live', { stopWords: ['live'] })).sort()).toEqual(['a', 'b']);
    // Shop words stay words: "down" in "down jacket" is not dropped.
    const jackets = await catalogOf([{ refId: 'down', title: 'down jacket' }, { refId: 'rain', title: 'rain jacket' }]);
    expect(ids(await search(jackets, 'down jacket'))).toEqual(['down']);
  });
});

describe('synonyms', () => {
  const tvs: Product[] = [
    { refId: 'tv', title: 'tv stand' }, { refId: 'television', title: 'television 55 inch' },
    { refId: 'tshirt', title: 'tshirt cotton' }, { refId: 't-shirt', title: 'T-Shirt linen' },
    { refId: 'phone', title: 'smart phone' }, { refId: 'cell', title: 'cellphone' },
  ];
  it('one-way: from finds to, not the reverse', async () => {
    const catalog = await catalogOf(tvs);
    const settings: WebsiteSettings = { synonyms: [{ from: 'tv', to: ['television'] }] };
    expect(ids(await search(catalog, 'tv', settings)).sort()).toEqual(['television', 'tv']);
    expect(ids(await search(catalog, 'television', settings))).toEqual(['television']);
  });
  it('two-way groups of words and phrases', async () => {
    const catalog = await catalogOf(tvs);
    const settings: WebsiteSettings = { synonyms: [['tshirt', 't shirt'], ['smart phone', 'cellphone']] };
    expect(ids(await search(catalog, 'tshirt', settings)).sort()).toEqual(['t-shirt', 'tshirt']);
    expect(ids(await search(catalog, 't shirt', settings)).sort()).toEqual(['t-shirt', 'tshirt']);
    expect(ids(await search(catalog, 'cellphone', settings)).sort()).toEqual(['cell', 'phone']);
    expect(ids(await search(catalog, 'smart phone', settings)).sort()).toEqual(['cell', 'phone']);
  });
  it('phrases lose their stop words as queries do', async () => {
    const catalog = await catalogOf([{ refId: 'case', title: 'iphone case' }, { refId: 'cover', title: 'phone cover' }]);
    const settings: WebsiteSettings = { synonyms: [{ from: 'case for iphone', to: ['phone cover'] }] };
    expect(ids(await search(catalog, 'case for the iphone', settings)).sort()).toEqual(['case', 'cover']);
  });
});

describe('typo tolerance settings', () => {
  const catalog = catalogOf([{ refId: 'armor', title: 'armor plate' }, { refId: 'chrono', title: 'chronograph watch' }]);
  it('1 edit from 4 letters by default; configurable; off', async () => {
    const c = await catalog;
    expect(ids(await search(c, 'amor'))).toEqual(['armor']);
    expect((await search(c, 'amor')).suggestions).toEqual({ corrected_query: 'armor' });
    expect((await search(c, 'amo', { typoTolerance: { minWordSizeOneTypo: 5 } })).total_results).toBe(0);
    expect((await search(c, 'armro', { typoTolerance: { enabled: false } })).total_results).toBe(0);
    expect(ids(await search(c, 'cronograhp'))).toEqual(['chrono']); // 2 edits from 8 letters (and a swap)
    expect((await search(c, 'cronograhp', { typoTolerance: { minWordSizeTwoTypos: 11 } })).total_results).toBe(0);
    // One letter short of the one-typo size: a missing letter only ("amor" for "armor"), no substitution.
    expect(ids(await search(c, 'amor', { typoTolerance: { minWordSizeOneTypo: 5 } }))).toEqual(['armor']);
    expect((await search(c, 'amxr', { typoTolerance: { minWordSizeOneTypo: 5 } })).total_results).toBe(0);
  });
});

describe('typo widening before dropping words', () => {
  it('gives a correctly spelt word its typo variants only when the words find nothing together', async () => {
    const catalog = await catalogOf([{ refId: 'a', title: 'all sorts of things' }, { refId: 'b', title: 'cotton shorts' }, { refId: 'c', title: 'shorts' }]);
    expect(ids(await search(catalog, 'sorts'))).toEqual(['a']); // alone: never widened
    const r = await search(catalog, 'sorts cotton');
    expect(ids(r)).toEqual(['b']);
    expect(r.suggestions).toEqual({});
  });
});

describe('dropped words', () => {
  it('ranks first the products matching the most words, and names the dropped ones', async () => {
    const catalog = await catalogOf([
      { refId: 'case', title: 'iphone cover' }, { refId: 'apple', title: 'apple watch' }, { refId: 'other', title: 'cover for a sofa' },
    ]);
    const r = await search(catalog, 'apple iphone cover', undefined, { aggregations: ['title'] });
    expect(ids(r)).toEqual(['case']);
    expect(r.total_results).toBe(1);
    expect(r.suggestions.dropped_words).toEqual(['apple']);
    // Filters still apply to the fallback.
    const scoped = await search(catalog, 'apple iphone cover', undefined, { scope: { title: ['apple watch'] } });
    expect(ids(scoped)).toEqual(['apple']);
    expect(scoped.suggestions.dropped_words).toEqual(['iphone', 'cover']);
    expect((await search(catalog, 'zzzz qqqq')).total_results).toBe(0);
  });
});

describe('proximity and order', () => {
  it('ranks first the title where the words stand together, in order', async () => {
    const catalog = await catalogOf([
      { refId: 'apart', title: 'running gear with a shoe bag' },
      { refId: 'reversed', title: 'shoes running fast' },
      { refId: 'together', title: 'trail running shoes' },
    ]);
    expect(ids(await search(catalog, 'running shoes'))).toEqual(['together', 'reversed', 'apart']);
  });
  it('scores pairs of words by distance and order', () => {
    const words = new Map([['red', 1], ['shirt', 2]]);
    const of = (values: string[]) => proximityOf(values.map((v) => tokenize(v)), words, 2);
    expect(of(['red shirt'])).toBe(1);
    expect(of(['shirt red'])).toBe(0.5);
    expect(of(['red cotton shirt'])).toBe(0.5);
    expect(of(['red', 'shirt'])).toBe(0); // separate values are not neighbours
    expect(of(['red a b c d e f shirt'])).toBe(0);
  });
});

describe('ranking: _score and tie-breakers', () => {
  const products: Product[] = [
    { refId: 'a', title: 'lamp', popularity: 1, price: 10 },
    { refId: 'b', title: 'lamp', popularity: 5, price: 10 },
    { refId: 'c', title: 'lamp lamp shade', popularity: 3, price: 5 },
    { refId: 'd', title: 'desk', popularity: 9, price: 1 },
  ];
  it('applies tie-breakers after relevance and after sort_fields', async () => {
    const catalog = await catalogOf(products);
    const settings: WebsiteSettings = { ranking: { tieBreakers: [{ field: 'popularity', order: 'desc' }] } };
    expect(ids(await search(catalog, 'lamp', settings))).toEqual(['b', 'a', 'c']); // a, b tie on relevance
    expect(ids(await search(catalog, 'lamp', settings, { sort_fields: [{ price: { order: 'desc', type: 'number' } }] }))).toEqual(['b', 'a', 'c']);
    expect(ids(await search(catalog, '', settings))).toEqual(['d', 'b', 'c', 'a']); // browsing: the tie-breakers order
  });
  it('places relevance among the sort keys with _score', async () => {
    const catalog = await catalogOf(products);
    const byScoreThenPrice = await search(catalog, 'lamp', undefined, { sort_fields: [{ _score: { order: 'desc', type: 'number' } }, { price: { order: 'asc', type: 'number' } }] });
    expect(ids(byScoreThenPrice)).toEqual(['a', 'b', 'c']);
    const worstFirst = await search(catalog, 'lamp', undefined, { sort_fields: [{ _score: { order: 'asc', type: 'number' } }] });
    expect(ids(worstFirst)).toEqual(['c', 'a', 'b']);
    // Browsing: every score is equal, _score changes nothing.
    expect(ids(await search(catalog, '', undefined, { sort_fields: [{ _score: { order: 'asc', type: 'number' } }] }))).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('relevance settings validation', () => {
  const withSettings = (settings: unknown) => () => validateEngineOptions({ websites: [{ websiteId: 'w', client: 'c', tokens: ['t'], hmacSecret: 's', settings }] });
  const rejects = (settings: unknown, key: string) => {
    let err: unknown;
    try { withSettings(settings)(); } catch (e) { err = e; }
    expect(isAisleError(err) && err.code === 'CONFIG_INVALID').toBe(true);
    expect((err as Error).message).toContain(`websites[0].settings.${key}`);
  };
  it('accepts every key in its documented shape', () => {
    expect(withSettings({
      language: 'de', stopWords: ['und'], synonyms: [['tv', 'television'], { from: 'tv', to: ['flat screen'] }],
      typoTolerance: { enabled: true, minWordSizeOneTypo: 5, minWordSizeTwoTypos: 9 }, ranking: { tieBreakers: [{ field: 'popularity', order: 'desc' }] },
      fieldWeights: { title: 4 },
    })).not.toThrow();
  });
  it('rejects bad values naming the key', () => {
    rejects({ language: 'xx' }, 'language');
    rejects({ language: 3 }, 'language');
    rejects({ stopWords: 'the' }, 'stopWords');
    rejects({ stopWords: [''] }, 'stopWords[0]');
    rejects({ synonyms: {} }, 'synonyms');
    rejects({ synonyms: [['tv']] }, 'synonyms[0]');
    rejects({ synonyms: [{ from: 'tv' }] }, 'synonyms[0].to');
    rejects({ synonyms: [{ from: '', to: ['a'] }] }, 'synonyms[0].from');
    rejects({ synonyms: [{ from: 'a', to: ['b'], extra: 1 }] }, 'synonyms[0].extra');
    rejects({ synonyms: [3] }, 'synonyms[0]');
    rejects({ typoTolerance: true }, 'typoTolerance');
    rejects({ typoTolerance: { enabled: 'yes' } }, 'typoTolerance.enabled');
    rejects({ typoTolerance: { minWordSizeOneTypo: 0 } }, 'typoTolerance.minWordSizeOneTypo');
    rejects({ typoTolerance: { minWordSizeOneTypo: 2.5 } }, 'typoTolerance.minWordSizeOneTypo');
    rejects({ typoTolerance: { minWordSizeOneTypo: 6, minWordSizeTwoTypos: 5 } }, 'typoTolerance.minWordSizeTwoTypos');
    rejects({ typoTolerance: { maxTypos: 2 } }, 'typoTolerance.maxTypos');
    rejects({ ranking: [] }, 'ranking');
    rejects({ ranking: { tieBreakers: {} } }, 'ranking.tieBreakers');
    rejects({ ranking: { tieBreakers: [{ field: 'p' }] } }, 'ranking.tieBreakers[0].order');
    rejects({ ranking: { tieBreakers: [{ field: '', order: 'asc' }] } }, 'ranking.tieBreakers[0].field');
    rejects({ ranking: { tieBreakers: [{ field: '_score', order: 'asc' }] } }, 'ranking.tieBreakers[0].field');
    rejects({ ranking: { tieBreakers: [{ field: 'p', order: 'asc', type: 'date' }] } }, 'ranking.tieBreakers[0].type');
    rejects({ ranking: { boost: 1 } }, 'ranking.boost');
    rejects({ fieldWeights: [] }, 'fieldWeights');
    rejects({ fieldWeights: { title: -1 } }, 'fieldWeights.title');
    rejects({ fieldWeights: { title: 'high' } }, 'fieldWeights.title');
  });
});
