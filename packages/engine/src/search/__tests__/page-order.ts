/** The page-order check shared by the property tests against the plain reference. */
import { expect } from 'vitest';
import type { Product, SearchRequest } from '../../types.js';
import { compareTuples, sortTuple } from './reference-search.js';

/**
 * Checks a page against the reference's: without query text the order is fully determined (sort keys,
 * then insertion order), so the refIds must be equal; with text, ties of the sort keys are ordered by
 * relevance, so each item must be one of `candidates` and the page's sort keys the reference page's.
 */
export function expectPageOrder(result: readonly Product[], page: readonly Product[], request: SearchRequest, candidates: readonly Product[]): void {
  expect(result.length).toBe(page.length);
  if (request.q.trim() === '' || result.length === 0) {
    expect(result.map((p) => p.refId)).toEqual(page.map((p) => p.refId));
    return;
  }
  const allowed = new Set(candidates.map((p) => p.refId));
  for (const p of result) expect(allowed.has(p.refId)).toBe(true);
  const keys = (list: readonly Product[]) => list.map((p) => sortTuple(p, request));
  expect(keys(result)).toEqual(keys(page));
  for (let i = 1; i < result.length; i++) {
    expect(compareTuples(sortTuple(result[i - 1], request), sortTuple(result[i], request), request)).toBeLessThanOrEqual(0);
  }
}
