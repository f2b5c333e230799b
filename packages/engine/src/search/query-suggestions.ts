/**
 * `suggestions.queries` from the catalog vocabulary: the query with its last word completed by the
 * catalog's words that start with it, the words found in most products first. Used after the
 * website's own successful searches (see analytics/search-log.ts) to fill up to five suggestions.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import { lowerBound } from '../catalog/catalog-index.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { liveDocFreq } from '../catalog/changes/tombstones.js';
import { RecentMemo } from '../util/recent-memo.js';

/** Most vocabulary words with the typed prefix looked at (a one-letter prefix may start thousands). */
export const MAX_COMPLETION_SCAN = 5_000;

/**
 * Last words whose completions a catalog version keeps: a shop's searches end in the same words again
 * and again (search-as-you-type asks each prefix of them), and looking one up costs a binary search of
 * the vocabulary and a scan of its words with that prefix (~8 % of a never-asked one-word search at
 * 100,000 products). A version's vocabulary and live frequencies never change: a change makes a new
 * version, whose memo starts empty.
 */
export const KEPT_COMPLETIONS = 4_096;
const keptCompletions = new WeakMap<CatalogState, RecentMemo<string, { limit: number; terms: readonly number[] }>>();

/** Up to `limit` completions of `q`'s last word from the vocabulary, most frequent words first. */
export function vocabularyCompletions(state: CatalogState, q: string, limit: number): string[] {
  const words = tokenize(q);
  const last = words.at(-1);
  if (last === undefined || limit <= 0) return [];
  let memo = keptCompletions.get(state);
  if (memo === undefined) keptCompletions.set(state, (memo = new RecentMemo(KEPT_COMPLETIONS)));
  let kept = memo.get(last);
  if (kept?.limit !== limit) kept = memo.remember(last, { limit, terms: bestCompletions(state, last, limit) });
  const { vocabulary } = state;
  const head = words.slice(0, -1).join(' ');
  return kept.terms.map((t) => (head ? `${head} ${vocabulary[t]}` : vocabulary[t]));
}

/** The `limit` terms of the vocabulary other than `last` starting with it, most frequent first (ties: alphabetical). */
function bestCompletions(state: CatalogState, last: string, limit: number): number[] {
  const { vocabulary } = state;
  // Live document frequencies: a word only deleted products had (tombstones) has none.
  const docFreq = (t: number): number => liveDocFreq(state, t);
  // The best `limit` terms, best first, kept by insertion (no array of every candidate, no full sort).
  const best: number[] = [];
  const start = lowerBound(vocabulary, last);
  for (let t = start; t < vocabulary.length && t - start < MAX_COMPLETION_SCAN && vocabulary[t].startsWith(last); t++) {
    const df = docFreq(t);
    if (df === 0 || vocabulary[t] === last) continue;
    if (best.length === limit && df <= docFreq(best[limit - 1])) continue; // ties keep the earlier (alphabetical) term
    let at = best.length;
    while (at > 0 && docFreq(best[at - 1]) < df) at--;
    best.splice(at, 0, t);
    if (best.length > limit) best.pop();
  }
  return best;
}

/** Up to `limit` distinct suggestions: `logged` first, then `fromVocabulary`, none equal to `q` normalised. */
export function mergeSuggestions(q: string, logged: readonly string[], fromVocabulary: readonly string[], limit: number): string[] {
  const typed = tokenize(q).join(' ');
  const out: string[] = [];
  for (const s of [...logged, ...fromVocabulary]) if (s !== typed && !out.includes(s) && out.length < limit) out.push(s);
  return out;
}
