/**
 * Click ranking and `_popularity` over real sockets: on the embedded store (SQLite in a data directory,
 * one process) and on PostgreSQL with two replicas as separate processes, where clicks sent to replica
 * B (naming pages replica A answered) re-rank replica A's results after a bounded delay. The settings
 * through the settings API (defaults filled in, bad values refused naming the key), `settings.ranked_by`
 * as documented, the set, totals and facets unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, type EngineOptions, type Product } from '@aisle/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ReplicaSet, eventually, startChild, type Replica } from './child-server.js';
import { ADMIN_TOKEN, TOKEN_A, bearer, expectDocumented, post, serveEngine } from './helpers.js';

const SEARCH = '/v1.4/search';
const CLICKS = '/3.0/events/clicks';
const SETTINGS = '/admin/v1/websites/site-a/settings';
const SITE = { websiteId: 'site-a', client: 'client-a', tokens: [TOKEN_A], hmacSecret: 'secret-a' };
/** Replica polls; the deadline allows for a loaded machine. */
const POLL_INTERVAL_MS = 100;
const DEADLINE_MS = 10_000;

const products: Product[] = Array.from({ length: 60 }, (_, i) => ({
  refId: `L${i + 1}`, title: `Walnut desk lamp ${i + 1}`, brand: ['Acme', 'Zeta', 'Orbit'][i % 3]!, price: 20 + i,
}));

type Answer = {
  query_id: string; settings?: { ranked_by?: string[]; ats_model?: string };
  payload: { result: { refId: string }[]; total_results: number; aggregations?: Record<string, unknown> };
};

function guid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-click-ranking-'));
const schemas = new TestSchemas();
const replicas = new ReplicaSet();
afterAll(async () => {
  await replicas.stopAll();
  rmSync(tmp, { recursive: true, force: true });
  await schemas.dropAll();
});

async function search(url: string, body: Record<string, unknown> = {}): Promise<Answer> {
  const res = await post(`${url}${SEARCH}`, { website_id: 'site-a', client: 'client-a', q: 'walnut desk lamp', start: 0, size: 10, aggregations: ['brand'], ...body }, bearer(TOKEN_A));
  expect(res.status, await res.clone().text()).toBe(200);
  return (await expectDocumented(res, SEARCH, 'POST')) as Answer;
}

