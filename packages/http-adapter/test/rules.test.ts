/**
 * Merchandising rules over a real socket, inline and on the worker pool (both engines must answer
 * alike): pin, hide, boost, bury, per query and time window, consistent in totals and facets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchSearch, putMerchSettings, refIds, startMerchService, type MerchAnswer, type MerchService } from './merch-helpers.js';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe.each([['inline', false], ['pool', true]] as const)('merchandising rules (%s)', (_name, pooled) => {
  let svc: MerchService;
  beforeAll(async () => { svc = await startMerchService(pooled); });
  afterAll(() => svc.close());

  const rule = (extra: Record<string, unknown>) => ({ id: 'r', query: 'running', match: 'exact', ...extra });
  const search = (body: Record<string, unknown>) => merchSearch(svc, body);
  const brandCount = (a: MerchAnswer, key: string) => a.payload.aggregations!.brand!.find((b) => b.key === key)?.doc_count ?? 0;

  it('pins a product at a 1-based position, only for its query', async () => {
    await putMerchSettings(svc, { rules: [] });
    const plain = await search({ q: 'running', size: 20 });
    expect(plain.payload.total_results).toBe(12);
    await putMerchSettings(svc, { rules: [rule({ pin: [{ refId: 'p9', position: 1 }, { refId: 'p7', position: 3 }] })] });
    const pinned = await search({ q: 'running', size: 20, aggregations: ['brand'] });
    const expected = refIds(plain).filter((r) => r !== 'p9' && r !== 'p7');
    expected.splice(0, 0, 'p9');
    expected.splice(2, 0, 'p7');
    expect(refIds(pinned)).toEqual(expected);
    expect(pinned.payload.total_results).toBe(12);
    // Paging cuts the placed list: positions are of the whole ranked list.
    expect(refIds(await search({ q: 'running', start: 2, size: 2 }))).toEqual(expected.slice(2, 4));
    // Another query is untouched (exact match).
    expect(refIds(await search({ q: 'running shoe', size: 20 }))[0]).not.toBe('p9');
  });

  it('places a pinned product that does not match the text, counted in totals and facets, unless the filters exclude it', async () => {
    await putMerchSettings(svc, { rules: [rule({ pin: [{ refId: 'odd', position: 2 }] })] });
    const a = await search({ q: 'running', aggregations: ['brand', 'colour'], range_fields: ['price'] });
    expect(refIds(a)[1]).toBe('odd');
    expect(a.payload.total_results).toBe(13);
    expect(a.payload.aggregations!.colour).toContainEqual({ key: 'green', doc_count: 1 });
    expect(a.payload.ranges!.price).toEqual({ min: 10, max: 120 });
    // Filtered out by the scope: neither placed nor counted.
    const filtered = await search({ q: 'running', scope: { colour: ['red'] }, aggregations: ['colour'] });
    expect(refIds(filtered)).not.toContain('odd');
    expect(filtered.payload.total_results).toBe(6);
    expect(filtered.payload.aggregations!.colour).toEqual([{ key: 'red', doc_count: 6 }]);
    // A scope value no product has matches nothing, pins included.
    expect((await search({ q: 'running', scope: { colour: ['purple'] } })).payload.total_results).toBe(0);
  });

  it('puts a pin beyond the result count last', async () => {
    await putMerchSettings(svc, { rules: [rule({ query: 'bag', pin: [{ refId: 'p1', position: 50 }] })] });
    const a = await search({ q: 'bag' });
    expect(refIds(a)).toHaveLength(4);
    expect(refIds(a).at(-1)).toBe('p1');
    expect(a.payload.total_results).toBe(4);
  });

  it('hides products from results, totals and facets; a product both pinned and hidden is hidden', async () => {
    await putMerchSettings(svc, { rules: [] });
    const plain = await search({ q: 'running', aggregations: ['brand'], size: 50 });
    await putMerchSettings(svc, { rules: [rule({ hide: ['p3', 'p6', 'unknown-ref'], pin: [{ refId: 'p3', position: 1 }] })] });
    const a = await search({ q: 'running', aggregations: ['brand'], size: 50 });
    expect(refIds(a)).toEqual(refIds(plain).filter((r) => r !== 'p3' && r !== 'p6'));
    expect(a.payload.total_results).toBe(10);
    // p3 and p6 are both brand Acme (i % 3 === 0).
    expect(brandCount(a, 'Acme')).toBe(brandCount(plain, 'Acme') - 2);
    expect(brandCount(a, 'Bolt')).toBe(brandCount(plain, 'Bolt'));
  });

  it('hides when browsing too (q = "", contains "" = every query)', async () => {
    await putMerchSettings(svc, { rules: [{ id: 'all', query: '', match: 'contains', hide: ['odd'] }] });
    const a = await search({ q: '', aggregations: ['search_category'], size: 50 });
    expect(refIds(a)).not.toContain('odd');
    expect(a.payload.total_results).toBe(12);
    expect(a.payload.aggregations!.search_category!.map((b) => b.key)).not.toContain('garden');
    expect((await search({ q: 'hose' })).payload.total_results).toBe(0);
  });

  it('boosts and buries by scope, also when browsing and behind sort keys', async () => {
    await putMerchSettings(svc, { rules: [{ id: 'b', query: 'shoe', match: 'contains', boost: [{ scope: { brand: ['Cora'] }, weight: 3 }, { scope: { price: { max: 30 } }, weight: 0.1 }] }] });
    const a = await search({ q: 'running shoe', size: 50 });
    const cora = ['p2', 'p5', 'p8'];
    // Boosted first (p2, price 20, is also buried: 3 × 0.1 < 1), buried last.
    expect(refIds(a).slice(0, 2).sort()).toEqual(['p5', 'p8']);
    expect(refIds(a).slice(-3).sort()).toEqual(['p1', 'p2', 'p3']);
    expect(a.payload.total_results).toBe(9);
    expect(refIds(a)).toEqual(expect.arrayContaining(cora));
    // With a sort key the boost only orders ties.
    const sorted = await search({ q: 'running shoe', size: 50, sort_fields: [{ price: { order: 'desc', type: 'number' } }] });
    expect(refIds(sorted)).toEqual(['p9', 'p8', 'p7', 'p6', 'p5', 'p4', 'p3', 'p2', 'p1']);
    await putMerchSettings(svc, { rules: [{ id: 'b', query: '', match: 'contains', boost: [{ scope: { search_category: ['bag'] }, weight: 2 }] }] });
    // Browsing: the boosted bags first (insertion order among equals), then the rest in insertion order.
    const browse = await search({ q: '', size: 5 });
    expect(refIds(browse)).toEqual(['p10', 'p11', 'p12', 'p1', 'p2']);
    expect(browse.payload.total_results).toBe(13);
  });

  it('ignores expired and future rules, applies current ones', async () => {
    const now = Date.now();
    await putMerchSettings(svc, { rules: [
      rule({ id: 'past', until: iso(now - HOUR), hide: ['p1'] }),
      rule({ id: 'future', from: iso(now + HOUR), hide: ['p2'] }),
      rule({ id: 'now', from: iso(now - HOUR), until: iso(now + HOUR), hide: ['p4'] }),
    ] });
    const ids = refIds(await search({ q: 'running', size: 50 }));
    expect(ids).toContain('p1');
    expect(ids).toContain('p2');
    expect(ids).not.toContain('p4');
  });

  it('matches queries exactly or by consecutive whole words', async () => {
    await putMerchSettings(svc, { rules: [{ id: 'c', query: 'Running  SHOE', match: 'contains', pin: [{ refId: 'odd', position: 1 }] }] });
    expect(refIds(await search({ q: 'blue running shoe' }))[0]).toBe('odd');
    expect(refIds(await search({ q: 'running shoes' }))[0]).not.toBe('odd');
    expect(refIds(await search({ q: 'shoe running' }))[0]).not.toBe('odd');
    await putMerchSettings(svc, { rules: [{ id: 'e', query: 'running shoe', pin: [{ refId: 'odd', position: 1 }] }] });
    expect(refIds(await search({ q: 'RUNNING shoe' }))[0]).toBe('odd');
    expect(refIds(await search({ q: 'blue running shoe' }))[0]).not.toBe('odd');
  });
});
