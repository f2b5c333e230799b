/**
 * The website settings API over a real socket: GET (defaults filled in), PUT (replace), PATCH (JSON
 * Merge Patch), validation naming the key, and the next search using the new settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, DEFAULT_WEBSITE_SETTINGS, MemoryStore } from '@aisle/engine';
import { ADMIN_TOKEN, TOKEN_A, TOKEN_B, bearer, expectDocumented, post, startService, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const path = '/admin/v1/websites/{websiteId}/settings';
const url = (site = 'site-a') => `${svc.url}/admin/v1/websites/${site}/settings`;
type Problem = { status: number; errors: Record<string, string[]> };

function send(method: string, body: unknown, site = 'site-a', type = 'application/json'): Promise<Response> {
  return post(url(site), body, { ...bearer(ADMIN_TOKEN), 'content-type': type }, method);
}

async function search(q: string, extra: Record<string, unknown> = {}): Promise<{ payload: { total_results: number; redirects: { url?: string }; result: { refId: string }[] } }> {
  const res = await post(`${svc.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q, start: 0, ...extra }, bearer(TOKEN_A));
  expect(res.status).toBe(200);
  return res.json() as never;
}

async function expectBad(res: Response, key: string, words: RegExp): Promise<void> {
  expect(res.status).toBe(400);
  const problem = (await expectDocumented(res, path, 'PUT')) as Problem;
  const messages = Object.values(problem.errors).flat().join(' ');
  expect(messages).toContain(key);
  expect(messages).toMatch(words);
}

describe('settings API', () => {
  it('GET answers every key, the config file\'s settings over the defaults', async () => {
    const res = await fetch(url(), { headers: bearer(ADMIN_TOKEN) });
    expect(res.status).toBe(200);
    const settings = (await expectDocumented(res, path, 'GET')) as Record<string, unknown>;
    for (const key of Object.keys(DEFAULT_WEBSITE_SETTINGS)) expect(settings).toHaveProperty(key);
    expect(settings).toMatchObject({ semanticSearch: true, cors: { origins: ['https://shop-a.example'] }, rules: [], synonyms: [] });
  });

  it('PUT replaces, applied to the next search (synonyms, redirects) with no restart', async () => {
    expect((await search('zanzibar')).payload.total_results).toBe(2);
    expect((await search('kilimanjaro')).payload.total_results).toBe(0);
    const res = await send('PUT', {
      semanticSearch: true, cors: { origins: ['https://shop-a.example'] },
      synonyms: [['kilimanjaro', 'zanzibar']], redirects: [{ queries: ['help me'], url: 'https://shop-a.example/help' }],
    });
    expect(res.status).toBe(200);
    const settings = (await expectDocumented(res, path, 'PUT')) as Record<string, unknown>;
    expect(settings).toMatchObject({ synonyms: [['kilimanjaro', 'zanzibar']], personalization: false, rules: [] });
    expect((await search('kilimanjaro')).payload.total_results).toBe(2);
    expect((await search('Help  ME')).payload.redirects.url).toBe('https://shop-a.example/help');
    // PUT replaces: keys not sent go back to their defaults.
    const again = await send('PUT', { semanticSearch: true, cors: { origins: ['https://shop-a.example'] } });
    expect(((await again.json()) as { synonyms: unknown[] }).synonyms).toEqual([]);
    expect((await search('kilimanjaro')).payload.total_results).toBe(0);
    expect((await search('help me')).payload.redirects.url).toBeUndefined();
  });

  it('PATCH merges as RFC 7396 (null removes a key), also as application/merge-patch+json', async () => {
    let res = await send('PATCH', { redirects: [{ queries: ['returns'], url: '/returns' }], fieldWeights: { title: 4 } });
    expect(res.status).toBe(200);
    let settings = (await expectDocumented(res, path, 'PATCH')) as Record<string, unknown>;
    expect(settings).toMatchObject({ semanticSearch: true, redirects: [{ queries: ['returns'], url: '/returns' }], fieldWeights: { title: 4 } });
    res = await send('PATCH', { fieldWeights: { brand: 5 }, redirects: null }, 'site-a', 'application/merge-patch+json');
    expect(res.status).toBe(200);
    settings = (await res.json()) as Record<string, unknown>;
    // Every default at every depth: the fields not weighted keep their default weights (as search reads them).
    expect(settings.fieldWeights).toEqual({ ...DEFAULT_WEBSITE_SETTINGS.fieldWeights, title: 4, brand: 5 });
    expect(settings.redirects).toEqual([]);
    expect(settings.semanticSearch).toBe(true);
    const got = (await (await fetch(url(), { headers: bearer(ADMIN_TOKEN) })).json()) as Record<string, unknown>;
    expect(got).toEqual(settings);
  });

  it('refuses bad settings with a 400 naming the key, and changes nothing', async () => {
    const before = await (await fetch(url(), { headers: bearer(ADMIN_TOKEN) })).text();
    await expectBad(await send('PUT', { synonyms: 'tv' }), 'settings.synonyms', /must be an array/);
    await expectBad(await send('PUT', { personalisation: true }), 'settings.personalisation', /not a known key/);
    await expectBad(await send('PUT', { rules: [{ id: 'a', query: 'x', pin: [{ refId: 'KNOWN-1', position: 0 }] }] }), 'settings.rules[0].pin[0].position', /at least 1/);
    await expectBad(await send('PUT', { rules: [{ id: 'a', query: 'x', boost: [{ scope: { brand: 'Zanzibar' }, weight: 2 }] }] }), 'settings.rules[0].boost[0].scope.brand', /array of strings/);
    await expectBad(await send('PUT', { rules: [{ id: 'a', query: 'x', boost: [{ scope: {}, weight: -1 }] }] }), 'settings.rules[0].boost[0].weight', /greater than 0/);
    await expectBad(await send('PUT', { rules: [{ id: 'a', query: 'x' }, { id: 'a', query: 'y' }] }), 'settings.rules[1].id', /repeats/);
    await expectBad(await send('PUT', { rules: [{ id: 'a', query: 'x', from: 'yesterday' }] }), 'settings.rules[0].from', /ISO 8601/);
    await expectBad(await send('PUT', { rules: [{ id: 'a', query: 'x', from: '2030-01-02T00:00:00Z', until: '2030-01-01T00:00:00Z' }] }), 'settings.rules[0].until', /later/);
    await expectBad(await send('PATCH', { fieldWeights: { title: 'heavy' } }), 'settings.fieldWeights.title', /number/);
    // A weight on a field that is never indexed for full text (an identifier, a link) would change nothing:
    // it was stored (200) and a search by refId still found nothing.
    await expectBad(await send('PATCH', { fieldWeights: { refId: 5 } }), 'settings.fieldWeights.refId', /never searched.*field of its own/);
    await expectBad(await send('PUT', { fieldWeights: { title: 2, image_url: 1 } }), 'settings.fieldWeights.image_url', /never searched/);
    // A redirect query without a word would be the query of every search without words (category browsing).
    await expectBad(await send('PATCH', { redirects: [{ queries: ['help', '!!!'], url: 'https://shop-a.example/help' }] }), 'settings.redirects[0].queries[1]', /has no word/);
    // A synonym without a word matches nothing and adds nothing ("™" was the word "tm" until text analysis 2).
    await expectBad(await send('PATCH', { synonyms: [['sofa', 'couch'], ['™', 'chair']] }), 'settings.synonyms[1][0]', /has no word/);
    await expectBad(await send('PATCH', { synonyms: [{ from: 'lamp', to: ['light', '!!!'] }] }), 'settings.synonyms[0].to[1]', /has no word/);
    await expectBad(await send('PATCH', { stopWords: ['the', '&'] }), 'settings.stopWords[1]', /has no word/);
    // A rule query without a word is the rule of "", which says so plainly.
    await expectBad(await send('PATCH', { rules: [{ id: 'a', query: 'x' }, { id: 'b', query: '™', match: 'exact', hide: ['KNOWN-1'] }] }), 'settings.rules[1].query', /has no word.*write ""/);
    // Ids the slot data hands out and purchases echo, typed GUIDs by the spec (any other made the echoing purchase a 400).
    await expectBad(await send('PATCH', { retailBoost: { collections: [{ campaignId: 'summer-sale', products: ['KNOWN-1'] }] } }), 'settings.retailBoost.collections[0].campaignId', /GUID/);
    await expectBad(await send('PATCH', { retailMedia: { adSets: [{ adSetId: 'ad-1', version: 1, products: ['KNOWN-1'], costPerClick: 0.2 }] } }), 'settings.retailMedia.adSets[0].adSetId', /GUID/);
    await expectBad(await send('PUT', []), 'settings', /object/);
    await expectBad(await send('PUT', 'null'), 'settings', /object/);
    // Deeply nested: refused by the body reader before the engine sees it.
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const nested = await send('PUT', { fieldWeights: deep });
    expect(nested.status).toBe(400);
    await expectDocumented(nested, path, 'PUT');
    // Huge: more rules than allowed (400), a body over the size limit (413).
    const many = Array.from({ length: 1001 }, (_, i) => ({ id: `r${i}`, query: 'x' }));
    expect((await send('PUT', { rules: many })).status).toBe(400);
    const huge = await send('PUT', { synonyms: [['a'.repeat(2_000_000)]] });
    expect(huge.status).toBe(413);
    await expectDocumented(huge, path, 'PUT');
    expect(await (await fetch(url(), { headers: bearer(ADMIN_TOKEN) })).text()).toBe(before);
  });

  it('takes a weight of 0 on a field that is never searched (it asks for nothing)', async () => {
    const res = await send('PATCH', { fieldWeights: { refId: 0 } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { fieldWeights: Record<string, number> }).fieldWeights.refId).toBe(0);
    expect((await send('PATCH', { fieldWeights: { refId: null } })).status).toBe(200);
  });

  it('never redirects a search without words, whatever a stored redirect says (one taken before the check)', async () => {
    const store = new MemoryStore();
    await store.putSettings('w', { redirects: [{ queries: ['™'], url: 'https://shop.example/tm' }, { queries: ['help'], url: 'https://shop.example/help' }] }, 0);
    const engine = await createEngine({ store, workers: 0, websites: [{ websiteId: 'w', client: 'wc', tokens: ['w-token-0123456789'], hmacSecret: 's' }] });
    try {
      await engine.upsertProducts('w', [{ refId: 'p1', title: 'lamp' }]);
      const redirectOf = async (q: string) => (await engine.search({ website_id: 'w', client: 'wc', q, start: 0 })).payload.redirects.url;
      // Category browsing (q ""), punctuation alone: no redirect; a query with words still redirects.
      expect(await redirectOf('')).toBeUndefined();
      expect(await redirectOf('?')).toBeUndefined();
      expect(await redirectOf('HELP!')).toBe('https://shop.example/help');
    } finally {
      await engine.close();
    }
  });

  it('checks the weights a request gives, not stored ones it keeps (taken before the check, they still apply)', async () => {
    // Stored as an older release took it (written straight to the store, as that release's row would be).
    const store = new MemoryStore();
    await store.putSettings('w', { fieldWeights: { title: 3, refId: 2 } }, 0);
    const engine = await createEngine({ store, workers: 0, websites: [{ websiteId: 'w', client: 'wc', tokens: ['w-token-0123456789'], hmacSecret: 's' }] });
    try {
      expect((await engine.updateSettings('w', { synonyms: [['sofa', 'couch']] }, { merge: true })).fieldWeights).toMatchObject({ refId: 2 });
      await expect(engine.updateSettings('w', { fieldWeights: { refId: 3 } }, { merge: true })).rejects.toThrow(/settings\.fieldWeights\.refId is never searched/);
      expect((await engine.updateSettings('w', { fieldWeights: { refId: null } }, { merge: true })).fieldWeights).not.toHaveProperty('refId');
    } finally {
      await engine.close();
    }
  });

  it('PATCH null restores a default at any depth; GET shows every default at every depth', async () => {
    let res = await send('PATCH', { typoTolerance: { minWordSizeOneTypo: 5 } });
    expect(res.status).toBe(200);
    let settings = (await expectDocumented(res, path, 'PATCH')) as Record<string, unknown>;
    expect(settings.typoTolerance).toEqual({ ...DEFAULT_WEBSITE_SETTINGS.typoTolerance, minWordSizeOneTypo: 5 });
    res = await send('PATCH', { typoTolerance: { minWordSizeOneTypo: null }, cors: { origins: null } });
    expect(res.status).toBe(200);
    settings = (await res.json()) as Record<string, unknown>;
    expect(settings.typoTolerance).toEqual(DEFAULT_WEBSITE_SETTINGS.typoTolerance);
    expect(settings.cors).toEqual(DEFAULT_WEBSITE_SETTINGS.cors);
    expect(await (await fetch(url(), { headers: bearer(ADMIN_TOKEN) })).json()).toEqual(settings);
    // Put back what the other cases expect of site-a.
    expect((await send('PATCH', { cors: { origins: ['https://shop-a.example'] } })).status).toBe(200);
  });

  it('GET shows the unnamed keys of an object form and of retailMedia at their defaults, and can be PUT back', async () => {
    // Before: {"weight":0.3} without the model, {} without the weight, {"field":…} without facetCounts,
    // retailMedia without slotPosition and placements, no hierarchies at all.
    let res = await send('PATCH', { semanticSearch: { weight: 0.3 }, personalization: {}, distinct: { field: 'brand' }, retailMedia: { slotPosition: 3 } }, 'site-b');
    expect(res.status).toBe(200);
    const settings = (await expectDocumented(res, path, 'PATCH')) as Record<string, unknown>;
    expect(settings).toMatchObject({
      semanticSearch: { model: 'aisle-ri', weight: 0.3 },
      personalization: { weight: 0.3 },
      distinct: { field: 'brand', facetCounts: 'products' },
      retailMedia: { adSets: [], slotPosition: 3, placements: {} },
      hierarchies: {},
    });
    expect(await (await fetch(url('site-b'), { headers: bearer(ADMIN_TOKEN) })).json()).toEqual(settings);
    res = await send('PUT', settings, 'site-b');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(settings);
    res = await send('PATCH', { semanticSearch: null, personalization: null, distinct: null, retailMedia: null }, 'site-b');
    expect(await res.json()).toMatchObject({ semanticSearch: false, personalization: false, distinct: false, retailMedia: DEFAULT_WEBSITE_SETTINGS.retailMedia });
  });

  it('refuses URLs that are not web URLs or origins, and numbers past their bounds', async () => {
    const before = await (await fetch(url(), { headers: bearer(ADMIN_TOKEN) })).text();
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '//evil.example/x', 'not a url', 'ftp://shop.example/x']) {
      await expectBad(await send('PATCH', { redirects: [{ queries: ['x'], url: bad }] }), 'settings.redirects[0].url', /http\(s\) URL/);
    }
    for (const bad of ['not a url', 'https://shop.example/', 'https://shop.example/path', 'javascript:alert(1)']) {
      await expectBad(await send('PATCH', { cors: { origins: [bad] } }), 'settings.cors.origins[0]', /origin/);
    }
    await expectBad(await send('PATCH', { fieldWeights: { title: 1e308 } }), 'settings.fieldWeights.title', /at most/);
    await expectBad(await send('PATCH', { attributionWindowDays: 1e9 }), 'settings.attributionWindowDays', /at most/);
    expect(await (await fetch(url(), { headers: bearer(ADMIN_TOKEN) })).text()).toBe(before);
    // Web URLs, site paths and origins with a port are fine.
    expect((await send('PATCH', { redirects: [{ queries: ['x'], url: 'https://shop-a.example/sale?x=1' }, { queries: ['y'], url: '/sale' }] })).status).toBe(200);
    expect((await send('PATCH', { redirects: null, cors: { origins: ['https://shop-a.example', 'http://localhost:8080'] } })).status).toBe(200);
    expect((await send('PATCH', { cors: { origins: ['https://shop-a.example'] } })).status).toBe(200);
  });

  it('takes as many synonyms over HTTP as the documented limit, and no more', async () => {
    const limit = 10_000; // docs/operations.md: "at most 10,000 entries"
    const many = (n: number) => Array.from({ length: n }, (_, i) => [`w${i}a`, `w${i}b`]);
    let res = await send('PATCH', { synonyms: many(limit) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { synonyms: unknown[] }).synonyms).toHaveLength(limit);
    expect((await send('PATCH', { synonyms: null })).status).toBe(200);
    await expectBad(await send('PATCH', { synonyms: many(limit + 1) }), 'synonyms', /at most 10000/);
  });

  it('needs the admin token, knows only configured websites, checks the media type', async () => {
    expect((await fetch(url())).status).toBe(401);
    expect((await fetch(url(), { headers: bearer(TOKEN_A) })).status).toBe(401);
    const unknown = await fetch(url('nope'), { headers: bearer(ADMIN_TOKEN) });
    expect(unknown.status).toBe(404);
    await expectDocumented(unknown, path, 'GET');
    expect((await send('PUT', {}, 'site-a', 'text/plain')).status).toBe(415);
    expect((await send('POST', {})).status).toBe(405);
  });

  it('keeps each website\'s settings its own', async () => {
    expect((await send('PATCH', { synonyms: [['b1', 'b2']] }, 'site-b')).status).toBe(200);
    const a = (await (await fetch(url('site-a'), { headers: bearer(ADMIN_TOKEN) })).json()) as { synonyms: unknown[] };
    const b = (await (await fetch(url('site-b'), { headers: bearer(ADMIN_TOKEN) })).json()) as { synonyms: unknown[]; semanticSearch: boolean };
    expect(a.synonyms).toEqual([]);
    expect(b).toMatchObject({ synonyms: [['b1', 'b2']], semanticSearch: false });
  });

  it('applies settings the adapter reads (CORS origins) and the engine reads (personalization) at once', async () => {
    const origin = 'https://shop-b.example';
    const recs = () => fetch(`${svc.url}/1.0/ClientRecom/site-b/PopularItems`, { headers: { origin } });
    expect((await recs()).headers.get('access-control-allow-origin')).toBeNull();
    expect((await send('PATCH', { cors: { origins: [origin] } }, 'site-b')).status).toBe(200);
    expect((await recs()).headers.get('access-control-allow-origin')).toBe(origin);
    expect((await send('PATCH', { personalization: true }, 'site-b')).status).toBe(200);
    const res = await post(`${svc.url}/v1.4/search`, { website_id: 'site-b', client: 'client-b', q: '', start: 0 }, bearer(TOKEN_B));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('customer_id');
    expect((await send('PATCH', { personalization: null, cors: null }, 'site-b')).status).toBe(200);
    expect((await recs()).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers concurrent PATCHes of different keys without losing one', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `f${i}`);
    const results = await Promise.all(keys.map((k, i) => send('PATCH', { fieldWeights: { [k]: i + 1 } }, 'site-b')));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const b = (await (await fetch(url('site-b'), { headers: bearer(ADMIN_TOKEN) })).json()) as { fieldWeights: Record<string, number> };
    for (const [i, k] of keys.entries()) expect(b.fieldWeights[k]).toBe(i + 1);
  });
});

describe('settings versions (ETag, If-Match)', () => {
  const versioned = (method: string, body: unknown, ifMatch?: string) =>
    post(url('site-b'), body, { ...bearer(ADMIN_TOKEN), ...(ifMatch !== undefined && { 'if-match': ifMatch }) }, method);
  async function etag(): Promise<string> {
    const res = await fetch(url('site-b'), { headers: bearer(ADMIN_TOKEN) });
    expect(res.status).toBe(200);
    return res.headers.get('etag')!;
  }

  it('GET and every write answer a strong ETag; a write with a stale If-Match answers 412 and changes nothing', async () => {
    const read = await etag();
    expect(read).toMatch(/^"[^"]+"$/);
    expect((await fetch(url('site-b'), { method: 'HEAD', headers: bearer(ADMIN_TOKEN) })).headers.get('etag')).toBe(read);
    const saved = await versioned('PATCH', { stopWords: ['the'] }, read);
    expect(saved.status).toBe(200);
    const next = saved.headers.get('etag')!;
    expect(next).not.toBe(read);
    expect(await etag()).toBe(next);
    // A second editor who read the settings before the save: refused in the problem shape, nothing written.
    const stale = await versioned('PATCH', { stopWords: ['a'] }, read);
    expect(stale.status).toBe(412);
    const problem = (await expectDocumented(stale, path, 'PATCH')) as Problem;
    expect(problem.status).toBe(412);
    expect(Object.values(problem.errors).flat().join(' ')).toMatch(/changed since they were read/);
    expect((await versioned('PUT', { stopWords: ['a'] }, read)).status).toBe(412);
    // Weak tags never match (If-Match compares strongly), nor does anything that is not an entity tag.
    for (const header of [`W/${next}`, next.slice(1, -1), '"nope"', ',']) expect((await versioned('PATCH', { stopWords: ['a'] }, header)).status).toBe(412);
    expect(((await (await fetch(url('site-b'), { headers: bearer(ADMIN_TOKEN) })).json()) as { stopWords: string[] }).stopWords).toEqual(['the']);
    // One of a list matching is enough; `*` and no header write unconditionally (as the spec's clients do).
    const listed = await versioned('PATCH', { stopWords: ['b'] }, `"nope", ${next}`);
    expect(listed.status).toBe(200);
    expect((await versioned('PATCH', { stopWords: ['c'] }, '*')).status).toBe(200);
    const plain = await versioned('PATCH', { stopWords: ['d'] });
    expect(plain.status).toBe(200);
    expect(await etag()).toBe(plain.headers.get('etag'));
  });

  it('of two concurrent PATCHes with the same If-Match, exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const read = await etag();
      const answers = await Promise.all([0, 1].map((i) => versioned('PATCH', { stopWords: [`r${round}-${i}`] }, read)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 412]);
      const winner = answers.find((r) => r.status === 200)!;
      const body = (await winner.json()) as { stopWords: string[] };
      const now = await fetch(url('site-b'), { headers: bearer(ADMIN_TOKEN) });
      expect(now.headers.get('etag')).toBe(winner.headers.get('etag'));
      expect(((await now.json()) as { stopWords: string[] }).stopWords).toEqual(body.stopWords);
    }
  });
});