async function patchSettings(url: string, patch: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}${SETTINGS}`, { method: 'PATCH', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) });
}

/** Shopper `n` searches on `searchUrl` and clicks `refId` through `clickUrl`. */
async function shop(searchUrl: string, clickUrl: string, n: number, refId: string): Promise<void> {
  const page = await search(searchUrl, { size: 60, session_id: guid(n) });
  const position = page.payload.result.findIndex((p) => p.refId === refId) + 1;
  expect(position).toBeGreaterThan(0);
  const res = await post(`${clickUrl}${CLICKS}`, {
    customerId: guid(n), sessionId: guid(n), events: [{ eventTime: new Date().toISOString(), refId, type: 'click', queryId: page.query_id, position }],
  }, bearer(TOKEN_A));
  expect(res.status, await res.clone().text()).toBe(202);
}

/** Ends the search-as-you-type chains (a report read does; otherwise 10 s after the searches). */
async function endChains(url: string): Promise<void> {
  expect((await fetch(`${url}/admin/v1/websites/site-a/reports/searches`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
}

describe('click ranking over HTTP: embedded store', () => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const engine = await createEngine({ dataDir: path.join(tmp, 'embedded'), workers: 0, websites: [SITE], adminTokens: [ADMIN_TOKEN] });
    await engine.upsertProducts('site-a', products);
    const served = await serveEngine(engine, { adminTokens: [ADMIN_TOKEN] });
    url = served.url;
    close = async () => { await served.close(); await engine.close(); };
  });
  afterAll(() => close());

  it('is set through the settings API, GET showing the defaults filled in; a bad value answers 400 naming the key', async () => {
    const on = await patchSettings(url, { clickRanking: { minSessions: 3 } });
    expect(on.status).toBe(200);
    expect(((await on.json()) as { clickRanking: unknown }).clickRanking).toEqual({ weight: 1, minSessions: 3, halfLifeDays: 30 });
    for (const bad of [{ minSessions: 0 }, { halfLifeDays: -1 }, { weight: 'high' }, { other: 1 }, 7]) {
      const res = await patchSettings(url, { clickRanking: bad });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('clickRanking');
    }
    expect(((await (await fetch(`${url}${SETTINGS}`, { headers: bearer(ADMIN_TOKEN) })).json()) as { clickRanking: unknown }).clickRanking)
      .toEqual({ weight: 1, minSessions: 3, halfLifeDays: 30 });
  });

  it('re-ranks from minSessions sessions on, names the stage in settings.ranked_by, and keeps the set, totals and facets', async () => {
    const before = await search(url);
    expect(before.settings).toBeUndefined();
    await shop(url, url, 1, 'L44');
    await shop(url, url, 2, 'L44');
    await endChains(url);
    expect((await search(url)).payload.result.map((p) => p.refId)).toEqual(before.payload.result.map((p) => p.refId));
    await shop(url, url, 3, 'L44');
    await endChains(url);
    await eventually(async () => (await search(url)).payload.result[0]!.refId === 'L44', 'the clicked lamp first', DEADLINE_MS);
    const after = await search(url);
    expect(after.settings).toEqual({ ranked_by: ['clicks'] });
    expect(after.payload.total_results).toBe(before.payload.total_results);
    expect(after.payload.aggregations).toEqual(before.payload.aggregations);
    const sorted = await search(url, { sort_fields: [{ price: { order: 'desc', type: 'number' } }] });
    expect(sorted.payload.result[0]!.refId).toBe('L60');
    expect(sorted.settings).toBeUndefined();
  });

  it('sorts by _popularity; asking it as text answers 400 naming the sort key', async () => {
    const top = await search(url, { q: '', sort_fields: [{ _popularity: { order: 'desc', type: 'number' } }] });
    expect(top.payload.result[0]!.refId).toBe('L44');
    const res = await post(`${url}${SEARCH}`, { website_id: 'site-a', client: 'client-a', q: '', start: 0, sort_fields: [{ _popularity: { order: 'desc', type: 'text' } }] }, bearer(TOKEN_A));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('_popularity');
  });
});

describe('click ranking over HTTP: two PostgreSQL replicas', () => {
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    await requirePostgres();
    const schema = schemas.next();
    const options = (name: string): EngineOptions => ({
      dataDir: path.join(tmp, name),
      store: { type: 'postgres', url: TEST_PG_URL, schema, pollIntervalMs: POLL_INTERVAL_MS },
      workers: 0, websites: [{ ...SITE, settings: { clickRanking: { minSessions: 3 } } }], adminTokens: [ADMIN_TOKEN],
    });
    a = await replicas.start('a', () => startChild(options('a')));
    b = await replicas.start('b', () => startChild(options('b')));
    const res = await fetch(`${a.url}/admin/v1/websites/site-a/products`, {
      method: 'PUT', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, body: JSON.stringify(products),
    });
    expect(res.status).toBe(200);
    await eventually(async () => (await search(b.url)).payload.total_results === products.length, 'the catalog on replica b', DEADLINE_MS);
  }, 60_000);

  it('a click sent to replica b re-ranks replica a\'s results after a bounded delay', async () => {
    const before = await search(a.url);
    expect(before.settings).toBeUndefined();
    for (let n = 1; n <= 3; n++) await shop(a.url, b.url, 10 + n, 'L37');
    await endChains(a.url);
    await eventually(async () => (await search(a.url)).payload.result[0]!.refId === 'L37', 'the lamp clicked through replica b first on replica a', DEADLINE_MS);
    const after = await search(a.url);
    expect(after.settings).toEqual({ ranked_by: ['clicks'] });
    expect(after.payload.total_results).toBe(before.payload.total_results);
    expect(after.payload.aggregations).toEqual(before.payload.aggregations);
    // _popularity is learned from the same stored clicks on both replicas.
    for (const r of [a, b]) {
      await eventually(async () => (await search(r.url, { q: '', sort_fields: [{ _popularity: { order: 'desc', type: 'number' } }] })).payload.result[0]!.refId === 'L37',
        `L37 most popular on replica ${r.name}`, DEADLINE_MS);
    }
  }, 60_000);
});
