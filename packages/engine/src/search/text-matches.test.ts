/**
 * Matching every word of a query (the rarest word as a list, the others looked up for its docs) against
 * its definition: the docs matching each word alone, intersected, their scores summed in query order —
 * on catalogs with appended products (the posting tail) and deleted ones, over the whole catalog and
 * over ranges as the pool's workers match them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { compileSearchPlan, type SearchPlan } from './search-plan.js';
import { matchText } from './text-matches.js';

const WORDS = ['red', 'cotton', 'shirt', 'blue', 'denim', 'shirts', 'xl', 'set', 'coton', 'reds'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 8 }).map((w) => w.join(' '));
const rowArb = fc.record({ title: text, description: text });
const queryArb = fc.array(fc.constantFrom(...WORDS, 'shi', 'cott', 'blu', 'dennim'), { minLength: 2, maxLength: 4 }).map((w) => w.join(' '));

/** The matches of [lo, hi) as doc → score (copied: the lists live until the next matching). */
function matchesOf(plan: SearchPlan, catalog: Catalog, lo: number, hi: number): Map<number, number> {
  const m = matchText(catalog.state.index, plan, lo, hi);
  return new Map(Array.from({ length: m.length }, (_, k) => [m.docs[k]!, m.scores[k]!]));
}

describe('matching every word of a query', () => {
  it('gives the docs of every word, scores summed in query order, with appended and deleted products', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 1, maxLength: 120 }), fc.array(rowArb, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 20 }), queryArb,
      async (built, appended, deletes, q) => {
        const catalog = new Catalog();
        await catalog.upsert(built.map((r, i): Product => ({ refId: `b${i}`, ...r })));
        if (appended.length > 0) await catalog.upsert(appended.map((r, i): Product => ({ refId: `a${i}`, ...r })));
        const all = built.length + appended.length;
        await catalog.delete([...new Set(deletes.map((d) => (d % all < built.length ? `b${d % all}` : `a${(d % all) - built.length}`)))]);
        const { plan } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size: 10 });
        if (plan.matchNothing || plan.minWords < plan.words.length || plan.words.some((w) => w.phrases.length > 0)) return;
        const n = catalog.state.index.docCount;
        for (const [lo, hi] of [[0, n], [32, n], [0, Math.min(n, 64)]] as const) {
          if (lo >= hi) continue;
          const expected = plan.words.map((word) => matchesOf({ ...plan, words: [word], minWords: 1 }, catalog, lo, hi))
            .reduce((sums, word) => new Map([...sums].filter(([d]) => word.has(d)).map(([d, s]) => [d, s + word.get(d)!])));
          expect(matchesOf(plan, catalog, lo, hi)).toEqual(expected);
        }
      },
    ), { numRuns: 200 });
  });
});
