/**
 * Disjunctive facets and highlighting over a real socket, inline and on the worker pool. Disjunctive
 * counts are checked against a reference made of separate plain searches (the field's own condition
 * removed); highlighting against hand-written expectations, HTML escaping included.
 */
import { generateCatalog } from '@aisle/engine/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badInput } from '../../engine/src/__tests__/bad-input.js';
import { bearer, expectDocumented, post } from './helpers.js';
import { MERCH_TOKEN, merchSearch, putMerchSettings, refIds, startMerchService, type MerchAnswer, type MerchService } from './merch-helpers.js';

type Scope = Record<string, unknown>;

describe.each([['inline', false], ['pool', true]] as const)('disjunctive facets and highlight (%s)', (_name, pooled) => {
  let svc: MerchService;
  beforeAll(async () => {
    svc = await startMerchService(pooled);
    await svc.engine.upsertProducts('m', generateCatalog({ count: 600, seed: 11 }));
  });
  afterAll(() => svc.close());

  const search = (body: Record<string, unknown>) => merchSearch(svc, body);
  const without = (scope: Scope, field: string): Scope => Object.fromEntries(Object.entries(scope).filter(([k]) => k !== field));

  /** The reference: each disjunctive field's buckets from a plain search without its own condition. */
  async function expectMatchesReference(q: string, scope: Scope, disjunctive: string[], aggregations: string[]): Promise<MerchAnswer> {
    const answer = await search({ q, scope, aggregations, disjunctive_facets: disjunctive, range_fields: ['price'], size: 30 });
    const plain = await search({ q, scope, aggregations, range_fields: ['price'], size: 30 });
    // The results, totals and ranges are those of the plain search.
    expect(refIds(answer)).toEqual(refIds(plain));
    expect(answer.payload.total_results).toBe(plain.payload.total_results);
    expect(answer.payload.ranges).toEqual(plain.payload.ranges);
    for (const field of new Set([...aggregations, ...disjunctive])) {
      const reference = disjunctive.includes(field)
        ? (await search({ q, scope: without(scope, field), aggregations: [field], size: 0 })).payload.aggregations![field]
        : plain.payload.aggregations![field];
      expect(answer.payload.aggregations![field], `${field} for q=${q} scope=${JSON.stringify(scope)}`).toEqual(reference);
    }
    return answer;
  }

  it('counts sibling values as if the field\'s own condition were absent, other conditions applying', async () => {
    await putMerchSettings(svc, { rules: [] });
    const cases: [string, Scope, string[], string[]][] = [
      ['', { brand: ['Mirgen'] }, ['brand'], ['brand', 'colour']],
      ['', { brand: ['Mirgen', 'Acme'], colour: ['red', 'blue'] }, ['brand', 'colour'], ['brand', 'colour', 'search_category']],
      ['tent', { colour: ['red'], price: { max: 60 } }, ['colour'], ['colour', 'brand']],
      ['running', { colour: ['red'], brand: { not: ['Bolt'] } }, ['colour', 'brand'], ['colour']],
      ['', { colour: ['red'], search_category: ['shoe', 'bag'] }, ['colour', 'search_category'], []],
      ['classic', { brand: ['no such brand'], colour: ['green'] }, ['brand'], ['brand', 'colour']],
      ['', {}, ['brand'], ['brand']],
      ['zzzz-nothing', { brand: ['Acme'] }, ['brand'], ['brand']],
    ];
    for (const [q, scope, disjunctive, aggregations] of cases) await expectMatchesReference(q, scope, disjunctive, aggregations);
  });

  it('lists a disjunctive field in aggregations even when aggregations does not name it', async () => {
    const a = await search({ q: '', scope: { brand: ['Acme'] }, disjunctive_facets: ['brand'] });
    expect(Object.keys(a.payload.aggregations!)).toEqual(['brand']);
    expect(a.payload.aggregations!.brand!.length).toBeGreaterThan(1);
  });

  it('agrees with merchandising: hidden products are counted nowhere, pinned ones where they would be', async () => {
    await putMerchSettings(svc, { rules: [{ id: 'r', query: 'running', hide: ['p3'], pin: [{ refId: 'odd', position: 1 }] }] });
    const a = await search({ q: 'running', scope: { brand: ['Bolt'] }, aggregations: ['brand'], disjunctive_facets: ['brand'] });
    const brands = Object.fromEntries(a.payload.aggregations!.brand!.map((b) => [b.key, b.doc_count]));
    // running: p1..p12; Acme = i%3==0 → p3 (hidden), p6, p9, p12; the pinned "odd" (Acme, no text match) counts as Acme.
    expect(brands).toEqual({ Acme: 4, Bolt: 4, Cora: 4 });
    expect(a.payload.total_results).toBe(4);
    expect(refIds(a)).not.toContain('odd');
    const acme = await search({ q: 'running', scope: { brand: ['Acme'] }, aggregations: ['brand'], disjunctive_facets: ['brand'], size: 10 });
    expect(refIds(acme)[0]).toBe('odd');
    expect(acme.payload.total_results).toBe(4);
    expect(acme.payload.aggregations!.brand).toEqual(a.payload.aggregations!.brand);
    await putMerchSettings(svc, { rules: [] });
  });

  it('highlights the matched words of each matched text field, HTML-escaped', async () => {
    await svc.engine.upsertProducts('m', [
      { refId: 'h1', title: 'Café <b>"Espresso"</b> & Crème cup', brand: 'Tom\'s', search_category: 'Cups', notes: 'espresso' },
      { refId: 'h2', title: ['Plain mug', 'Espresso mug'], brand: 'Espresso Co', search_category: 'Mugs' },
    ]);
    const a = await search({ q: 'espresso cafe', highlight: true });
    expect(refIds(a)).toEqual(['h1']);
    // Every full-text field where a query word matched (brand "Tom's" did not).
    expect(a.payload.result[0]!._highlight).toEqual({ title: '<em>Café</em> &lt;b&gt;&quot;<em>Espresso</em>&quot;&lt;/b&gt; &amp; Crème cup', notes: '<em>espresso</em>' });
    // The product itself is unchanged: only the answer carries _highlight.
    expect(a.payload.result[0]!.title).toBe('Café <b>"Espresso"</b> & Crème cup');
    const b = await search({ q: 'espres', highlight: true, scope: { refId: ['h2'] } });
    expect(b.payload.result[0]!._highlight).toEqual({ title: '<em>Espresso</em> mug', brand: '<em>Espresso</em> Co' });
    const off = await search({ q: 'espresso' });
    expect(off.payload.result.every((p) => p._highlight === undefined)).toBe(true);
    const browse = await search({ q: '', highlight: true, size: 2 });
    expect(browse.payload.result.every((p) => JSON.stringify(p._highlight) === '{}')).toBe(true);
  });

  it('validates both fields in the adapter and the engine alike, and documents the answer', async () => {
    const url = `${svc.url}/v1.4/search`;
    const base = { website_id: 'm', client: 'mc', q: 'x', start: 0 };
    for (const [body, key] of [[{ disjunctive_facets: 'brand' }, 'disjunctive_facets'], [{ disjunctive_facets: [1] }, 'disjunctive_facets[0]'], [{ highlight: 'yes' }, 'highlight']] as const) {
      const res = await post(url, { ...base, ...body }, bearer(MERCH_TOKEN));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(key);
      await expect(svc.engine.search(badInput({ ...base, ...body }))).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST', message: expect.stringContaining(key) as string });
    }
    const ok = await post(url, { ...base, q: 'espresso', highlight: true, disjunctive_facets: ['brand'] }, bearer(MERCH_TOKEN));
    expect(ok.status).toBe(200);
    await expectDocumented(ok, '/v1.4/search', 'POST');
  });
});
