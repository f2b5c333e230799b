/**
 * The insights client against a real aisle over a real socket: what InstantSearch's insights middleware
 * sends after a search (clicks with queryID and positions, conversions without positions) becomes
 * aisle click events on the result page the search client answered.
 */
import { createEngine, type ClickOutcome, type Engine } from '@aisle/engine';
import { generateCatalog } from '@aisle/engine/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEngine } from '../../http-adapter/test/helpers.js';
import { aisleInsightsClient, aisleSearchClient, clickEventsOf } from '../src/index.js';

const SESSION = '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21';
let engine: Engine;
let served: Awaited<ReturnType<typeof serveEngine>>;
let url: string;
let key: string;
const outcomes: ClickOutcome[] = [];

beforeAll(async () => {
  engine = await createEngine({ workers: 0, websites: [{ websiteId: 'shop', client: 'c', tokens: ['server-token-0123456789'], hmacSecret: 's' }], onClickOutcome: (o) => outcomes.push(o) });
  await engine.upsertProducts('shop', generateCatalog({ count: 100, seed: 3 }));
  key = (await engine.createSearchKey('shop', { actions: ['search', 'insights'] })).key;
  served = await serveEngine(engine);
  url = served.url;
});
afterAll(async () => {
  await served.close();
  await engine.close();
});

describe('aisleInsightsClient over HTTP', () => {
  it('sends clicks with the page\'s queryID and positions, and conversions at the position the page showed', async () => {
    const search = aisleSearchClient({ url, key, websiteId: 'shop', client: 'c', sessionId: SESSION });
    const { results } = await search.search([{ indexName: 'products', params: { query: '', page: 1, hitsPerPage: 5 } }]);
    const result = results[0]!;
    expect(search.lastRequests[0]!.session_id).toBe(SESSION);
    expect(result.queryID).toMatch(/\./);
    expect(result.hits.map((h) => [h.__queryID, h.__position])).toEqual([6, 7, 8, 9, 10].map((p) => [result.queryID, p]));
    const errors: Error[] = [];
    const insights = aisleInsightsClient({ url, key, sessionId: SESSION, positionOf: search.positionOf, onError: (e) => errors.push(e) });
    const hit = result.hits[2]!;
    await insights('clickedObjectIDsAfterSearch', { eventName: 'Hit Clicked', index: 'products', queryID: hit.__queryID, objectIDs: [hit.objectID], positions: [hit.__position] });
    await insights('convertedObjectIDsAfterSearch', { eventName: 'Added', index: 'products', queryID: hit.__queryID, objectIDs: [hit.objectID] });
    await insights('clickedObjectIDs', { eventName: 'Clicked', index: 'products', objectIDs: [hit.objectID] });
    expect(insights('viewedObjectIDs', { eventName: 'Viewed', index: 'products', objectIDs: [hit.objectID] })).toBeUndefined();
    expect(errors).toEqual([]);
    expect(outcomes.map((o) => [o.type, o.kind, o.position])).toEqual([['click', 'search', 8], ['addToCart', 'search', 8]]);
  });

  it('reports what aisle refused (a key without insights, a position the page did not hold)', async () => {
    const searchOnly = (await engine.createSearchKey('shop', { actions: ['search'] })).key;
    const search = aisleSearchClient({ url, key: searchOnly, websiteId: 'shop', client: 'c' });
    const { results } = await search.search([{ indexName: 'products', params: { query: '', hitsPerPage: 3 } }]);
    const errors: Error[] = [];
    await aisleInsightsClient({ url, key: searchOnly, onError: (e) => errors.push(e) })('clickedObjectIDs', { objectIDs: ['x'] });
    const hit = results[0]!.hits[0]!;
    await aisleInsightsClient({ url, key, onError: (e) => errors.push(e) })('clickedObjectIDsAfterSearch', { queryID: hit.__queryID, objectIDs: [hit.objectID], positions: [2] });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^aisle clicks answered 401/), expect.stringMatching(/^aisle clicks answered 400.*Position/)]);
  });

  it('keeps the user token as the middleware sets and reads it', () => {
    const insights = aisleInsightsClient({ url, key });
    const seen: (string | undefined)[] = [];
    insights('onUserTokenChange', (t: string | undefined) => seen.push(t), { immediate: true });
    insights('setUserToken', 'anonymous-9a1f6b5e-2c3d-4e5f-8a9b-0c1d2e3f4a5b');
    let read: string | undefined;
    insights('getUserToken', null, (_e: null, t: string | undefined) => { read = t; });
    expect(seen).toEqual([undefined, 'anonymous-9a1f6b5e-2c3d-4e5f-8a9b-0c1d2e3f4a5b']);
    expect(read).toBe('anonymous-9a1f6b5e-2c3d-4e5f-8a9b-0c1d2e3f4a5b');
    expect(Number(insights.version.split('.')[0])).toBeGreaterThanOrEqual(2);
  });
});

describe('clickEventsOf', () => {
  const at = '2026-11-29T06:00:00.000Z';
  it('maps each insights method to click or addToCart, with the list only when its position is known', () => {
    expect(clickEventsOf('clickedObjectIDsAfterSearch', { queryID: 'q', objectIDs: ['a', 'b'], positions: [3, 4] }, undefined, at)).toEqual([
      { eventTime: at, refId: 'a', type: 'click', queryId: 'q', position: 3 }, { eventTime: at, refId: 'b', type: 'click', queryId: 'q', position: 4 },
    ]);
    expect(clickEventsOf('addedToCartObjectIDsAfterSearch', { queryID: 'q', objectIDs: ['a', 'z'] }, (q, o) => (o === 'a' ? 1 : undefined), at)).toEqual([
      { eventTime: at, refId: 'a', type: 'addToCart', queryId: 'q', position: 1 }, { eventTime: at, refId: 'z', type: 'addToCart' },
    ]);
    expect(clickEventsOf('convertedObjectIDs', { queryID: 'q', objectIDs: ['a'] }, () => 1, at)).toEqual([{ eventTime: at, refId: 'a', type: 'addToCart' }]);
    expect(clickEventsOf('purchasedObjectIDsAfterSearch', { queryID: 'q', objectIDs: ['a'] }, () => 1, at)).toEqual([]);
  });
});
