/**
 * The client against a real aisle over a real socket: what InstantSearch sends comes back in the shape
 * it reads, with the same products and counts as aisle's own answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine, type Engine } from '@aisle/engine';
import { generateCatalog } from '@aisle/engine/demo';
import { createListener } from '@aisle/http-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aisleSearchClient, AisleSearchError, type AisleSearchClientOptions } from '../src/index.js';

let engine: Engine;
let server: http.Server;
let options: AisleSearchClientOptions;

beforeAll(async () => {
  engine = await createEngine({ workers: 0, websites: [{ websiteId: 'shop', client: 'c', tokens: ['server-token-0123456789'], hmacSecret: 's' }] });
  await engine.upsertProducts('shop', generateCatalog({ count: 300, seed: 3 }));
  const { key } = await engine.createSearchKey('shop', { actions: ['search'] });
  server = http.createServer(createListener(engine, { logger: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  options = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key, websiteId: 'shop', client: 'c', numericFields: ['price'],
    sortIndices: { price_asc: [{ price: { order: 'asc', type: 'number' } }] },
  };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await engine.close();
});

describe('aisleSearchClient over HTTP', () => {
  it('answers a multi-query request as aisle does, facet queries included', async () => {
    const client = aisleSearchClient(options);
    const direct = await engine.search({ website_id: 'shop', client: 'c', q: '', start: 5, size: 5, aggregations: ['brand'], range_fields: ['price'], sort_fields: [{ price: { order: 'asc', type: 'number' } }] });
    const brand = direct.payload.aggregations!.brand![0]!.key;
    const { results } = await client.search([
      { indexName: 'price_asc', params: { query: '', page: 1, hitsPerPage: 5, facets: ['brand', 'price'] } },
    ]);
    expect(results[0]!.hits.map((h) => h.objectID)).toEqual(direct.payload.result.map((p) => p.refId));
    expect(results[0]!.nbHits).toBe(300);
    expect(results[0]!.facets!.brand).toEqual(Object.fromEntries(direct.payload.aggregations!.brand!.map((b) => [b.key, b.doc_count])));
    expect(results[0]!.facets_stats!.price).toMatchObject({ min: direct.payload.ranges!.price!.min, max: direct.payload.ranges!.price!.max });

    const refined = await client.search([
      { indexName: 'products', params: { query: '', hitsPerPage: 10, facets: ['brand'], facetFilters: [[`brand:${brand}`]], numericFilters: ['price>=0'] } },
      { indexName: 'products', params: { query: '', hitsPerPage: 0, page: 0, facets: 'brand', numericFilters: ['price>=0'] } },
    ]);
    expect(client.lastRequests).toHaveLength(1);
    expect(client.lastRequests[0]!.disjunctive_facets).toEqual(['brand']);
    expect(refined.results[0]!.nbHits).toBe(direct.payload.aggregations!.brand![0]!.doc_count);
    expect(refined.results[0]!.hits.every((h) => h.brand === brand)).toBe(true);
    expect(refined.results[1]!.facets!.brand![brand]).toBe(direct.payload.aggregations!.brand![0]!.doc_count);

    // Every query on its own, for an aisle without disjunctive_facets: the same hits.
    const separate = aisleSearchClient({ ...options, disjunctiveFacets: 'queries' });
    const again = await separate.search([
      { indexName: 'products', params: { query: '', hitsPerPage: 10, facets: ['brand'], facetFilters: [[`brand:${brand}`]] } },
      { indexName: 'products', params: { query: '', hitsPerPage: 0, page: 0, facets: 'brand' } },
    ]);
    expect(separate.lastRequests).toHaveLength(2);
    expect(again.results[0]!.hits.map((h) => h.objectID)).toEqual(refined.results[0]!.hits.map((h) => h.objectID));
    expect(again.results[1]!.facets!.brand).toEqual(Object.fromEntries(direct.payload.aggregations!.brand!.map((b) => [b.key, b.doc_count])));
  });

  it('feeds a price histogram: the bands of a range widget\'s field, as aisle counts them', async () => {
    const client = aisleSearchClient({ ...options, rangeBuckets: { price: [25, 50, 100] } });
    const { results } = await client.search([{ indexName: 'products', params: { query: '', hitsPerPage: 0, facets: ['price'], numericFilters: ['price<=80'] } }]);
    const direct = await engine.search({ website_id: 'shop', client: 'c', q: '', start: 0, size: 0, scope: { price: { max: 80 } }, range_buckets: { price: [25, 50, 100] } });
    expect(results[0]!.aisle?.rangeBuckets).toEqual(direct.payload.range_buckets);
    const bands = results[0]!.aisle!.rangeBuckets!.price!;
    expect(bands.map((b) => [b.from, b.to])).toEqual([[undefined, 25], [25, 50], [50, 100], [100, undefined]]);
    expect(bands.reduce((n, b) => n + b.count, 0)).toBe(results[0]!.nbHits);
  });

  it('highlights as aisle marks, escaped once: a title with "&" and "<" shows them as written', async () => {
    await engine.upsertProducts('shop', [{ refId: 'amp-1', title: 'Salt & Pepper <b>Zanzigrinder</b>', brand: 'Zanzigrinder' }]);
    const client = aisleSearchClient(options);
    const { results } = await client.search([
      { indexName: 'products', params: { query: 'zanzigrinder', hitsPerPage: 5, highlightPreTag: '<mark>', highlightPostTag: '</mark>' } },
    ]);
    const hit = results[0]!.hits.find((h) => h.objectID === 'amp-1')!;
    expect(hit._highlightResult!.title).toEqual({
      value: 'Salt &amp; Pepper &lt;b&gt;<mark>Zanzigrinder</mark>&lt;/b&gt;', matchLevel: 'full', matchedWords: ['Zanzigrinder'], fullyHighlighted: false,
    });
    expect(hit._highlightResult!.brand).toEqual({ value: '<mark>Zanzigrinder</mark>', matchLevel: 'full', matchedWords: ['Zanzigrinder'], fullyHighlighted: true });
  });

  it('rejects with aisle\'s message and status', async () => {
    const wrongKey = aisleSearchClient({ ...options, key: 'sk_nope' });
    await expect(wrongKey.search([{ indexName: 'p' }])).rejects.toMatchObject({ name: 'AisleSearchError', status: 401 });
    const wrongSite = aisleSearchClient({ ...options, websiteId: 'other' });
    await expect(wrongSite.search([{ indexName: 'p' }])).rejects.toBeInstanceOf(AisleSearchError);
    const down = aisleSearchClient({ ...options, url: 'http://127.0.0.1:1' });
    await expect(down.search([{ indexName: 'p' }])).rejects.toMatchObject({ status: 0 });
  });
});
