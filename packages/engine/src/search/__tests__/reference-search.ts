/**
 * A plain reference implementation of search semantics over an array of objects (filter, count,
 * min/max, sort), written for clarity, not speed. Property tests compare the engine against it.
 */
import { DEFAULT_FIELD_WEIGHTS, isNumericField, isPresent, NOT_FULL_TEXT_FIELDS, numericValue, textValues } from '../../catalog/field-values.js';
import { tokenize } from '../../catalog/full-text/tokenizer.js';
import { LANGUAGES, stemOf } from '../language.js';
import type { FacetBucket, NumericRange, NumericScope, Product, RangeBucket, ScopeCondition, SearchRequest } from '../../types.js';

export class ReferenceBadRequest extends Error {}

/** Plain OSA distance (no bound). */
export function osa(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

export type Kind = 'numeric' | 'text' | 'none' | 'unknown';

export function fieldKind(products: readonly Product[], field: string): Kind {
  const present = products.map((p) => p[field]).filter((v) => isPresent(v));
  if (products.every((p) => !(field in p))) return 'unknown';
  const numbers = present.filter((v) => !Number.isNaN(numericValue(v))).length;
  if (isNumericField(numbers, present.length - numbers)) return 'numeric';
  if (field !== 'image_vector' && products.some((p) => textValues(p[field]).length > 0)) return 'text';
  return 'none';
}

function docTokens(kindOf: (field: string) => Kind, p: Product, weights: Record<string, number>): Set<string> {
  const tokens = new Set<string>();
  for (const field of Object.keys(p)) {
    const weight = weights[field] ?? DEFAULT_FIELD_WEIGHTS[field] ?? 1;
    if (weight <= 0 || NOT_FULL_TEXT_FIELDS.has(field) || kindOf(field) !== 'text') continue;
    for (const v of textValues(p[field])) for (const t of tokenize(v)) tokens.add(t);
  }
  return tokens;
}

const english = LANGUAGES.get('en')!;

/** Exact, same stem (English), synonym, or (last word) prefix: the matches that exclude typo matches. */
function sureMatch(word: string, isLast: boolean, token: string, synonyms: string[]): boolean {
  const same = (w: string) => token === w || (stemOf(english, w) !== undefined && stemOf(english, w) === stemOf(english, token));
  return same(word) || synonyms.some(same) || (isLast && token.startsWith(word));
}

/** Default typo tolerance: 1 edit from 4 letters, 2 from 8; a 3-letter word may miss one letter of a 4-letter term. */
function typoMatch(word: string, token: string): boolean {
  const edits = word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
  if (edits === 0) return word.length === 3 && token.length === 4 && osa(word, token) <= 1;
  return osa(word, token) <= edits;
}

function scopeMatcher(products: readonly Product[], name: string, cond: ScopeCondition): ((p: Product) => boolean) | undefined {
  const kind = fieldKind(products, name);
  // Whether a product has a value for the field: at least one, as facets see them, of any kind.
  if ('exists' in cond) return (p) => (textValues(p[name]).length > 0) === cond.exists;
  // {all, any?, not?}: every value of all, one of any, none of not (text fields).
  if (!Array.isArray(cond) && ('all' in cond || 'any' in cond)) {
    if (kind === 'numeric') throw new ReferenceBadRequest(name);
    const { all = [], any, not = [] } = cond as { all?: string[]; any?: string[]; not?: string[] };
    return (p) => {
      const values = textValues(p[name]);
      return all.every((v) => values.includes(v)) && (any === undefined || any.some((v) => values.includes(v))) && !not.some((v) => values.includes(v));
    };
  }
  if (Array.isArray(cond)) {
    if (kind === 'numeric') throw new ReferenceBadRequest(name);
    return (p) => textValues(p[name]).some((v) => cond.includes(v));
  }
  const c = cond as NumericScope & { not?: unknown[] };
  if (c.min === undefined && c.max === undefined && Array.isArray(c.not) && c.not.length > 0 && typeof c.not[0] === 'string') {
    if (kind === 'numeric') throw new ReferenceBadRequest(name);
    return (p) => !textValues(p[name]).some((v) => (c.not as unknown[]).includes(v));
  }
  const exclusionOnly = c.min === undefined && c.max === undefined && c.not !== undefined;
  if (exclusionOnly && c.not!.length === 0) return undefined;
  if (kind === 'text') throw new ReferenceBadRequest(name);
  if (kind !== 'numeric') return exclusionOnly ? undefined : () => false;
  return (p) => {
    const v = numericValue(p[name]);
    if (Number.isNaN(v)) return exclusionOnly;
    return v >= (c.min ?? -Infinity) && v <= (c.max ?? Infinity) && !(c.not ?? []).includes(v);
  };
}

export interface ReferenceResult {
  /** All matches, ordered by sort keys then doc order (relevance ignored). */
  matches: Product[];
  total: number;
  aggregations: Record<string, FacetBucket[]>;
  ranges: Record<string, NumericRange>;
  /** Per `range_buckets` field: the matches per band (from inclusive, to exclusive). */
  rangeBuckets: Record<string, RangeBucket[]>;
  /** The query words that take part (stop words removed). */
  words: string[];
  /** Whether the matches are those matching the most words, not all. */
  dropping: boolean;
  /** The query words a product does not match. */
  droppedOf: (p: Product) => string[];
}

/** Sort key tuple of a product for the request's sort_fields (undefined = missing). */
export function sortTuple(p: Product, request: SearchRequest): (number | string | undefined)[] {
  return (request.sort_fields ?? []).map((spec) => {
    const [name, { type }] = Object.entries(spec)[0];
    if (type === 'number') {
      const v = numericValue(p[name]);
      return Number.isNaN(v) ? undefined : v;
    }
    const first = textValues(p[name])[0];
    return first === undefined ? undefined : first.toLowerCase();
  });
}

export function compareTuples(a: (number | string | undefined)[], b: (number | string | undefined)[], request: SearchRequest): number {
  const specs = request.sort_fields ?? [];
  for (let i = 0; i < a.length; i++) {
    const va = a[i];
    const vb = b[i];
    if (va === vb) continue;
    if (va === undefined) return 1;
    if (vb === undefined) return -1;
    const desc = Object.values(specs[i])[0].order === 'desc';
    return (va < vb ? -1 : 1) * (desc ? -1 : 1);
  }
  return 0;
}

/** The reference search. Throws ReferenceBadRequest where the engine must answer 400. */
export function referenceSearch(products: readonly Product[], request: SearchRequest, synonymGroups: string[][] = []): ReferenceResult {
  const all = tokenize(request.q).slice(0, 32);
  const content = all.filter((w) => !english.stopWords.has(w));
  const words = content.length > 0 ? content : all;
  const synonymsOf = (w: string): string[] => synonymGroups.filter((g) => g.includes(w)).flat().filter((s) => s !== w);
  const conditions = Object.entries(request.scope ?? {}).map(([name, cond]) => scopeMatcher(products, name, cond));
  for (const name of request.range_fields ?? []) if (fieldKind(products, name) === 'text') throw new ReferenceBadRequest(name);
  // A sort key naming a field no product has a value of, or a text field sorted as a number.
  for (const spec of request.sort_fields ?? []) {
    const [name, { type }] = Object.entries(spec)[0];
    if (name === '_score') continue;
    const kind = fieldKind(products, name);
    if (kind === 'unknown' || kind === 'none' || (kind === 'text' && type === 'number')) throw new ReferenceBadRequest(name);
  }
  const kinds = new Map<string, Kind>();
  const kindOf = (field: string): Kind => kinds.get(field) ?? kinds.set(field, fieldKind(products, field)).get(field)!;
  const tokensOf = products.map((p) => (words.length > 0 ? docTokens(kindOf, p, {}) : new Set<string>()));
  const vocabulary = new Set(tokensOf.flatMap((t) => [...t]));
  // A word with a sure match anywhere in the catalog is never widened by typos.
  const sure = words.map((w, i) => [...vocabulary].some((t) => sureMatch(w, i === words.length - 1, t, synonymsOf(w))));
  const matchedWords = (doc: number, widen = false): boolean[] => words.map((w, i) => [...tokensOf[doc]].some((t) =>
    (sure[i] ? sureMatch(w, i === words.length - 1, t, synonymsOf(w)) || (widen && typoMatch(w, t)) : typoMatch(w, t))));
  const filtered = products.map((_, d) => d).filter((d) => conditions.every((c) => !c || c(products[d])));
  const count = (m: boolean[]) => m.filter(Boolean).length;
  // Words matching some term of the catalog: a word matching none is dropped at once.
  const usable = words.filter((w, i) => sure[i] || [...vocabulary].some((t) => typoMatch(w, t))).length;
  let widened = false;
  let chosen = filtered.filter((d) => usable > 0 && count(matchedWords(d)) >= usable);
  if (chosen.length === 0 && usable > 0) {
    // Nothing together: every word also matches its typo variants.
    chosen = filtered.filter((d) => count(matchedWords(d, true)) >= usable);
    widened = chosen.length > 0;
  }
  let most = usable;
  if (chosen.length === 0) {
    // Still nothing: the products matching the most words (at least one), without widening.
    most = Math.max(0, ...filtered.map((d) => count(matchedWords(d))));
    chosen = most > 0 ? filtered.filter((d) => count(matchedWords(d)) === most) : [];
  }
  let matches = (words.length === 0 ? filtered : chosen).map((d) => products[d]);
  const aggregations: Record<string, FacetBucket[]> = {};
  for (const name of request.aggregations ?? []) {
    const counts = new Map<string, number>();
    if (name !== 'image_vector') for (const p of matches) for (const v of new Set(textValues(p[name]))) counts.set(v, (counts.get(v) ?? 0) + 1);
    aggregations[name] = [...counts].map(([key, doc_count]) => ({ key, doc_count }))
      .sort((a, b) => b.doc_count - a.doc_count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  const ranges: Record<string, NumericRange> = {};
  for (const name of request.range_fields ?? []) {
    const values = fieldKind(products, name) === 'numeric' ? matches.map((p) => numericValue(p[name])).filter((v) => !Number.isNaN(v)) : [];
    ranges[name] = values.length === 0 ? { min: null, max: null } : { min: Math.min(...values), max: Math.max(...values) };
  }
  const rangeBuckets: Record<string, RangeBucket[]> = {};
  for (const [name, bounds] of Object.entries(request.range_buckets ?? {})) {
    const kind = fieldKind(products, name);
    if (kind === 'text' || kind === 'unknown' || kind === 'none') throw new ReferenceBadRequest(name);
    const counts = bounds.map(() => 0).concat(0);
    for (const p of kind === 'numeric' ? matches : []) {
      const v = numericValue(p[name]);
      if (!Number.isNaN(v)) counts[bounds.filter((b) => b <= v).length]++;
    }
    rangeBuckets[name] = counts.map((count, k) => ({ ...(k > 0 ? { from: bounds[k - 1] } : {}), ...(k < bounds.length ? { to: bounds[k] } : {}), count }));
  }
  const order = new Map(products.map((p, i) => [p, i]));
  matches = matches.slice().sort((a, b) => compareTuples(sortTuple(a, request), sortTuple(b, request), request) || order.get(a)! - order.get(b)!);
  return {
    matches, total: matches.length, aggregations, ranges, rangeBuckets, words,
    droppedOf: (p: Product) => {
      const m = matchedWords(products.indexOf(p), widened);
      return words.filter((_, i) => !m[i]);
    },
    dropping: words.length > 0 && most < words.length,
  };
}
