/**
 * Typo tolerance: how many edits a query word may have, and a bounded optimal-string-alignment
 * (Damerau–Levenshtein without repeated edits of a substring) distance. Pure.
 * @module
 */

import { DEFAULT_TYPO_TOLERANCE, type TypoToleranceSettings } from './relevance-settings.js';

/**
 * Edits allowed for a query word under a website's typo tolerance (defaults: 0 below 4 characters,
 * 1 from 4, 2 from 8; lengths in UTF-16 units).
 */
export function allowedEdits(word: string, typo: Required<TypoToleranceSettings> = DEFAULT_TYPO_TOLERANCE): number {
  if (!typo.enabled) return 0;
  return word.length >= typo.minWordSizeTwoTypos ? 2 : word.length >= typo.minWordSizeOneTypo ? 1 : 0;
}

// Reused rows (three for OSA): distance() is synchronous, so one set per thread is safe.
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/**
 * OSA distance between `a` and `b` (insert, delete, substitute, swap of two adjacent characters each
 * cost 1), or `max + 1` as soon as it is known to exceed `max`.
 */
export function boundedOsaDistance(a: string, b: string, max: number): number {
  return boundedOsa(a, b, max, false);
}

/**
 * The smallest OSA distance between `a` and a prefix of `b` (a typed word that `b` may complete: "adid"
 * is 0 from "adidas", "adis" 1), or `max + 1` as soon as it is known to exceed `max`.
 */
export function boundedPrefixOsaDistance(a: string, b: string, max: number): number {
  return boundedOsa(a, b, max, true);
}

function boundedOsa(a: string, whole: string, max: number, prefix: boolean): number {
  // A prefix longer than `a` by more than `max` is more than `max` edits away: those are not compared.
  const b = prefix && whole.length > a.length + max ? whole.slice(0, a.length + max) : whole;
  const la = a.length;
  const lb = b.length;
  if (prefix ? la - lb > max : Math.abs(la - lb) > max) return max + 1;
  if (la === 0) return prefix ? 0 : lb;
  if (lb === 0) return la;
  if (rowA.length <= lb) { rowA = new Int32Array(lb * 2); rowB = new Int32Array(lb * 2); rowC = new Int32Array(lb * 2); }
  let prev2 = rowA; // row i-2
  let prev = rowB; // row i-1
  let cur = rowC;
  for (let j = 0; j <= lb; j++) prev[j] = j;
  let rowMin = 0;
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= lb; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let v = prev[j - 1] + cost;
      const del = prev[j] + 1;
      if (del < v) v = del;
      const ins = cur[j - 1] + 1;
      if (ins < v) v = ins;
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        const swap = prev2[j - 2] + 1;
        if (swap < v) v = swap;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  // The last row's minimum is the distance to the closest prefix of `b`.
  const d = prefix ? rowMin : prev[lb];
  return d > max ? max + 1 : d;
}
