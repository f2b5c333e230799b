import { describe, expect, it } from 'vitest';
import type { WebsiteSettings } from '../config.js';
import type { Product, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { catalogOf } from './__tests__/catalog-of.js';
import { isAisleError } from '../errors.js';
import { boundedPrefixOsaDistance } from './typo.js';
import fc from 'fast-check';
import { osa } from './__tests__/reference-search.js';
import { HIERARCHY_PRODUCTS, HIERARCHY_SETTINGS } from './__tests__/hierarchy-products.js';

const products: Product[] = [...HIERARCHY_PRODUCTS];
const settings: WebsiteSettings = HIERARCHY_SETTINGS;
const ask = (extra: Partial<SearchRequest>): SearchRequest => ({ website_id: 'w', client: 'c', q: '', start: 0, size: 10, ...extra });

describe('hierarchical facets', () => {
  it('lists the top level, and the children of each refined node counted without the hierarchy condition', async () => {
    const catalog = await catalogOf(products);
    for (const name of ['sep', 'arr', 'per']) {
      const payload = await executeSearch(catalog, ask({ hierarchical_facets: [name], scope: { [name]: ['Home > Kitchen'] } }), { settings });
      expect(payload.total_results).toBe(2);
      expect(payload.hierarchical_aggregations![name]).toEqual([
        { value: 'Home', path: 'Home', count: 3, children: [
          { value: 'Kitchen', path: 'Home > Kitchen', count: 2, children: [{ value: 'Pots', path: 'Home > Kitchen > Pots', count: 1 }] },
          { value: 'Garden', path: 'Home > Garden', count: 1 },
        ] },
        { value: 'Toys', path: 'Toys', count: 1 },
      ]);
    }
  });
  it('facet search', async () => {
    const catalog = await catalogOf(products);
    const payload = await executeSearch(catalog, ask({ facet_search: { field: 'brand', q: 'ac' }, scope: { brand: ['Zeta'] } }), { settings });
    expect(payload.total_results).toBe(2);
    expect(payload.facet_hits).toEqual([{ value: 'Acme', count: 3, highlighted: '<em>Ac</em>me' }]);
    const typo = await executeSearch(catalog, ask({ facet_search: { field: 'brand', q: 'zeat' } }), { settings });
    expect(typo.facet_hits).toEqual([{ value: 'Zeta', count: 2, highlighted: '<em>Zeta</em>' }]);
  });
  it('a search key forcing a subtree: counts, siblings and facet hits stay within it', async () => {
    const catalog = await catalogOf(products);
    const forced = { sep: ['Home > Kitchen'] };
    // The caller refines further, widens (the key still applies) or leaves the tree: always within the key's subtree.
    const run = (scope: SearchRequest['scope']) => executeSearch(catalog, ask({
      hierarchical_facets: ['sep'], facet_search: { field: 'lvl1', q: '' }, ...(scope && { scope }),
    }), { settings, forcedScope: forced });
    const plain = await run(undefined);
    expect(plain.total_results).toBe(2);
    expect(plain.hierarchical_aggregations!.sep).toEqual([{ value: 'Home', path: 'Home', count: 2, children: [
      { value: 'Kitchen', path: 'Home > Kitchen', count: 2, children: [{ value: 'Pots', path: 'Home > Kitchen > Pots', count: 1 }] },
    ] }]);
    expect(plain.facet_hits).toEqual([{ value: 'Kitchen', count: 2, highlighted: 'Kitchen' }]);
    const deeper = await run({ sep: ['Home > Kitchen > Pots'] });
    expect(deeper.total_results).toBe(1);
    expect(deeper.hierarchical_aggregations!.sep[0]!.children![0]!.children).toEqual([{ value: 'Pots', path: 'Home > Kitchen > Pots', count: 1, children: [] }]);
    expect((await run({ sep: ['Home'] })).total_results).toBe(2);
    const outside = await run({ sep: ['Toys'] });
    expect(outside.total_results).toBe(0);
    // The caller's own refinement is ignored by the counts, the key's subtree is not; Toys is not listed.
    expect(outside.hierarchical_aggregations!.sep).toEqual(plain.hierarchical_aggregations!.sep);
  });

  it('a merchandising rule boosts a subtree, its scope read as a request\'s', async () => {
    const catalog = await catalogOf(products);
    const boosted: WebsiteSettings = { ...settings, rules: [{ id: 'garden-first', query: '', match: 'contains', boost: [{ scope: { arr: ['Home > Garden'] }, weight: 10 }] }] };
    const payload = await executeSearch(catalog, ask({}), { settings: boosted });
    expect(payload.result.map((p) => p.refId)).toEqual(['c', 'a', 'b', 'd', 'e']);
    // The same scope on the field `levels` names a value no product has: nothing is boosted.
    const onField = await executeSearch(catalog, ask({}), { settings: { rules: [{ id: 'f', query: '', match: 'contains', boost: [{ scope: { levels: ['Home > Garden'] }, weight: 10 }] }] } });
    expect(onField.result[0]!.refId).toBe('a');
  });

  it('refuses an unknown hierarchy name, and a scope shape that is no list of paths', async () => {
    const catalog = await catalogOf(products);
    const bad = async (request: SearchRequest, key: string) => {
      await expect(executeSearch(catalog, request, { settings })).rejects.toSatisfy((e: unknown) => isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST' && e.message.includes(key));
    };
    await bad(ask({ hierarchical_facets: ['nope'] }), 'hierarchical_facets[0]');
    await bad(ask({ scope: { sep: { min: 1 } } }), 'scope.sep');
    await bad(ask({ scope: { sep: { exists: true } } }), 'scope.sep');
    await bad(ask({ facet_search: { field: 'colour', q: 'x' } }), 'facet_search.field');
    // A path no product has matches nothing; {not: []} filters nothing; paths are written loosely.
    expect((await executeSearch(catalog, ask({ scope: { sep: ['Nowhere'] } }), { settings })).total_results).toBe(0);
    expect((await executeSearch(catalog, ask({ scope: { sep: { not: [] } } }), { settings })).total_results).toBe(5);
    expect((await executeSearch(catalog, ask({ scope: { arr: [' Home>Kitchen '] } }), { settings })).total_results).toBe(0);
    expect((await executeSearch(catalog, ask({ scope: { arr: ['  Home  >  Kitchen  '] } }), { settings })).total_results).toBe(2);
  });

  it('facet search: words in order, the last a prefix, HTML escaped, accents and case folded', async () => {
    const catalog = await catalogOf([
      { refId: '1', brand: 'Café <Noir> & Co' }, { refId: '2', brand: 'Noir Café' }, { refId: '3', brand: 'Noir Café' }, { refId: '4', brand: 'cafeteria' },
    ]);
    const hits = async (q: string) => (await executeSearch(catalog, ask({ facet_search: { field: 'brand', q } }))).facet_hits;
    expect(await hits('CAFE n')).toEqual([{ value: 'Café <Noir> & Co', count: 1, highlighted: '<em>Café</em> &lt;<em>N</em>oir&gt; &amp; Co' }]);
    expect(await hits('noir caf')).toEqual([{ value: 'Noir Café', count: 2, highlighted: '<em>Noir</em> <em>Caf</em>é' }]);
    expect((await hits('cafe'))!.map((h) => h.value)).toEqual(['Noir Café', 'Café <Noir> & Co', 'cafeteria']);
    expect((await hits(''))!.map((h) => h.value)).toEqual(['Noir Café', 'Café <Noir> & Co', 'cafeteria']);
    // No strict match: each word gets the typos its length allows (the last one as a prefix).
    expect((await hits('nior'))!.map((h) => h.highlighted)).toEqual(['<em>Noir</em> Café', 'Café &lt;<em>Noir</em>&gt; &amp; Co']);
    expect(await hits('zzz')).toEqual([]);
    expect(await hits('co noir')).toEqual([]); // out of order
  });
});

describe('boundedPrefixOsaDistance', () => {
  it('is the OSA distance to the closest prefix, capped at max + 1', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 7 });
    fc.assert(fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
      const best = Math.min(...Array.from({ length: b.length + 1 }, (_, n) => osa(a, b.slice(0, n))));
      expect(boundedPrefixOsaDistance(a, b, max)).toBe(Math.min(best, max + 1));
    }), { numRuns: 2000 });
  });
});
