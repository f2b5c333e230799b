/**
 * The search log over a real socket: `GET …/reports/searches` (top and no-result queries, window,
 * limit, bad parameters) and `payload.suggestions.queries` (the website's successful searches first,
 * then the catalog vocabulary).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, expectDocumented } from './helpers.js';
import { merchSearch, startMerchService, type MerchService } from './merch-helpers.js';

let svc: MerchService;
beforeAll(async () => { svc = await startMerchService(false); });
afterAll(() => svc.close());

const path = '/admin/v1/websites/{websiteId}/reports/searches';
type Report = { websiteId: string; top: { query: string; count: number; avgResults: number }[]; noResults: { query: string; count: number }[] };

async function report(query = ''): Promise<Report> {
  const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/searches${query}`, { headers: bearer(ADMIN_TOKEN) });
  expect(res.status).toBe(200);
  return (await expectDocumented(res, path, 'GET')) as Report;
}

describe('search log', () => {
  it('reports top queries (normalised, first pages only) and queries without results', async () => {
    for (let i = 0; i < 3; i++) await merchSearch(svc, { q: 'Running  SHOE' });
    await merchSearch(svc, { q: 'running shoe', start: 10 }); // a later page: not another search
    await merchSearch(svc, { q: 'bag' });
    await merchSearch(svc, { q: 'unicorn' });
    await merchSearch(svc, { q: 'unicorn' });
    await merchSearch(svc, { q: '' }); // browsing: not a query
    const r = await report();
    expect(r.websiteId).toBe('m');
    expect(r.top).toEqual([
      { query: 'running shoe', count: 3, avgResults: 9 },
      { query: 'unicorn', count: 2, avgResults: 0 },
      { query: 'bag', count: 1, avgResults: 3 },
    ]);
    expect(r.noResults).toEqual([{ query: 'unicorn', count: 2 }]);
    expect((await report('?limit=1')).top).toEqual([{ query: 'running shoe', count: 3, avgResults: 9 }]);
    const hourAgo = new Date(Date.now() - 3_600_000 * 2).toISOString();
    expect((await report(`?from=${encodeURIComponent(hourAgo)}`)).top).toHaveLength(3);
    expect(await report(`?to=${encodeURIComponent(hourAgo)}`)).toMatchObject({ top: [], noResults: [] });
    expect(await report('?from=2999-01-01T00:00:00Z')).toMatchObject({ from: '2999-01-01T00:00:00Z', top: [], noResults: [] });
  });

  it('refuses bad parameters with 400 naming them; 401 and 404 as the other admin calls', async () => {
    for (const [query, key] of [['?from=yesterday', 'from'], ['?to=soon', 'to'], ['?limit=0', 'limit'], ['?limit=abc', 'limit'], ['?limit=1001', 'limit']]) {
      const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/searches${query}`, { headers: bearer(ADMIN_TOKEN) });
      expect(res.status).toBe(400);
      expect(((await expectDocumented(res, path, 'GET')) as { errors: object }).errors).toHaveProperty(key!);
    }
    expect((await fetch(`${svc.url}/admin/v1/websites/m/reports/searches`)).status).toBe(401);
    const unknown = await fetch(`${svc.url}/admin/v1/websites/nope/reports/searches`, { headers: bearer(ADMIN_TOKEN) });
    expect(unknown.status).toBe(404);
  });

  it('suggests completions: successful searches most frequent first, then catalog words; never failed ones', async () => {
    for (let i = 0; i < 2; i++) await merchSearch(svc, { q: 'running bag' });
    await merchSearch(svc, { q: 'runx' }); // found nothing: never suggested
    const a = await merchSearch(svc, { q: 'run' });
    expect(a.payload.suggestions.queries).toEqual(['running shoe', 'running bag', 'running']);
    // The last word is completed from the vocabulary, the words found in most products first.
    const b = await merchSearch(svc, { q: 'blue mo' });
    expect(b.payload.suggestions.queries).toEqual(['blue model']);
    const c = await merchSearch(svc, { q: 'r' });
    // Logged first ("run" itself was a successful search above), then catalog words.
    expect(c.payload.suggestions.queries).toEqual(['running shoe', 'running bag', 'run', 'running', 'red']);
    expect(c.payload.suggestions.queries!.length).toBeLessThanOrEqual(5);
    expect((await merchSearch(svc, { q: '' })).payload.suggestions.queries).toBeUndefined();
    expect((await merchSearch(svc, { q: 'zzzz' })).payload.suggestions.queries).toBeUndefined();
  });
});
