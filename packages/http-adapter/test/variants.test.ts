/**
 * Variants (`settings.distinct`, issue #24) over real sockets: the setting through the settings API
 * (bad forms refused), one result per style with `_variants`, totals and pages over groups, facet
 * counts per product or per group, `distinct: false`, and 400 for `distinct: true` without the setting.
 * The same answers inline and on the search worker pool. Every answer is checked against the OpenAPI
 * document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '@aisle/engine';
import { ADMIN_TOKEN, bearer, expectDocumented, post, serveEngine, SITE_B, TOKEN_B } from './helpers.js';

const SETTINGS = '/admin/v1/websites/{websiteId}/settings';
const SEARCH = '/v1.4/search';
const admin = bearer(ADMIN_TOKEN);

interface Served { engine: Engine; url: string; close(): Promise<void> }
let inline: Served;
let pooled: Served;

async function serve(options: { workers: number; poolThreshold?: number }): Promise<Served> {
  const engine = await createEngine({ ...options, websites: [SITE_B], adminTokens: [ADMIN_TOKEN] });
  const served = await serveEngine(engine, { adminTokens: [ADMIN_TOKEN] });
  return { engine, url: served.url, close: async () => { await served.close(); await engine.close(); } };
}

beforeAll(async () => {
  inline = await serve({ workers: 0 });
  pooled = await serve({ workers: 2, poolThreshold: 0 }); // every search fans out over two ranges
});
afterAll(async () => {
  await inline?.close();
  await pooled?.close();
});

/** 60 styles of 1–4 variants (colour × size), interleaved so a style's variants sit in both pool ranges; two without a style. */
function catalog(): Record<string, unknown>[] {
  const products: Record<string, unknown>[] = [];
  const colours = ['red', 'blue', 'green', 'black'];
  for (let v = 0; v < 4; v++) {
    for (let s = 0; s < 60; s++) {
      if (v >= 1 + (s % 4)) continue;
      products.push({ refId: `S${s}-${v}`, title: `${s % 2 === 0 ? 'cotton' : 'wool'} shirt ${s}`, style_id: `STY-${s}`, colour: colours[(s + v) % 4], size: v % 2 === 0 ? 'M' : 'L', price: 10 + 5 * s + v });
    }
  }
  products.push({ refId: 'LOOSE-1', title: 'cotton scarf', colour: 'red', price: 5 }, { refId: 'LOOSE-2', title: 'cotton socks', style_id: '', colour: 'red', price: 4 });
  return products;
}

const at = (s: Served) => ({
  search: (extra: Record<string, unknown>) => post(`${s.url}${SEARCH}`, { website_id: 'site-b', client: 'client-b', q: '', start: 0, ...extra }, bearer(TOKEN_B)),
  settings: (body: unknown) => post(`${s.url}/admin/v1/websites/site-b/settings`, body, admin, 'PATCH'),
  products: (body: unknown) => post(`${s.url}/admin/v1/websites/site-b/products?mode=replace`, body, admin, 'PUT'),
});

type Page = { payload: { result: { refId: string; _variants?: number; style_id?: string }[]; total_results: number; aggregations?: Record<string, { key: string; doc_count: number }[]> } };

describe('variants (distinct) over HTTP', () => {
  it('stores settings.distinct and refuses bad forms', async () => {
    const api = at(inline);
    for (const bad of [{ distinct: true }, { distinct: {} }, { distinct: { field: '' } }, { distinct: { field: 'style_id', facetCounts: 'styles' } }, { distinct: { field: 'style_id', extra: 1 } }]) {
      const refused = await api.settings(bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      await expectDocumented(refused, SETTINGS, 'PATCH');
    }
    const defaults = (await (await fetch(`${inline.url}/admin/v1/websites/site-b/settings`, { headers: admin })).json()) as { distinct: unknown };
    expect(defaults.distinct).toBe(false);
    const stored = await api.settings({ distinct: { field: 'style_id' } });
    expect(stored.status).toBe(200);
    expect(((await expectDocumented(stored, SETTINGS, 'PATCH')) as { distinct: unknown }).distinct).toEqual({ field: 'style_id', facetCounts: 'products' });
    expect((await api.settings({ distinct: null })).status).toBe(200);
  });

  for (const [name, served] of [['inline', () => inline], ['on the pool', () => pooled]] as const) {
    it(`answers one result per style with _variants, totals and pages over groups, facets per product or per group (${name})`, async () => {
      const api = at(served());
      expect((await api.products(catalog())).status).toBe(200);
      // Without the setting, distinct: true is a bad request naming it.
      const refused = await api.search({ distinct: true });
      expect(refused.status).toBe(400);
      expect(((await expectDocumented(refused, SEARCH, 'POST')) as { message: string }).message).toMatch(/distinct/);
      expect((await api.settings({ distinct: { field: 'style_id' } })).status).toBe(200);

      const sort = [{ price: { order: 'desc', type: 'number' } }];
      const first = await api.search({ sort_fields: sort, size: 5, aggregations: ['colour', 'size'] });
      expect(first.status).toBe(200);
      const page = (await expectDocumented(first, SEARCH, 'POST')) as Page;
      expect(page.payload.total_results).toBe(62); // 60 styles and the two products without one
      // The priciest variant represents each style (price 10 + 5·style + variant).
      expect(page.payload.result.map((p) => [p.refId, p._variants])).toEqual([['S59-3', 4], ['S58-2', 3], ['S57-1', 2], ['S56-0', 1], ['S55-3', 4]]);
      // Per product (the default): M are variants 0 and 2, L variants 1 and 3.
      expect(page.payload.aggregations!.size).toEqual([{ key: 'M', doc_count: 90 }, { key: 'L', doc_count: 60 }]);
      const second = (await (await api.search({ sort_fields: sort, start: 60, size: 5 })).json()) as Page;
      expect(second.payload.result.map((p) => p.refId)).toEqual(['LOOSE-1', 'LOOSE-2']);

      // Text and a scope: _variants counts the matching variants only.
      const red = (await (await api.search({ q: 'shirt', scope: { colour: ['red'] }, size: 100 })).json()) as Page;
      expect(red.payload.result.every((p) => p._variants === 1)).toBe(true);

      // Per group: a style counts once per value any of its matching variants has.
      expect((await api.settings({ distinct: { field: 'style_id', facetCounts: 'groups' } })).status).toBe(200);
      const groups = (await expectDocumented(await api.search({ size: 0, aggregations: ['size'], range_buckets: { price: [40] } }), SEARCH, 'POST')) as Page & { payload: { range_buckets: Record<string, { count: number }[]> } };
      // M: every style (variant 0); L: styles with a second variant (s % 4 >= 1: 45 styles).
      expect(groups.payload.aggregations!.size).toEqual([{ key: 'M', doc_count: 60 }, { key: 'L', doc_count: 45 }]);
      expect(groups.payload.range_buckets.price.map((b) => b.count)).toEqual([8, 54]); // styles 0-5 and the two loose ones below 40

      // distinct: false shows every variant.
      const all = (await (await api.search({ distinct: false, size: 0 })).json()) as Page;
      expect(all.payload.total_results).toBe(152);
      expect((await api.settings({ distinct: null })).status).toBe(200);
    });
  }
});
