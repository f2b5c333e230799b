/**
 * Shop navigation (issue #24), hierarchical facets and facet-value search over real sockets:
 * `settings.hierarchies` in its three forms, `hierarchical_facets` with subtree scopes, a search key
 * forcing a subtree (nothing outside it shows in results, counts or facet hits), `facet_search`, and
 * the 400s of bad settings and requests. Every answer is checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, expectDocumented, post, startService, TOKEN_B, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const SETTINGS = '/admin/v1/websites/{websiteId}/settings';
const SEARCH = '/v1.4/search';
const admin = bearer(ADMIN_TOKEN);
type Node = { value: string; path: string; count: number; children?: Node[] };
type Payload = { total_results: number; result: { refId: string }[]; hierarchical_aggregations?: Record<string, Node[]>; facet_hits?: { value: string; count: number; highlighted: string }[] };

const PATHS = [['Home', 'Kitchen', 'Pots'], ['Home', 'Kitchen'], ['Home', 'Garden'], ['Toys'], ['Home', 'Kitchen', 'Pans']];
const BRANDS = ['Acme', 'Zeta', 'Acme Pro', 'Ålpha & <Co>'];
const products = Array.from({ length: 40 }, (_, i) => {
  const path = PATHS[i % PATHS.length]!;
  return {
    refId: `H${i}`, title: `thing ${i}`, brand: BRANDS[i % BRANDS.length], price: i,
    category_path: path.join(' / '), categories: path, ...Object.fromEntries(path.map((level, l) => [`lvl${l}`, level])),
  };
});

const patchSettings = (body: unknown) => post(`${svc.url}/admin/v1/websites/site-b/settings`, body, admin, 'PATCH');
const searchWith = (token: string, extra: Record<string, unknown>) => post(`${svc.url}${SEARCH}`, { website_id: 'site-b', client: 'client-b', q: '', start: 0, ...extra }, bearer(token));
const search = (extra: Record<string, unknown>) => searchWith(TOKEN_B, extra);
const payloadOf = async (res: Response): Promise<Payload> => ((await expectDocumented(res, SEARCH, 'POST')) as { payload: Payload }).payload;

describe('hierarchical facets and facet search over HTTP', () => {
  beforeAll(async () => {
    expect((await post(`${svc.url}/admin/v1/websites/site-b/products?mode=replace`, products, admin, 'PUT')).status).toBe(200);
    const res = await patchSettings({
      hierarchies: { cat: { field: 'category_path', separator: '/' }, arr: { field: 'categories' }, lvl: { fields: ['lvl0', 'lvl1', 'lvl2'] } },
    });
    expect(res.status).toBe(200);
    expect(((await expectDocumented(res, SETTINGS, 'PATCH')) as { hierarchies: unknown }).hierarchies).toMatchObject({ cat: { field: 'category_path', separator: '/' } });
  });

  it('answers the same tree in the three forms: the top level, the refined path\'s siblings and children', async () => {
    for (const name of ['cat', 'arr', 'lvl']) {
      const payload = await payloadOf(await search({ hierarchical_facets: [name], scope: { [name]: ['Home > Kitchen'] }, size: 100 }));
      expect(payload.total_results).toBe(24);
      expect(payload.hierarchical_aggregations).toEqual({
        [name]: [
          { value: 'Home', path: 'Home', count: 32, children: [
            { value: 'Kitchen', path: 'Home > Kitchen', count: 24, children: [
              { value: 'Pans', path: 'Home > Kitchen > Pans', count: 8 }, { value: 'Pots', path: 'Home > Kitchen > Pots', count: 8 },
            ] },
            { value: 'Garden', path: 'Home > Garden', count: 8 },
          ] },
          { value: 'Toys', path: 'Toys', count: 8 },
        ],
      });
    }
    // Another condition applies to every level; no scope on the hierarchy: the top level alone.
    const acme = await payloadOf(await search({ hierarchical_facets: ['cat'], scope: { brand: ['Acme'] } }));
    expect(acme.hierarchical_aggregations!.cat).toEqual([{ value: 'Home', path: 'Home', count: 8 }, { value: 'Toys', path: 'Toys', count: 2 }]);
  });

  it('searches facet values under the rest of the request, the field\'s own condition ignored', async () => {
    const payload = await payloadOf(await search({ facet_search: { field: 'brand', q: 'ac' }, scope: { brand: ['Zeta'], cat: ['Home'] } }));
    expect(payload.total_results).toBe(8);
    expect(payload.facet_hits).toEqual([
      { value: 'Acme', count: 8, highlighted: '<em>Ac</em>me' }, { value: 'Acme Pro', count: 8, highlighted: '<em>Ac</em>me Pro' },
    ]);
    const escaped = await payloadOf(await search({ facet_search: { field: 'brand', q: 'alpha co', size: 1 } }));
    expect(escaped.facet_hits).toEqual([{ value: 'Ålpha & <Co>', count: 10, highlighted: '<em>Ålpha</em> &amp; &lt;<em>Co</em>&gt;' }]);
    const typo = await payloadOf(await search({ facet_search: { field: 'brand', q: 'zeat' } }));
    expect(typo.facet_hits).toEqual([{ value: 'Zeta', count: 10, highlighted: '<em>Zeta</em>' }]);
  });

  it('keeps a search key forcing a subtree within it: results, every count, facet hits', async () => {
    const created = await post(`${svc.url}/admin/v1/websites/site-b/keys`, { actions: ['search'], scope: { cat: ['Home > Kitchen'] } }, admin);
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const asked = { hierarchical_facets: ['cat'], facet_search: { field: 'lvl0', q: '' }, size: 100 };
    const within = await payloadOf(await searchWith(key, asked));
    expect(within.total_results).toBe(24);
    expect(within.hierarchical_aggregations!.cat).toEqual([{ value: 'Home', path: 'Home', count: 24, children: [
      { value: 'Kitchen', path: 'Home > Kitchen', count: 24, children: [
        { value: 'Pans', path: 'Home > Kitchen > Pans', count: 8 }, { value: 'Pots', path: 'Home > Kitchen > Pots', count: 8 },
      ] },
    ] }]);
    expect(within.facet_hits).toEqual([{ value: 'Home', count: 24, highlighted: 'Home' }]);
    // Refining within the key narrows; asking for another subtree finds nothing and reveals nothing.
    expect((await payloadOf(await searchWith(key, { ...asked, scope: { cat: ['Home > Kitchen > Pots'] } }))).total_results).toBe(8);
    const outside = await payloadOf(await searchWith(key, { ...asked, scope: { cat: ['Toys', 'Home'] } }));
    expect(outside.total_results).toBe(24);
    const toys = await payloadOf(await searchWith(key, { ...asked, scope: { cat: ['Toys'] } }));
    expect(toys.total_results).toBe(0);
    expect(JSON.stringify(toys.hierarchical_aggregations)).not.toMatch(/Toys|Garden/);
  });

  it('deletes by a hierarchy scope: the products at or below the path, all or nothing', async () => {
    const res = await post(`${svc.url}/admin/v1/websites/site-b/products/delete`, { scope: { cat: ['Home > Kitchen > Pans'] } }, admin);
    expect(res.status).toBe(200);
    expect(await expectDocumented(res, '/admin/v1/websites/{websiteId}/products/delete', 'POST')).toEqual({ deleted: 8, notFound: [] });
    const after = await payloadOf(await search({ hierarchical_facets: ['cat'], scope: { cat: ['Home > Kitchen'] } }));
    expect(after.total_results).toBe(16);
    expect(after.hierarchical_aggregations!.cat[0]!.children![0]!.children).toEqual([{ value: 'Pots', path: 'Home > Kitchen > Pots', count: 8 }]);
    const bad = await post(`${svc.url}/admin/v1/websites/site-b/products/delete`, { scope: { cat: { min: 1 } } }, admin);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await expectDocumented(bad, '/admin/v1/websites/{websiteId}/products/delete', 'POST'))).toContain('names a hierarchy');
  });

  it('answers 400 naming the key for bad settings and requests', async () => {
    for (const hierarchies of [{ x: { field: 'a', fields: ['b'] } }, { x: { separator: '/' } }, { x: { fields: [] } }, { '': { field: 'a' } }, { x: { field: 'a', separator: '' } }]) {
      const res = await patchSettings({ hierarchies });
      expect(res.status).toBe(400);
      expect(Object.keys(((await expectDocumented(res, SETTINGS, 'PATCH')) as { errors: object }).errors)[0]).toMatch(/^settings\.Hierarchies/);
    }
    const bad = async (extra: Record<string, unknown>, says: string) => {
      const res = await search(extra);
      expect(res.status).toBe(400);
      expect(((await expectDocumented(res, SEARCH, 'POST')) as { message: string }).message).toContain(says);
    };
    await bad({ hierarchical_facets: ['nope'] }, 'hierarchical_facets[0] names "nope"');
    await bad({ scope: { cat: { min: 1 } } }, 'scope.cat names a hierarchy');
    await bad({ facet_search: { field: 'brand', q: 'a', size: 101 } }, 'facet_search.size');
    await bad({ facet_search: { field: 'brand', q: 'a', size: 0 } }, 'facet_search.size');
    await bad({ facet_search: { field: 'brand' } }, 'facet_search');
    await bad({ facet_search: { field: 'brand', q: 'a', other: 1 } }, 'facet_search');
    await bad({ facet_search: { field: 'colour', q: 'a' } }, 'facet_search.field names "colour"');
    await bad({ hierarchical_facets: Array.from({ length: 21 }, () => 'cat') }, 'hierarchical_facets');
  });
});
