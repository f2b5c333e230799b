/**
 * Facet-value search (`facet_search` in the request): the values of one field whose words match the
 * query's words in order — the last as a prefix —, case- and accent-insensitive (the search tokenizer's
 * folding), with the typo tolerance of search: as a search first looks for exact and prefix matches and
 * widens to typo variants only when those find nothing, the values are first matched strictly and, when
 * no value matches, again with each query word allowed the edits its length allows (`allowedEdits`).
 *
 * The counts are the field's facet counts over the products matching the rest of the request, the
 * field's own scope condition held back (the same near-miss counting as disjunctive facets, see
 * plan-filters.ts): the facet search's counts are one more aggregation of the plan, counted in the
 * same pass inline and on the pool. This module turns them into hits on the calling thread. Pure.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import { foldText, tokenize } from '../catalog/full-text/tokenizer.js';
import { FACET_SEARCH_SIZE } from '../contract/limits.js';
import type { FacetHit } from '../types.js';
import { markText, wordSpans, type WordSpan } from './highlight.js';
import type { ResolvedRelevance } from './relevance-settings.js';
import { MAX_QUERY_WORDS } from './search-plan.js';
import { allowedEdits, boundedOsaDistance, boundedPrefixOsaDistance } from './typo.js';

/** How one query word matched one word of a value. */
type WordMatch = 'word' | 'prefix' | 'typo';

/** Per value word (flattened over the value's spans), the span it belongs to. */
interface ValueWords {
  words: string[];
  span: number[];
  spans: WordSpan[];
}

// The folded words of a field's values, per catalog version and field: split once, matched per request.
const valueWordsCache = new WeakMap<CatalogState, Map<number, (ValueWords | undefined)[]>>();

function valueWords(state: CatalogState, fid: number, code: number): ValueWords {
  let perField = valueWordsCache.get(state);
  if (!perField) valueWordsCache.set(state, (perField = new Map()));
  let perCode = perField.get(fid);
  if (!perCode) perField.set(fid, (perCode = []));
  let cached = perCode[code];
  if (!cached) {
    const spans = wordSpans(state.dictionaries[fid]!.at(code));
    const words: string[] = [];
    const span: number[] = [];
    spans.forEach((s, i) => { for (const w of s.words) { words.push(w); span.push(i); } });
    cached = perCode[code] = { words, span, spans };
  }
  return cached;
}

/**
 * How query word `q` matches value word `w` (undefined: it does not): the last query word as a prefix;
 * with `edits` > 0 (the widened pass), also within that many edits (of a prefix, for the last word).
 */
function matchWord(q: string, w: string, last: boolean, edits: number): WordMatch | undefined {
  if (last ? w.startsWith(q) : w === q) return last && w.length > q.length ? 'prefix' : 'word';
  if (edits === 0) return undefined;
  const distance = last ? boundedPrefixOsaDistance(q, w, edits) : boundedOsaDistance(q, w, edits);
  return distance <= edits ? 'typo' : undefined;
}

/**
 * The value words the query words match, in order (the earliest such words: an in-order match exists
 * exactly when this greedy one finds it), with how each matched; undefined when they do not.
 */
function matchValue(words: readonly string[], query: readonly string[], edits: readonly number[]): { at: number; how: WordMatch }[] | undefined {
  const matched: { at: number; how: WordMatch }[] = [];
  let from = 0;
  for (let k = 0; k < query.length; k++) {
    let found: { at: number; how: WordMatch } | undefined;
    for (let j = from; j < words.length && !found; j++) {
      const how = matchWord(query[k]!, words[j]!, k === query.length - 1, edits[k]!);
      if (how) found = { at: j, how };
    }
    if (!found) return undefined;
    matched.push(found);
    from = found.at + 1;
  }
  return matched;
}

/** Where the first `length` folded characters of `text` end in `text` (a prefix match's marked part). */
function foldedPrefixEnd(text: string, length: number): number {
  let end = 0;
  for (const ch of text) {
    end += ch.length;
    if (foldText(text.slice(0, end)).length >= length) return end;
  }
  return text.length;
}

/** The hit of value `code`: its text HTML-escaped, the matched spans (or a prefix match's matched part) in `<em>`. */
function hitOf(state: CatalogState, fid: number, code: number, count: number, query: readonly string[], matched: readonly { at: number; how: WordMatch }[]): FacetHit {
  const value = state.dictionaries[fid]!.at(code);
  const { span, spans } = valueWords(state, fid, code);
  const marks = new Map<number, { start: number; end: number }>();
  matched.forEach(({ at, how }, k) => {
    const s = spans[span[at]!]!;
    // A prefix of a span folding into one word marks the typed part; anything else marks the word.
    const end = how === 'prefix' && s.words.length === 1 ? s.start + foldedPrefixEnd(value.slice(s.start, s.end), query[k]!.length) : s.end;
    const before = marks.get(span[at]!);
    marks.set(span[at]!, { start: s.start, end: Math.max(end, before?.end ?? 0) });
  });
  return { value, count, highlighted: markText(value, [...marks.values()].sort((a, b) => a.start - b.start)) };
}

/**
 * The facet hits of field `fid` for query `q`: the values with a count whose words match (see the
 * module doc), by count descending then value (JS string order), at most `size`. An empty query
 * matches every value.
 */
export function facetHits(
  state: CatalogState, fid: number, counts: Uint32Array, q: string, size: number = FACET_SEARCH_SIZE.default,
  typo: ResolvedRelevance['typoTolerance'],
): FacetHit[] {
  const query = tokenize(q).slice(0, MAX_QUERY_WORDS);
  const search = (edits: readonly number[]) => {
    const hits: { code: number; matched: { at: number; how: WordMatch }[] }[] = [];
    for (let code = 0; code < counts.length; code++) {
      if (counts[code] === 0) continue;
      const matched = matchValue(valueWords(state, fid, code).words, query, edits);
      if (matched) hits.push({ code, matched });
    }
    return hits;
  };
  let hits = search(query.map(() => 0));
  if (hits.length === 0 && query.length > 0) {
    const edits = query.map((w) => allowedEdits(w, typo));
    if (edits.some((e) => e > 0)) hits = search(edits);
  }
  const dictionary = state.dictionaries[fid]!;
  hits.sort((a, b) => counts[b.code]! - counts[a.code]! || compareText(dictionary.at(a.code), dictionary.at(b.code)));
  return hits.slice(0, size).map(({ code, matched }) => hitOf(state, fid, code, counts[code]!, query, matched));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
