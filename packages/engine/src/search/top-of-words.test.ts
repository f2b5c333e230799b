/**
 * The max-score top-k of a search of several words (top-of-words.ts) against the plain path it
 * replaces: every doc of the rarest word looked up in the other words (`matchText`), the best `limit`
 * taken by score then position (`topByScore`). Same total, same docs in the same order, same scores —
 * on random catalogs large enough for the words' doc bitsets, with many equal scores (short fields of
 * a few lengths), appended products (the posting tail), deleted ones, bitsets and maxima derived before
 * those changes, field weights changed after, and the ranges the pool's workers search.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { compileSearchPlan, type SearchPlan } from './search-plan.js';
import { isEveryWordRanking, rankEveryWord } from './top-of-words.js';
import { runPartial } from './run-partial.js';
import { expectPlainAnswers, fastRanking, plainRanking, type Ranking } from './__tests__/plain-ranking.js';

const WORDS = ['red', 'shirt', 'blue', 'cotton', 'xl', 'shirts'];
// Few words, so that each is in many docs (bitsets); short fields of a few lengths (many ties).
const text = (max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: max }).map((w) => w.join(' '));
const rowArb = fc.record({ title: text(4), description: text(9), brand: fc.constantFrom('red', 'acme', 'blue shirt', '') });
const weightArb = fc.array(fc.constantFrom(0.5, 1, 2, 3, 1.7), { minLength: 3, maxLength: 3 });
const queryArb = fc.array(fc.constantFrom(...WORDS, 'shirtz'), { minLength: 2, maxLength: 3 }).map((w) => w.join(' '));

/** What the max-score path returns (undefined: it leaves the search to the plain path). */
const maxScoreRanking = (plan: SearchPlan, catalog: Catalog, lo: number, hi: number): Ranking | undefined => fastRanking(rankEveryWord, plan, catalog, lo, hi);

/** Searches [lo, hi) twice (the first derives the bitsets and maxima): each answer given must be the plain path's. How many were given. */
const expectMaxScoreAnswers = (plan: SearchPlan, catalog: Catalog, lo: number, hi: number): number => expectPlainAnswers(rankEveryWord, plan, catalog, lo, hi, 2);

describe('max-score top-k of a search of several words', () => {
  it('returns what looking up every doc returns, with appends, deletions and field-weight changes', async () => {
    let given = 0;
    let passedOver = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 150, maxLength: 600 }), fc.array(rowArb, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 80 }),
      queryArb, fc.integer({ min: 0, max: 40 }), weightArb, weightArb,
      async (built, appended, deletes, q, size, weights, laterWeights) => {
        const catalog = new Catalog();
        await catalog.upsert(built.map((r, i): Product => ({ refId: `b${i}`, ...r })));
        const first = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size }).plan;
        if (isEveryWordRanking(catalog.state.index, first)) given += expectMaxScoreAnswers(first, catalog, 0, catalog.state.index.docCount);
        if (appended.length > 0) await catalog.upsert(appended.map((r, i): Product => ({ refId: `a${i}`, ...r })));
        const all = built.length + appended.length;
        await catalog.delete([...new Set(deletes.map((d) => (d % all < built.length ? `b${d % all}` : `a${(d % all) - built.length}`)))]);
        const { plan: compiled } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size });
        const fieldCount = catalog.state.index.fullText.fieldIds.length;
        const n = catalog.state.index.docCount;
        for (const w of [weights, laterWeights]) {
          const plan: SearchPlan = { ...compiled, fieldWeights: Array.from({ length: fieldCount }, (_, f) => w[f % w.length]!) };
          if (!isEveryWordRanking(catalog.state.index, plan)) continue;
          for (const [lo, hi] of [[0, n], [32, n], [0, Math.min(n, 320)], [64, Math.min(n, 480)]] as const) {
            if (lo >= hi) continue;
            given += expectMaxScoreAnswers(plan, catalog, lo, hi);
            // The page is smaller than the matches: some were counted without being looked up.
            if (plainRanking(plan, catalog, lo, hi).total > 2 * plan.limit) passedOver++;
          }
        }
      },
    ), { numRuns: 60 });
    expect(given).toBeGreaterThan(100);
    expect(passedOver).toBeGreaterThan(50);
  });

  it('is what runPartial takes for plain queries of several words, not for one with facets, weight-0 fields or rare words', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 300 }, (_, i): Product => ({ refId: `p${i}`, title: i % 3 === 0 ? 'blue shirt xl' : `red shirt ${i % 7 === 0 ? 'rare' : ''} ${i % 11 === 0 ? 'green' : ''}`, brand: 'acme' })));
    const plan = (q: string, more: object = {}) => compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size: 10, ...more }).plan;
    const index = catalog.state.index;
    expect(isEveryWordRanking(index, plan('red shirt'))).toBe(true);
    expect(isEveryWordRanking(index, plan('red shirt', { aggregations: ['brand'] }))).toBe(false);
    expect(isEveryWordRanking(index, plan('red'))).toBe(false);
    expect(isEveryWordRanking(index, { ...plan('red shirt'), fieldWeights: plan('red shirt').fieldWeights.map((w, f) => (f === 0 ? 0 : w)) })).toBe(false);
    const p = plan('red shirt');
    const plain = plainRanking(p, catalog, 0, index.docCount);
    const viaRun = runPartial(index, p, 0, index.docCount);
    expect({ total: viaRun.total, docs: Array.from(viaRun.topDocs), scores: Array.from(viaRun.topScores) }).toEqual(plain);
    expect(maxScoreRanking(p, catalog, 0, index.docCount)).toEqual(plain);
    // "rare" (28 docs) is the rarest word; "red", in 200 docs of 300, has a bitset.
    expect(maxScoreRanking(plan('rare red'), catalog, 0, index.docCount)).toEqual(plainRanking(plan('rare red'), catalog, 0, index.docCount));
    // "green" (18 docs) is the rarest word; "rare" beside it has too few docs for a bitset: the plain path.
    expect(maxScoreRanking(plan('rare green'), catalog, 0, index.docCount)).toBeUndefined();
  });
});
