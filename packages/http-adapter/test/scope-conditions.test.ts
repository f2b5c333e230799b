/**
 * Scope conditions over a real socket, inline and on the worker pool (both engines must answer
 * alike): the `exists` operator in searches, search keys and rule boosts; a rule boost whose scope
 * cannot apply refused when saved (400 naming it), or, when a later catalog change breaks it, skipped
 * with a warning logged and counted once per settings version.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type Product } from '@aisle/engine';
import { createListener } from '../src/listener.js';
import { ADMIN_TOKEN, bearer, expectDocumented, post } from './helpers.js';

const TOKEN = 'conditions-token-0123456789';

/** Eight lamps: `sale` set on some, absent, null, an empty list or an empty string on others. */
function products(): Product[] {
  const sale: unknown[] = [5, undefined, null, 'yes', [], '', ['a', 'b'], undefined];
  return sale.map((s, i) => {
    const p: Product = { refId: `l${i}`, title: `lamp ${i}`, rating: i % 4, colour: i % 2 === 0 ? 'red' : 'blue' };
    if (s !== undefined) p.sale = s;
    return p;
  });
}
// Products having a value for `sale` (as facets see them: "" is a value, null and [] are none).
const WITH_SALE = ['l0', 'l3', 'l5', 'l6'];
const WITHOUT_SALE = ['l1', 'l2', 'l4', 'l7'];

interface Service {
  url: string;
  engine: Engine;
  warnings: { details: object; message?: string }[];
  close(): Promise<void>;
}

