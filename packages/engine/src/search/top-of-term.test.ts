/**
 * The block-max top-k of a one-term search (top-of-term.ts) against the plain path it replaces: every
 * posting matched and scored (`matchText`), the best `limit` taken by score then position
 * (`topByScore`). Same total, same docs in the same order, same scores — on random catalogs large
 * enough for many blocks, with many equal scores (short titles of a few lengths), appended products
 * (the posting tail), deleted ones (live mean lengths), blocks derived before those changes, field
 * weights changed after the blocks were derived, and the ranges the pool's workers search. Each plan
 * runs three times: the first search derives the blocks while scoring, the others rank with them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { compileSearchPlan, type SearchPlan } from './search-plan.js';
import { isOneTermRanking, rankOneTerm } from './top-of-term.js';
import { runPartial } from './run-partial.js';
import { expectPlainAnswers, fastRanking, plainRanking, type Ranking } from './__tests__/plain-ranking.js';

const WORDS = ['red', 'shirt', 'blue', 'cotton', 'xl', 'shirts'];
// Few words, so that each is in most docs (many blocks); short fields of a few lengths (many ties).
const text = (max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: max }).map((w) => w.join(' '));
const rowArb = fc.record({ title: text(4), description: text(9), brand: fc.constantFrom('red', 'acme', 'blue shirt', '') });
const weightArb = fc.array(fc.constantFrom(0.5, 1, 2, 3, 1.7), { minLength: 3, maxLength: 3 });

/** What the block-max path returns (undefined: it leaves the search to the plain path). */
const blockRanking = (plan: SearchPlan, catalog: Catalog, lo: number, hi: number): Ranking | undefined => fastRanking(rankOneTerm, plan, catalog, lo, hi);

/**
 * Searches [lo, hi) three times (the first derives the blocks, the next rank with them; a range of
 * few entries is left to the plain path): each answer given must be the plain path's. How many were given.
 */
const expectBlockAnswers = (plan: SearchPlan, catalog: Catalog, lo: number, hi: number): number => expectPlainAnswers(rankOneTerm, plan, catalog, lo, hi, 3);

describe('block-max top-k of a one-term search', () => {
  it('returns what scoring every posting returns, with appends, deletions and field-weight changes', async () => {
    let ranked = 0;
    let given = 0;
    let severalTerms = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 150, maxLength: 700 }), fc.array(rowArb, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 80 }),
      fc.constantFrom(...WORDS, 'shi', 'shirtz'), fc.integer({ min: 0, max: 40 }), weightArb, weightArb,
      async (built, appended, deletes, q, size, weights, laterWeights) => {
        const catalog = new Catalog();
        await catalog.upsert(built.map((r, i): Product => ({ refId: `b${i}`, ...r })));
        // Blocks derived on the built version, then used by the versions appended and deleted from it
        // (they share its main postings).
        const first = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size }).plan;
        if (isOneTermRanking(catalog.state.index, first)) expectBlockAnswers(first, catalog, 0, catalog.state.index.docCount);
        if (appended.length > 0) await catalog.upsert(appended.map((r, i): Product => ({ refId: `a${i}`, ...r })));
        const all = built.length + appended.length;
        await catalog.delete([...new Set(deletes.map((d) => (d % all < built.length ? `b${d % all}` : `a${(d % all) - built.length}`)))]);
        const { plan: compiled } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size });
        if (compiled.matchNothing) return;
        const fieldCount = catalog.state.index.fullText.fieldIds.length;
        const n = catalog.state.index.docCount;
        for (const w of [weights, laterWeights]) {
          const plan: SearchPlan = { ...compiled, fieldWeights: Array.from({ length: fieldCount }, (_, f) => w[f % w.length]!) };
          if (!isOneTermRanking(catalog.state.index, plan)) continue;
          ranked++;
          for (const [lo, hi] of [[0, n], [32, n], [0, Math.min(n, 320)], [64, Math.min(n, 480)]] as const) {
            if (lo >= hi) continue;
            const answers = expectBlockAnswers(plan, catalog, lo, hi);
            given += answers;
            if (plan.words[0]!.termIds.length > 1) severalTerms += answers;
          }
        }
      },
    ), { numRuns: 60 });
    expect(ranked).toBeGreaterThan(60);
    expect(given).toBeGreaterThan(100);
    // Words of several terms ("shirt" and its stem variant "shirts") ranked by their top term too.
    expect(severalTerms).toBeGreaterThan(20);
  });

  it('is what runPartial takes for a plain one-word query, not for one with facets, weight-0 fields or several terms', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 300 }, (_, i): Product => ({ refId: `p${i}`, title: i % 3 === 0 ? 'blue shirt xl' : 'red shirt', brand: 'acme' })));
    const plan = (q: string, more: object = {}) => compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size: 10, ...more }).plan;
    const index = catalog.state.index;
    expect(isOneTermRanking(index, plan('red'))).toBe(true);
    expect(isOneTermRanking(index, plan('red', { aggregations: ['brand'] }))).toBe(false);
    expect(isOneTermRanking(index, plan('red shirt'))).toBe(false);
    expect(isOneTermRanking(index, { ...plan('red'), fieldWeights: plan('red').fieldWeights.map((w, f) => (f === 0 ? 0 : w)) })).toBe(false);
    const p = plan('red');
    const plain = plainRanking(p, catalog, 0, index.docCount);
    for (let search = 0; search < 3; search++) {
      const viaRun = runPartial(index, p, 0, index.docCount);
      expect({ total: viaRun.total, docs: Array.from(viaRun.topDocs), scores: Array.from(viaRun.topScores) }).toEqual(plain);
    }
    expect(blockRanking(p, catalog, 0, index.docCount)).toEqual(plain);
    expect(blockRanking(plan('xl'), catalog, 0, index.docCount)).toBeUndefined(); // 100 entries: too few
  });

  it('ranks a word of several terms by its top term only when that term fills the page', async () => {
    const catalog = new Catalog();
    // "shirts" in 300 docs, "shirt" (the exact term of the query "shirt") in 150 of them.
    await catalog.upsert(Array.from({ length: 300 }, (_, i): Product => ({ refId: `p${i}`, title: i % 2 === 0 ? 'red shirts' : 'blue shirts shirt' })));
    const index = catalog.state.index;
    for (const size of [10, 149, 150, 151, 200]) {
      const p = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q: 'shirt', start: 0, size }).plan;
      expect(p.words[0]!.termIds.length).toBe(2);
      expect(isOneTermRanking(index, p)).toBe(true);
      const plain = plainRanking(p, catalog, 0, index.docCount);
      const viaRun = runPartial(index, p, 0, index.docCount);
      expect({ total: viaRun.total, docs: Array.from(viaRun.topDocs), scores: Array.from(viaRun.topScores) }).toEqual(plain);
      // 150 docs have the top term: a larger page needs docs of "shirts" alone, left to the plain path.
      const ranked = blockRanking(p, catalog, 0, index.docCount);
      if (size <= 150) expect(ranked).toEqual(plain);
      else expect(ranked).toBeUndefined();
    }
  });
});
