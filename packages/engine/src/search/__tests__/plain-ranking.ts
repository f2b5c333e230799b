/**
 * The plain path a ranking that passes over matches (top-of-term.ts) must agree with:
 * every match scored (`matchText`), the best `limit` taken by score then doc (`topByScore`).
 */
import { expect } from 'vitest';
import type { Catalog } from '../../catalog/catalog.js';
import type { PartialResult, SearchPlan } from '../search-plan.js';
import { matchText } from '../text-matches.js';
import { topByScore } from '../top-k.js';

/** A range's total and page (docs, scores), as plain arrays to compare. */
export interface Ranking {
  total: number;
  docs: number[];
  scores: number[];
}

/** A fast ranking over [lo, hi): `runPartial`'s shape, or undefined when it leaves the search to the plain path. */
export type FastRanking = (
  index: Catalog['state']['index'], plan: SearchPlan, lo: number, hi: number, empty: Pick<PartialResult, 'facetCounts' | 'ranges' | 'bucketCounts'>,
) => PartialResult | undefined;

/** What the plain path returns for a plan over [lo, hi). */
export function plainRanking(plan: SearchPlan, catalog: Catalog, lo: number, hi: number): Ranking {
  const m = matchText(catalog.state.index, plan, lo, hi);
  const page = topByScore(m.docs, m.scores, m.length, Math.min(plan.limit, m.length));
  return { total: m.length, docs: Array.from(page.topDocs), scores: Array.from(page.topScores) };
}

/** What `fast` returns for a plan over [lo, hi) (undefined: it leaves the search to the plain path). */
export function fastRanking(fast: FastRanking, plan: SearchPlan, catalog: Catalog, lo: number, hi: number): Ranking | undefined {
  const r = fast(catalog.state.index, plan, lo, hi, { facetCounts: [], ranges: new Float64Array(0), bucketCounts: [] });
  return r && { total: r.total, docs: Array.from(r.topDocs), scores: Array.from(r.topScores) };
}

/**
 * Searches [lo, hi) with `fast` `times` times (the first derives what it keeps, the next use it): each
 * answer given must be the plain path's. How many were given.
 */
export function expectPlainAnswers(fast: FastRanking, plan: SearchPlan, catalog: Catalog, lo: number, hi: number, times: number): number {
  const expected = plainRanking(plan, catalog, lo, hi);
  let given = 0;
  for (let search = 0; search < times; search++) {
    const got = fastRanking(fast, plan, catalog, lo, hi);
    if (got) { expect(got).toEqual(expected); given++; }
  }
  return given;
}