async function start(pooled: boolean): Promise<Service> {
  const warnings: Service['warnings'] = [];
  const logger = { error: () => undefined, info: () => undefined, warn: (details: object, message?: string) => { warnings.push({ details, message }); } };
  const engine = await createEngine({
    workers: pooled ? 2 : 0, poolThreshold: pooled ? 0 : undefined, adminTokens: [ADMIN_TOKEN],
    websites: [{ websiteId: 'c', client: 'cc', tokens: [TOKEN], hmacSecret: 's' }], logger,
  });
  await engine.upsertProducts('c', products());
  const server = http.createServer(createListener(engine, { adminTokens: [ADMIN_TOKEN], logger: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, engine, warnings,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

type Answer = { payload: { result: Product[]; total_results: number; aggregations?: Record<string, { key: string; doc_count: number }[]> } };

describe.each([['inline', false], ['pool', true]] as const)('scope conditions (%s)', (_name, pooled) => {
  let svc: Service;
  beforeAll(async () => { svc = await start(pooled); });
  afterAll(() => svc.close());

  const search = async (body: Record<string, unknown>, token = TOKEN): Promise<Answer> => {
    const res = await post(`${svc.url}/v1.4/search`, { website_id: 'c', client: 'cc', q: '', start: 0, size: 20, ...body }, bearer(token));
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json() as Promise<Answer>;
  };
  const refIds = (a: Answer) => a.payload.result.map((p) => p.refId).sort();
  const putSettings = (settings: unknown) => post(`${svc.url}/admin/v1/websites/c/settings`, settings, bearer(ADMIN_TOKEN), 'PUT');
  const getSettings = async (): Promise<unknown> => (await fetch(`${svc.url}/admin/v1/websites/c/settings`, { headers: bearer(ADMIN_TOKEN) })).json();

  it('selects the products that have, or have not, a value for a field', async () => {
    expect(refIds(await search({ scope: { sale: { exists: true } } }))).toEqual(WITH_SALE);
    expect(refIds(await search({ scope: { sale: { exists: false } } }))).toEqual(WITHOUT_SALE);
    // With query text (per-match checks) and combined with another condition.
    expect(refIds(await search({ q: 'lamp', scope: { sale: { exists: true }, colour: ['red'] } }))).toEqual(['l0', 'l6']);
    // A field no product has: nobody has a value, everybody lacks one.
    expect((await search({ scope: { nope: { exists: true } } })).payload.total_results).toBe(0);
    expect((await search({ scope: { nope: { exists: false } } })).payload.total_results).toBe(8);
    // Any kind of field: a numeric one too.
    expect((await search({ scope: { rating: { exists: true } } })).payload.total_results).toBe(8);
  });

  it('counts a disjunctive facet without the field\'s own exists condition', async () => {
    const a = await search({ scope: { sale: { exists: true }, colour: ['blue'] }, disjunctive_facets: ['colour'], aggregations: ['sale'] });
    expect(refIds(a)).toEqual(['l3', 'l5']);
    expect(a.payload.aggregations!.colour).toEqual([{ key: 'blue', doc_count: 2 }, { key: 'red', doc_count: 2 }]);
    expect(a.payload.aggregations!.sale).toEqual([{ key: '', doc_count: 1 }, { key: 'yes', doc_count: 1 }]);
  });

  it('refuses a malformed exists condition with a 400 naming it', async () => {
    const res = await post(`${svc.url}/v1.4/search`, { website_id: 'c', client: 'cc', q: '', start: 0, scope: { sale: { exists: 'yes' } } }, bearer(TOKEN));
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('scope.sale');
  });

  it('forces exists through a search key, never widened by the caller', async () => {
    const created = await post(`${svc.url}/admin/v1/websites/c/keys`, { actions: ['search'], scope: { sale: { exists: true } } }, bearer(ADMIN_TOKEN));
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    expect(refIds(await search({}, key))).toEqual(WITH_SALE);
    // Both apply: products without a sale value are outside the key's scope, so nothing is a result.
    expect(refIds(await search({ scope: { sale: { exists: false } } }, key))).toEqual([]);
    expect(refIds(await search({ scope: { sale: ['yes'] } }, key))).toEqual(['l3']);
  });

  it('boosts by exists in a merchandising rule', async () => {
    expect((await putSettings({ rules: [{ id: 'b', query: '', match: 'contains', boost: [{ scope: { sale: { exists: false } }, weight: 5 }] }] })).status).toBe(200);
    const a = await search({});
    expect(a.payload.result.slice(0, 4).map((p) => p.refId)).toEqual(WITHOUT_SALE);
    expect((await putSettings({})).status).toBe(200);
  });

  it('refuses a rule boost whose scope does not fit the catalog, naming it, and keeps the settings', async () => {
    const before = await getSettings();
    const res = await putSettings({ rules: [{ id: 'r', query: '', match: 'contains', boost: [{ scope: { colour: ['red'] }, weight: 2 }, { scope: { colour: { min: 1 } }, weight: 2 }] }] });
    expect(res.status).toBe(400);
    const problem = (await expectDocumented(res, '/admin/v1/websites/{websiteId}/settings', 'PUT')) as { errors: Record<string, string[]> };
    expect(Object.values(problem.errors).flat().join(' ')).toMatch(/settings\.rules\[0\]\.boost\[1\]\.scope\.colour names a text field/);
    expect(await getSettings()).toEqual(before);
  });

  it('skips a boost a later catalog change broke, warning once per settings version', async () => {
    // Saved while `rating` is numeric: it applies.
    expect((await putSettings({ rules: [{ id: 'top', query: '', match: 'contains', boost: [{ scope: { rating: { min: 3 } }, weight: 10 }] }] })).status).toBe(200);
    expect((await search({})).payload.result[0]!.refId).toBe('l3');
    // Every rating becomes a word: `{min}` no longer fits the field.
    await svc.engine.upsertProducts('c', products().map((p) => ({ ...p, rating: `grade ${String(p.rating)}` })));
    const failuresBefore = svc.engine.backgroundFailures()['merchandising-rule'];
    const warningsBefore = svc.warnings.length;
    for (let i = 0; i < 3; i++) expect((await search({})).payload.total_results).toBe(8);
    expect(svc.engine.backgroundFailures()['merchandising-rule']).toBe(failuresBefore + 1);
    expect(svc.warnings.slice(warningsBefore).map((w) => w.message)).toEqual([
      expect.stringMatching(/merchandising rule "top": boost\[0\]\.scope\.rating names a text field.*not applied/),
    ]);
    // The same rule cannot be saved again as things are now.
    expect((await putSettings({ rules: [{ id: 'top', query: '', match: 'contains', boost: [{ scope: { rating: { min: 3 } }, weight: 10 }] }] })).status).toBe(400);
    await svc.engine.upsertProducts('c', products());
    expect((await putSettings({})).status).toBe(200);
  });
});
