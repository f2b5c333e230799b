/**
 * Refinements ANDed on a multi-valued field (a refinementList with `operator: 'and'` on tags) through
 * the client against a real aisle over a real socket: tags `a` and `b` find the products having both
 * (sent as `{all: [...]}`; the intersection of the lists the client sent before matched nothing).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine, type Engine } from '@aisle/engine';
import { createListener } from '@aisle/http-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aisleSearchClient, type AisleSearchClientOptions } from '../src/index.js';

const TAGS: Record<string, string[]> = { t0: ['a', 'b'], t1: ['a'], t2: ['b'], t3: ['a', 'b', 'c'], t4: ['c'], t5: ['a', 'c'] };

let engine: Engine;
let server: http.Server;
let options: AisleSearchClientOptions;

beforeAll(async () => {
  engine = await createEngine({ workers: 0, websites: [{ websiteId: 'shop', client: 'c', tokens: ['server-token-0123456789'], hmacSecret: 's' }] });
  await engine.upsertProducts('shop', Object.entries(TAGS).map(([refId, tags]) => ({ refId, title: `mug ${refId}`, tags })));
  const { key } = await engine.createSearchKey('shop', { actions: ['search'] });
  server = http.createServer(createListener(engine, { logger: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  options = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key, websiteId: 'shop', client: 'c' };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await engine.close();
});

describe('refinements ANDed on one multi-valued field', () => {
  const hitsOf = async (facetFilters: (string | string[])[]) => {
    const client = aisleSearchClient(options);
    const { results } = await client.search([{ indexName: 'products', params: { query: '', hitsPerPage: 20, facets: ['tags'], facetFilters } }]);
    return { ids: results[0]!.hits.map((h) => h.objectID).sort(), nbHits: results[0]!.nbHits, facets: results[0]!.facets, sent: client.lastRequests[0]!.scope };
  };

  it('finds the products having every refined value, with their facet counts', async () => {
    const both = await hitsOf(['tags:a', 'tags:b']);
    expect(both.sent).toEqual({ tags: { all: ['a', 'b'] } });
    expect(both.ids).toEqual(['t0', 't3']);
    expect(both.nbHits).toBe(2);
    expect(both.facets!.tags).toEqual({ a: 2, b: 2, c: 1 });
  });

  it('combines them with an OR group and with exclusions', async () => {
    expect((await hitsOf(['tags:a', 'tags:b', 'tags:-c'])).ids).toEqual(['t0']);
    expect((await hitsOf([['tags:b', 'tags:c'], 'tags:a'])).ids).toEqual(['t0', 't3', 't5']);
    // An exclusion beside an OR group: a product having an excluded value is out, whatever else it has.
    expect((await hitsOf([['tags:a', 'tags:b'], 'tags:-c'])).ids).toEqual(['t0', 't1', 't2']);
  });
});
