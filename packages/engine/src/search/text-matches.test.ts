/**
 * Matching every word of a query (the rarest word as a list, the others looked up for its docs) against
 * its definition: the docs matching each word alone, intersected, their scores summed in query order —
 * on catalogs with appended products (the posting tail) and deleted ones, over the whole catalog and
 * over ranges as the pool's workers match them; and on catalogs large enough for the words' doc
 * bitsets (term-docs.ts), which pass over the rarest word's docs lacking another word, with fields of
 * weight 0 (a doc whose bit is set may still not match). A thread's bitsets cover the range it matches:
 * the ranges here follow one another on one thread, as a worker's would after the catalog grew.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { compileSearchPlan, type SearchPlan } from './search-plan.js';
import { matchText } from './text-matches.js';
import { termDocBits } from './term-docs.js';
import { poolRanges } from './search-pool.js';
import { MAX_WALKED_PAIRS } from './every-word-walk.js';

const WORDS = ['red', 'cotton', 'shirt', 'blue', 'denim', 'shirts', 'xl', 'set', 'coton', 'reds'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 8 }).map((w) => w.join(' '));
const rowArb = fc.record({ title: text, description: text });
const queryArb = fc.array(fc.constantFrom(...WORDS, 'shi', 'cott', 'blu', 'dennim'), { minLength: 2, maxLength: 4 }).map((w) => w.join(' '));

/** The matches of [lo, hi) as doc → score (copied: the lists live until the next matching). */
function matchesOf(plan: SearchPlan, catalog: Catalog, lo: number, hi: number): Map<number, number> {
  const m = matchText(catalog.state.index, plan, lo, hi);
  return new Map(Array.from({ length: m.length }, (_, k) => [m.docs[k]!, m.scores[k]!]));
}

/** Deletes the products that `deletes` names (modulo the built then appended products). */
async function deleteSome(catalog: Catalog, built: number, appended: number, deletes: readonly number[]): Promise<void> {
  const all = built + appended;
  await catalog.delete([...new Set(deletes.map((d) => (d % all < built ? `b${d % all}` : `a${(d % all) - built}`)))]);
}

/**
 * Whether `plan`'s every word is matched, scores summed in query order, over the whole catalog, the
 * pool's ranges for 2 to 4 workers, and ranges not on a multiple of 32.
 */
function expectEveryWordMatched(plan: SearchPlan, catalog: Catalog): void {
  const n = catalog.state.index.docCount;
  const ranges: [number, number][] = [[0, n], [32, n], [0, Math.min(n, 64)], [64, Math.min(n, 224)], [45, n - 7], ...[2, 3, 4].flatMap((w) => poolRanges(n, w))];
  for (const [lo, hi] of ranges) {
    if (lo >= hi) continue;
    const expected = plan.words.map((word) => matchesOf({ ...plan, words: [word], minWords: 1 }, catalog, lo, hi))
      .reduce((sums, word) => new Map([...sums].filter(([d]) => word.has(d)).map(([d, s]) => [d, s + word.get(d)!])));
    expect(matchesOf(plan, catalog, lo, hi)).toEqual(expected);
  }
}

/** Term pairs of a plan of two words walked pair by pair (every-word-walk.ts); 0 when matched as lists. */
function walkedPairs(plan: SearchPlan): number {
  const pairs = plan.words.length === 2 ? plan.words[0]!.termIds.length * plan.words[1]!.termIds.length : 0;
  return pairs <= MAX_WALKED_PAIRS ? pairs : 0;
}

/** Whether the plan is one matchEveryWord takes (every word, none with phrases). */
const everyWord = (plan: SearchPlan): boolean => !plan.matchNothing && plan.minWords >= plan.words.length && plan.words.every((w) => w.phrases.length === 0);

