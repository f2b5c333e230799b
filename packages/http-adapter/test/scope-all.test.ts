/**
 * The `{all, any?, not?}` scope condition over a real socket, inline and on the worker pool: several
 * refinements ANDed on one multi-valued field (tags `a` and `b`), which the list form (OR) cannot say
 * and which the InstantSearch client used to send as an intersection of lists, matching nothing
 * (decision 0092).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type Product } from '@aisle/engine';
import { createListener } from '../src/listener.js';
import { ADMIN_TOKEN, bearer, expectDocumented, post } from './helpers.js';

const TOKEN = 'scope-all-token-0123456789';

const TAGS: Record<string, string[] | undefined> = {
  t0: ['a', 'b'], t1: ['a'], t2: ['b'], t3: ['a', 'b', 'c'], t4: ['c'], t5: undefined, t6: ['a', 'c'],
};
const products = (): Product[] => Object.entries(TAGS).map(([refId, tags]) => ({ refId, title: `shirt ${refId}`, rating: 3, ...(tags && { tags }) }));

type Answer = { payload: { result: Product[]; total_results: number; aggregations?: Record<string, { key: string; doc_count: number }[]> } };

describe.each([['inline', false], ['pool', true]] as const)('scope {all, any, not} (%s)', (_name, pooled) => {
  let engine: Engine;
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    engine = await createEngine({
      workers: pooled ? 2 : 0, poolThreshold: pooled ? 0 : undefined, adminTokens: [ADMIN_TOKEN],
      websites: [{ websiteId: 'w', client: 'wc', tokens: [TOKEN], hmacSecret: 's' }],
    });
    await engine.upsertProducts('w', products());
    server = http.createServer(createListener(engine, { adminTokens: [ADMIN_TOKEN], logger: false }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await engine.close();
  });

  const send = (body: Record<string, unknown>, token = TOKEN) =>
    post(`${url}/v1.4/search`, { website_id: 'w', client: 'wc', q: '', start: 0, size: 20, ...body }, bearer(token));
  const search = async (body: Record<string, unknown>, token = TOKEN): Promise<Answer> => {
    const res = await send(body, token);
    expect(res.status, await res.clone().text()).toBe(200);
    return await expectDocumented(res, '/v1.4/search', 'POST') as Answer;
  };
  const refIds = (a: Answer) => a.payload.result.map((p) => p.refId).sort();

  it('selects the products having every value of all, one of any and none of not', async () => {
    for (const q of ['', 'shirt']) {
      expect(refIds(await search({ q, scope: { tags: { all: ['a', 'b'] } } })), q).toEqual(['t0', 't3']);
      expect(refIds(await search({ q, scope: { tags: { all: ['a', 'b'], not: ['c'] } } })), q).toEqual(['t0']);
      expect(refIds(await search({ q, scope: { tags: { all: ['a'], any: ['b', 'c'] } } })), q).toEqual(['t0', 't3', 't6']);
      expect(refIds(await search({ q, scope: { tags: { any: ['b', 'c'], not: ['a'] } } })), q).toEqual(['t2', 't4']);
      // A value nobody has: nobody has every value.
      expect(refIds(await search({ q, scope: { tags: { all: ['a', 'zzz'] } } })), q).toEqual([]);
    }
    // The list form keeps its meaning (any of the values).
    expect(refIds(await search({ scope: { tags: ['a', 'b'] } }))).toEqual(['t0', 't1', 't2', 't3', 't6']);
  });

  it('counts facets over the products it selects, and ignores its own condition for a disjunctive facet', async () => {
    const a = await search({ scope: { tags: { all: ['a', 'b'] } }, aggregations: ['tags'] });
    expect(a.payload.total_results).toBe(2);
    expect(a.payload.aggregations!.tags).toEqual([{ key: 'a', doc_count: 2 }, { key: 'b', doc_count: 2 }, { key: 'c', doc_count: 1 }]);
    const d = await search({ scope: { tags: { all: ['a', 'b'] } }, aggregations: ['tags'], disjunctive_facets: ['tags'] });
    expect(d.payload.total_results).toBe(2);
    expect(d.payload.aggregations!.tags).toEqual([{ key: 'a', doc_count: 4 }, { key: 'b', doc_count: 3 }, { key: 'c', doc_count: 3 }]);
  });

  it('applies through a search key\'s forced scope, narrowed and never widened by the caller', async () => {
    const created = await post(`${url}/admin/v1/websites/w/keys`, { actions: ['search'], scope: { tags: { all: ['a', 'b'] } } }, bearer(ADMIN_TOKEN));
    expect(created.status).toBe(201);
    const { key } = await created.json() as { key: string };
    expect(refIds(await search({}, key))).toEqual(['t0', 't3']);
    expect(refIds(await search({ scope: { tags: ['c', 'b'] } }, key))).toEqual(['t0', 't3']);
    expect(refIds(await search({ scope: { tags: ['c'] } }, key))).toEqual(['t3']);
  });

  it('refuses it on a numeric field and malformed, with a 400 naming the field', async () => {
    for (const scope of [{ rating: { all: ['3'] } }, { tags: { all: 'a' } }, { tags: { all: ['a'], min: 1 } }, { tags: { any: ['a'], not: [1] } }]) {
      const res = await send({ scope });
      expect(res.status, JSON.stringify(scope)).toBe(400);
      const body = await expectDocumented(res, '/v1.4/search', 'POST') as { message: string };
      expect(body.message, JSON.stringify(scope)).toContain(`scope.${Object.keys(scope)[0]}`);
    }
  });
});
