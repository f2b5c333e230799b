import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, expectDocumented, ORIGIN_A, startService, TOKEN_A, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const keysPath = '/admin/v1/websites/{websiteId}/keys';
type Created = { key: string; id: string; websiteId: string; scope?: Record<string, unknown>; expired: boolean };
type Search = { payload: { result: { refId: string; brand?: string; price?: number }[]; total_results: number; aggregations?: Record<string, { key: string; doc_count: number }[]> } };

function createKey(websiteId: string, body: unknown, token = ADMIN_TOKEN): Promise<Response> {
  return fetch(`${svc.url}/admin/v1/websites/${websiteId}/keys`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify(body) });
}

function search(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.url}/v1.4/search`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key), ...headers },
    body: JSON.stringify({ website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 50, ...body }),
  });
}

describe('search keys', () => {
  it('creates a key that opens search on its website only, lists it without the key, and revokes it', async () => {
    const res = await createKey('site-a', { actions: ['search'] });
    expect(res.status).toBe(201);
    const created = (await expectDocumented(res, keysPath, 'POST')) as Created;
    expect(created).toMatchObject({ websiteId: 'site-a', actions: ['search'], expired: false });
    expect(created.key).toMatch(/^sk_/);

    const ok = await search(created.key, { q: 'zanzibar' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Search).payload.result.map((p) => p.refId)).toContain('KNOWN-1');

    // Another website, the events API and the admin API stay closed to it.
    const other = await fetch(`${svc.url}/v1.4/search`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(created.key) },
      body: JSON.stringify({ website_id: 'site-b', client: 'client-b', q: '', start: 0 }),
    });
    expect(other.status).toBe(401);
    const views = await fetch(`${svc.url}/3.0/events/views`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(created.key) }, body: '{}' });
    expect(views.status).toBe(401);
    expect((await fetch(`${svc.url}/admin/v1/websites/site-a/stats`, { headers: bearer(created.key) })).status).toBe(401);
    expect((await createKey('site-a', { actions: ['search'] }, created.key)).status).toBe(401);

    const list = await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { headers: bearer(ADMIN_TOKEN) });
    expect(list.status).toBe(200);
    const listed = (await expectDocumented(list, keysPath, 'GET')) as { keys: Record<string, unknown>[] };
    expect(listed.keys.map((k) => k.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const revoke = await fetch(`${svc.url}/admin/v1/websites/site-a/keys/${created.id}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) });
    expect(revoke.status).toBe(204);
    expect((await search(created.key, {})).status).toBe(401);
    const again = await fetch(`${svc.url}/admin/v1/websites/site-a/keys/${created.id}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) });
    expect(again.status).toBe(404);
    await expectDocumented(again, '/admin/v1/websites/{websiteId}/keys/{key}', 'DELETE');
  });

  it('forces its scope: the caller can narrow it but not widen it, in results and in counts', async () => {
    const created = (await (await createKey('site-a', { actions: ['search'], scope: { brand: ['Zanzibar'], price: { max: 100 } } })).json()) as Created;
    expect(created.scope).toEqual({ brand: ['Zanzibar'], price: { max: 100 } });
    const plain = (await (await search(created.key, { aggregations: ['brand'] })).json()) as Search;
    expect(plain.payload.result.map((p) => p.refId)).toEqual(['KNOWN-2']);
    expect(plain.payload.aggregations!.brand).toEqual([{ key: 'Zanzibar', doc_count: 1 }]);
    // Asking for other brands and a wider price range still gets only what the key allows.
    const widened = await search(created.key, { scope: { brand: ['Zanzibar', 'Other'], price: { min: 0, max: 10_000 } }, aggregations: ['brand'] });
    expect(widened.status).toBe(200);
    expect(((await widened.json()) as Search).payload.result.map((p) => p.refId)).toEqual(['KNOWN-2']);
    const excluded = await search(created.key, { scope: { brand: { not: ['Zanzibar'] } } });
    expect(((await excluded.json()) as Search).payload.total_results).toBe(0);
    // Counts of a disjunctively counted forced field never show values outside the key's scope.
    const disjunctive = await search(created.key, { aggregations: ['brand'], disjunctive_facets: ['brand'] });
    expect(((await disjunctive.json()) as Search).payload.aggregations!.brand.map((b) => b.key)).toEqual(['Zanzibar']);
  });

  it('answers browsers from the website\'s configured origins only', async () => {
    const preflight = await fetch(`${svc.url}/v1.4/search`, {
      method: 'OPTIONS', headers: { origin: ORIGIN_A, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const stranger = await fetch(`${svc.url}/v1.4/search`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();

    const keyA = (await (await createKey('site-a', { actions: ['search'] })).json()) as Created;
    const fromA = await search(keyA.key, {}, { origin: ORIGIN_A });
    expect(fromA.status).toBe(200);
    expect(fromA.headers.get('access-control-allow-origin')).toBe(ORIGIN_A);
    // site-b allows no origin: its answer carries no CORS headers, whatever the preflight said.
    const keyB = (await (await createKey('site-b', { actions: ['search'] })).json()) as Created;
    const fromB = await fetch(`${svc.url}/v1.4/search`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN_A, ...bearer(keyB.key) },
      body: JSON.stringify({ website_id: 'site-b', client: 'client-b', q: '', start: 0 }),
    });
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a settings change that drops a hierarchy a live key forces (every search of the key matched nothing)', async () => {
    const settingsUrl = `${svc.url}/admin/v1/websites/site-a/settings`;
    const patch = (body: unknown) => fetch(settingsUrl, { method: 'PATCH', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: JSON.stringify(body) });
    expect((await patch({ hierarchies: { shelf: { field: 'search_category' } } })).status).toBe(200);
    const created = (await (await createKey('site-a', { actions: ['search'], scope: { shelf: ['Coffee'] } })).json()) as Created;
    expect((((await (await search(created.key, {})).json()) as { payload: { total_results: number } }).payload.total_results)).toBeGreaterThan(0);
    // Dropped (or renamed), the name meant a field no product has: the storefront showed no results, and nobody was told.
    for (const body of [{ hierarchies: null }, { hierarchies: { shelf: null, aisle: { field: 'search_category' } } }]) {
      const refused = await patch(body);
      expect(refused.status).toBe(400);
      const problem = (await expectDocumented(refused, '/admin/v1/websites/{websiteId}/settings', 'PATCH')) as { errors: Record<string, string[]> };
      expect(problem.errors).toEqual({ 'settings.Hierarchies.Shelf': [`settings.hierarchies.shelf is named by the forced scope of search key ${created.id} (its searches would match nothing): revoke the key first, or keep the hierarchy`] });
    }
    expect((((await (await search(created.key, {})).json()) as { payload: { total_results: number } }).payload.total_results)).toBeGreaterThan(0);
    // Once the key is revoked, the hierarchy may go.
    expect((await fetch(`${svc.url}/admin/v1/websites/site-a/keys/${created.id}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) })).status).toBe(204);
    expect((await patch({ hierarchies: null })).status).toBe(200);
  });

  it('refuses a forced scope on a key that opens no search (it was stored and restricted nothing)', async () => {
    // An insights key sends clicks, which a scope does not restrict: its holder would believe in a limit there is not.
    const res = await createKey('site-a', { actions: ['insights'], scope: { brand: ['Zanzibar'] } });
    expect(res.status).toBe(400);
    const problem = (await expectDocumented(res, '/admin/v1/websites/{websiteId}/keys', 'POST')) as { errors: Record<string, string[]> };
    expect(problem.errors).toEqual({ scope: ['search key: scope restricts searches: a key whose actions do not include "search" takes none'] });
    const listed = (await (await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { headers: bearer(ADMIN_TOKEN) })).json()) as { keys: { actions: string[]; scope?: unknown }[] };
    expect(listed.keys.some((k) => !k.actions.includes('search') && k.scope !== undefined)).toBe(false);
    expect((await createKey('site-a', { actions: ['search', 'insights'], scope: { brand: ['Zanzibar'] } })).status).toBe(201);
  });

  it('tells the holder of an expired key that it expired, on search and clicks, and lists it as expired', async () => {
    // An expired key answered "invalid bearer token", as a made-up one does: its holder looked for a typo.
    const expiresAt = new Date(Date.now() + 1200).toISOString();
    const res = await createKey('site-a', { actions: ['search', 'insights'], expiresAt });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Created;
    expect((await search(created.key, {})).status).toBe(200);
    while (Date.now() <= Date.parse(expiresAt)) await new Promise((r) => setTimeout(r, 50));

    const expired = await search(created.key, {});
    expect(expired.status).toBe(401);
    expect(await expectDocumented(expired, '/v1.4/search', 'POST')).toEqual({ type: -1, code: 401, message: `the search key expired at ${expiresAt}` });
    const click = await fetch(`${svc.url}/3.0/events/clicks`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(created.key) },
      body: JSON.stringify({ customerId: 'c-1', sessionId: 's-1', events: [{ eventTime: new Date().toISOString(), refId: 'KNOWN-1', type: 'click' }] }),
    });
    expect(click.status).toBe(401);
    const problem = (await expectDocumented(click, '/3.0/events/clicks', 'POST')) as { status: number; errors: Record<string, string[]> };
    expect(problem.errors).toEqual({ Authorization: [`the search key expired at ${expiresAt}`] });
    const listed = (await (await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { headers: bearer(ADMIN_TOKEN) })).json()) as { keys: Created[] };
    expect(listed.keys.find((k) => k.id === created.id)).toMatchObject({ expired: true, expiresAt });

    // A made-up key of the same form, and a revoked expired key, still say only "invalid".
    const madeUp = `sk_${'A'.repeat(43)}`;
    expect(await (await search(madeUp, {})).json()).toEqual({ type: -1, code: 401, message: 'invalid bearer token' });
    expect((await fetch(`${svc.url}/admin/v1/websites/site-a/keys/${created.id}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) })).status).toBe(204);
    expect(await (await search(created.key, {})).json()).toEqual({ type: -1, code: 401, message: 'invalid bearer token' });
  });

  it('tells the holder of a search key that purchases and views take the website token, where it said "invalid bearer token"', async () => {
    const created = (await (await createKey('site-a', { actions: ['search', 'insights'] })).json()) as Created;
    const customer = { customerId: '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10', sessionId: '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21' };
    const bodies: [string, unknown][] = [
      ['/3.0/events/views', { ...customer, events: [{ currentUrl: 'https://shop-a.example/p', eventTime: new Date().toISOString(), refId: 'KNOWN-1' }] }],
      ['/3.0/events/purchases', { ...customer, events: [{ currentUrl: 'https://shop-a.example/t', eventTime: new Date().toISOString(), orderId: 'KEY-1', products: [{ refId: 'KNOWN-1', quantity: 1, price: 1 }] }] }],
    ];
    for (const [url, body] of bodies) {
      const res = await fetch(`${svc.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(created.key) }, body: JSON.stringify(body) });
      expect(res.status).toBe(401);
      expect(((await expectDocumented(res, url, 'POST')) as { errors: Record<string, string[]> }).errors).toEqual({
        Authorization: ['a search key opens only search and clicks; this operation takes the website\'s bearer token'],
      });
      // A made-up key of the same form still says only "invalid".
      const madeUp = await fetch(`${svc.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(`sk_${'B'.repeat(43)}`) }, body: JSON.stringify(body) });
      expect(((await madeUp.json()) as { errors: Record<string, string[]> }).errors).toEqual({ Authorization: ['invalid bearer token'] });
    }
  });

  it('refuses bad requests naming the field, unknown websites and callers without the admin token', async () => {
    const cases: [unknown, string][] = [
      [{}, 'actions'], [{ actions: ['admin'] }, 'actions[0]'], [{ actions: ['search'], expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
      [{ actions: ['search'], scope: { brand: 'x' } }, 'scope.brand'], [{ actions: ['search'], extra: 1 }, 'extra'], [[], '(body)'],
    ];
    for (const [body, field] of cases) {
      const res = await createKey('site-a', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = (await expectDocumented(res, keysPath, 'POST')) as { errors: Record<string, string[]> };
      expect(Object.values(problem.errors)[0]![0]).toContain(`search key: ${field} `);
    }
    // A date-time without a zone is refused saying so: the answer was 'must match format "date-time"' for what is an ISO date-time.
    for (const expiresAt of ['2030-01-01T00:00:00', '2030-02-30T00:00:00Z', 'tomorrow']) {
      const res = await createKey('site-a', { actions: ['search'], expiresAt });
      expect(res.status, expiresAt).toBe(400);
      expect(((await res.json()) as { errors: Record<string, string[]> }).errors).toEqual({
        expiresAt: ['search key: expiresAt must be an ISO 8601 date-time with a zone (Z or an offset such as +02:00), such as 2024-05-01T12:00:00Z (years 1970-9999)'],
      });
    }
    const bad = await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: '{"actions":' });
    expect(bad.status).toBe(400);
    expect((await createKey('nope', { actions: ['search'] })).status).toBe(404);
    expect((await createKey('site-a', { actions: ['search'] }, TOKEN_A)).status).toBe(401);
    expect((await fetch(`${svc.url}/admin/v1/websites/site-a/keys/sk_unknown`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) })).status).toBe(404);
    expect((await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { method: 'PUT', headers: bearer(ADMIN_TOKEN) })).status).toBe(405);
  });

  it('refuses a forced scope the catalog cannot apply, as a search would, and stores nothing', async () => {
    // These answered 201, and then every search with the key answered 400.
    const before = ((await (await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { headers: bearer(ADMIN_TOKEN) })).json()) as { keys: unknown[] }).keys.length;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ price: ['cheap'] }, 'scope.price', 'names a numeric field: use {min, max}, not a list of values'],
      [{ brand: { min: 1 } }, 'scope.brand', 'names a text field: use a list of values, not {min, max}'],
    ];
    for (const [scope, key, problem] of cases) {
      const res = await createKey('site-a', { actions: ['search'], scope });
      expect(res.status, JSON.stringify(scope)).toBe(400);
      const body = (await expectDocumented(res, keysPath, 'POST')) as { errors: Record<string, string[]> };
      expect(Object.values(body.errors)).toEqual([[`search key: ${key} ${problem}`]]);
    }
    expect(((await (await fetch(`${svc.url}/admin/v1/websites/site-a/keys`, { headers: bearer(ADMIN_TOKEN) })).json()) as { keys: unknown[] }).keys).toHaveLength(before);
    // A field no product has yet fits (it matches nothing until products have it), as in a search.
    const future = await createKey('site-a', { actions: ['search'], scope: { not_yet_a_field: ['x'], price: { min: 1 } } });
    expect(future.status).toBe(201);
    const { key } = (await future.json()) as { key: string };
    expect((await search(key, { website_id: 'site-a', client: 'client-a', q: '', start: 0 })).status).toBe(200);
  });
});