describe('matching every word of a query', () => {
  it('gives the docs of every word, scores summed in query order, with appended and deleted products', async () => {
    let walked = 0;
    let severalPairs = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 1, maxLength: 120 }), fc.array(rowArb, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 20 }), queryArb,
      async (built, appended, deletes, q) => {
        const catalog = new Catalog();
        await catalog.upsert(built.map((r, i): Product => ({ refId: `b${i}`, ...r })));
        if (appended.length > 0) await catalog.upsert(appended.map((r, i): Product => ({ refId: `a${i}`, ...r })));
        await deleteSome(catalog, built.length, appended.length, deletes);
        const { plan } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size: 10 });
        if (!everyWord(plan)) return;
        if (walkedPairs(plan) > 0) walked++;
        if (walkedPairs(plan) > 1) severalPairs++;
        expectEveryWordMatched(plan, catalog);
      },
    ), { numRuns: 200 });
    // Two words of few terms are walked pair by pair (every-word-walk.ts), some of several pairs; the
    // others matched as lists.
    expect(walked).toBeGreaterThan(20);
    expect(severalPairs).toBeGreaterThan(5);
  });

  it('gives the same with the doc bitsets of the words (term-docs.ts): probed before and after appends, deletions, fields of weight 0', async () => {
    let filtered = 0;
    let walked = 0;
    const weightArb = fc.array(fc.constantFrom(0, 0.5, 1, 2), { minLength: 2, maxLength: 2 });
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 150, maxLength: 400 }), fc.array(rowArb, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 80 }), queryArb, weightArb,
      async (built, appended, deletes, q, weights) => {
        const catalog = new Catalog();
        await catalog.upsert(built.map((r, i): Product => ({ refId: `b${i}`, ...r })));
        // Bitsets derived on the built version, then used by the versions appended and deleted from it
        // (they share its main postings).
        const first = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size: 10 }).plan;
        if (everyWord(first)) expectEveryWordMatched(first, catalog);
        if (appended.length > 0) await catalog.upsert(appended.map((r, i): Product => ({ refId: `a${i}`, ...r })));
        await deleteSome(catalog, built.length, appended.length, deletes);
        const { plan: compiled } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q, start: 0, size: 10 });
        if (!everyWord(compiled)) return;
        const { fullText } = catalog.state.index;
        if (compiled.words.some((w) => w.termIds.some((id) => termDocBits(fullText, id, 0, catalog.state.index.docCount)))) {
          filtered++;
          if (walkedPairs(compiled) > 0) walked++;
        }
        for (const w of [[1, 1], weights]) {
          expectEveryWordMatched({ ...compiled, fieldWeights: Array.from({ length: fullText.fieldIds.length }, (_, f) => w[f % w.length]!) }, catalog);
        }
      },
    ), { numRuns: 60 });
    // Most runs have words with bitsets: the filter is exercised, not only the probes without it.
    expect(filtered).toBeGreaterThan(30);
    expect(walked).toBeGreaterThan(5);
  });
});

describe('term doc bitsets (term-docs.ts)', () => {
  it('hold the docs of the term in the range asked for, and no more words than the range', async () => {
    let derived = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 150, maxLength: 400 }), fc.array(rowArb, { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), fc.nat(),
      async (built, appended, workers, pick) => {
        const catalog = new Catalog();
        await catalog.upsert(built.map((r, i): Product => ({ refId: `b${i}`, ...r })));
        if (appended.length > 0) await catalog.upsert(appended.map((r, i): Product => ({ refId: `a${i}`, ...r })));
        const { fullText, docCount } = catalog.state.index;
        const mainDocs = fullText.tail?.fromDoc ?? docCount;
        const id = pick % fullText.termCount;
        const { postDocs, termOffsets } = fullText;
        // Every range of the pool, then the whole catalog, on this one thread.
        for (const [lo, hi] of [...poolRanges(docCount, workers), [0, docCount]]) {
          const bits = termDocBits(fullText, id, lo, hi);
          if (bits === undefined) continue;
          derived++;
          expect(bits.length).toBeLessThanOrEqual(Math.ceil((hi - lo) / 32) + 1);
          const expected = new Set<number>();
          for (let i = termOffsets[id]!; i < termOffsets[id + 1]!; i++) if (postDocs[i]! >= lo && postDocs[i]! < Math.min(hi, mainDocs)) expected.add(postDocs[i]!);
          const set = new Set<number>();
          const base = (lo >>> 5) << 5;
          bits.forEach((word, w) => { for (let b = 0; b < 32; b++) if ((word & (1 << b)) !== 0) set.add(base + 32 * w + b); });
          expect(set).toEqual(expected);
        }
      },
    ), { numRuns: 60 });
    expect(derived).toBeGreaterThan(30);
  });
});
