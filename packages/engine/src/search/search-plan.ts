/**
 * Compiles a validated search request against one catalog version into a {@link SearchPlan}: query
 * words resolved to term ids (exact, synonym, prefix, typo), scope values resolved to dictionary
 * codes, field names to field numbers. The plan is plain data (structured-cloneable), so the same plan
 * runs inline or on every worker of the pool. Semantic errors (a numeric range on a text field, …)
 * are raised here as `SEARCH_BAD_REQUEST`.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import { charMask, lowerBound } from '../catalog/catalog-index.js';
import { DEFAULT_FIELD_WEIGHTS } from '../catalog/field-values.js';
import { codeLookup, ensureNumericOrder, ensureTextSortRanks } from '../catalog/text-column-lookups.js';
import { tokenize } from '../catalog/tokenizer.js';
import { AisleError } from '../errors.js';
import type { NumericScope, SearchRequest, TextScope } from '../types.js';
import { DEFAULT_SEARCH_SIZE } from './validate-search-request.js';
import { popcount32 } from '../catalog/bitset.js';
import { allowedEdits, boundedOsaDistance } from './typo.js';
import type { PlanMerch } from './merchandising.js';
import type { PlanDisjunctive } from './disjunctive-facets.js';

/**
 * How a term matched a query word; higher ranks first: exact (or synonym), prefix, one typo, two typos.
 * The score tier of a match is `quality * 1000`, far above any BM25 difference.
 */
export const MatchQuality = { TwoTypos: 0, OneTypo: 1, Prefix: 2, Exact: 3 } as const;

/** One query word: the terms it matches and how. */
export interface PlanWord {
  word: string;
  termIds: number[];
  qualities: number[];
  /** IDF per matched term. */
  idfs: number[];
}

/** One scope condition, resolved. */
export type PlanCondition =
  | { kind: 'in'; field: number; codes: number[] }
  | { kind: 'notIn'; field: number; codes: number[] }
  | { kind: 'range'; field: number; min: number; max: number; not: number[]; requireValue: boolean };

/** One sort key, resolved (`field` -1: no product has it, every value is missing). */
export interface PlanSortKey {
  field: number;
  type: 'number' | 'text';
  desc: boolean;
}

/** A compiled search request. */
export interface SearchPlan {
  /** Some condition can match nothing (unknown word, unknown field in a positive condition). */
  matchNothing: boolean;
  words: PlanWord[];
  /** BM25F weight per full-text field number. */
  fieldWeights: number[];
  conditions: PlanCondition[];
  /** Field number per requested aggregation (-1: no text values, empty buckets). */
  aggregationFields: number[];
  /** Field number per requested range (-1: no product has it, null/null). */
  rangeFields: number[];
  sort: PlanSortKey[];
  /** `start + size`: how many of the best matches to select (plus one per pinned product). */
  limit: number;
  /** Merchandising rules that apply to this request (see merchandising.ts). */
  merch?: PlanMerch;
  /** Conditions held back for disjunctive facets (see disjunctive-facets.ts). */
  disjunctive?: PlanDisjunctive[];
}

/** Query word corrections for `suggestions.corrected_query` (main thread only). */
export interface PlanExtras {
  correctedQuery?: string;
}

/** BM25 saturation (`b`, the length normalisation, is applied at build time: see FullTextIndex.postNorm). */
export const BM25_K1 = 1.2;

function bad(field: string, problem: string): never {
  throw new AisleError('SEARCH_BAD_REQUEST', `search request: ${field} ${problem}`, { details: { field } });
}

function findSorted(list: readonly string[], value: string): number {
  const i = lowerBound(list, value);
  return i < list.length && list[i] === value ? i : -1;
}

/** Synonym lookup: folded word → the other folded words of its groups (single-word entries only). */
export function synonymMap(groups: readonly (readonly string[])[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const group of groups) {
    const words = group.map((w) => tokenize(w)).filter((t) => t.length === 1).map((t) => t[0]);
    for (const w of words) {
      const list = map.get(w) ?? [];
      for (const other of words) if (other !== w && !list.includes(other)) list.push(other);
      map.set(w, list);
    }
  }
  return map;
}

// Term ids grouped by word length, per catalog version: a typo scan only looks at plausible lengths.
const termsByLengthCache = new WeakMap<CatalogState, Uint32Array[]>();
function termsByLength(state: CatalogState): Uint32Array[] {
  let buckets = termsByLengthCache.get(state);
  if (!buckets) {
    const lists: number[][] = [];
    state.vocabulary.forEach((t, id) => { (lists[t.length] ??= []).push(id); });
    buckets = Array.from({ length: lists.length }, (_, i) => Uint32Array.from(lists[i] ?? []));
    termsByLengthCache.set(state, buckets);
  }
  return buckets;
}

function idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

function compileWord(
  state: CatalogState, word: string, isLast: boolean, synonyms: Map<string, string[]>,
): { planWord: PlanWord; correction?: string } {
  const { vocabulary, termMasks } = state;
  const { termDocFreq } = state.index.fullText;
  const quality = new Map<number, number>();
  const exact = findSorted(vocabulary, word);
  if (exact >= 0) quality.set(exact, MatchQuality.Exact);
  for (const syn of synonyms.get(word) ?? []) {
    const t = findSorted(vocabulary, syn);
    if (t >= 0) quality.set(t, MatchQuality.Exact);
  }
  if (isLast) {
    // The sorted vocabulary makes every word starting with `word` one contiguous range.
    for (let t = lowerBound(vocabulary, word); t < vocabulary.length && vocabulary[t].startsWith(word); t++) {
      if (!quality.has(t)) quality.set(t, MatchQuality.Prefix);
    }
  }
  const sure = quality.size > 0;
  let correction: string | undefined;
  let typoMaxDf = 0;
  const edits = allowedEdits(word);
  if (edits > 0) {
    const buckets = termsByLength(state);
    const mask = charMask(word);
    let best = -1;
    let bestDistance = edits + 1;
    for (let len = Math.max(1, word.length - edits); len <= word.length + edits && len < buckets.length; len++) {
      const bucket = buckets[len];
      for (let i = 0; i < bucket.length; i++) {
        const t = bucket[i];
        // Each edit changes at most two characters of the set: a cheap filter before the DP.
        if (popcount32(termMasks[t] ^ mask) > 2 * edits || quality.has(t)) continue;
        const distance = boundedOsaDistance(word, vocabulary[t], edits);
        if (distance > edits) continue;
        quality.set(t, distance === 1 ? MatchQuality.OneTypo : MatchQuality.TwoTypos);
        if (termDocFreq[t] > typoMaxDf) typoMaxDf = termDocFreq[t];
        if (distance < bestDistance || (distance === bestDistance && (termDocFreq[t] > termDocFreq[best]
          || (termDocFreq[t] === termDocFreq[best] && vocabulary[t] < vocabulary[best])))) {
          best = t;
          bestDistance = distance;
        }
      }
    }
    if (!sure && best >= 0) correction = vocabulary[best];
  }
  const termIds = [...quality.keys()].sort((a, b) => a - b);
  const docCount = state.index.docCount;
  return {
    planWord: {
      word,
      termIds,
      qualities: termIds.map((t) => quality.get(t)!),
      // Typo matches share one IDF (that of the most common of them): otherwise a rare misspelt-looking
      // word would outrank the common word the user most likely meant ("sharee": "saree" before "shree").
      idfs: termIds.map((t) => idf(docCount, quality.get(t)! <= MatchQuality.OneTypo ? typoMaxDf : termDocFreq[t])),
    },
    correction,
  };
}

function isTextNot(cond: TextScope | NumericScope): cond is { not: string[] } {
  if (Array.isArray(cond)) return false;
  const c = cond as NumericScope;
  return c.min === undefined && c.max === undefined && Array.isArray(c.not) && c.not.length > 0 && typeof c.not[0] === 'string';
}

function textCodes(state: CatalogState, field: number, values: readonly string[]): number[] {
  const lookup = codeLookup(state, field);
  const codes = new Set<number>();
  for (const v of values) {
    const c = lookup.get(v);
    if (c !== undefined) codes.add(c);
  }
  return [...codes].sort((a, b) => a - b);
}

/** Resolves a scope (request or rule) into conditions; `nothing` when some condition can match nothing. */
export function compileScope(state: CatalogState, scope: Record<string, TextScope | NumericScope>): { conditions: PlanCondition[]; nothing: boolean } {
  const conditions: PlanCondition[] = [];
  let nothing = false;
  for (const [name, cond] of Object.entries(scope)) {
    const fid = state.fieldByName.get(name);
    const field = fid === undefined ? undefined : state.index.fields[fid];
    const at = `scope.${name}`;
    if (Array.isArray(cond)) {
      if (field?.kind === 'numeric') bad(at, `names a numeric field: use {min, max}, not a list of values`);
      const codes = field?.text ? textCodes(state, fid!, cond) : [];
      if (codes.length === 0) nothing = true;
      else conditions.push({ kind: 'in', field: fid!, codes });
    } else if (isTextNot(cond)) {
      if (field?.kind === 'numeric') bad(at, `names a numeric field: use {not: [numbers]}`);
      const codes = field?.text ? textCodes(state, fid!, cond.not) : [];
      if (codes.length > 0) conditions.push({ kind: 'notIn', field: fid!, codes });
    } else {
      const c = cond as NumericScope;
      const exclusionOnly = c.min === undefined && c.max === undefined && c.not !== undefined;
      if (exclusionOnly && c.not!.length === 0) continue; // `{not: []}` excludes nothing, whatever the field
      if (field?.kind === 'text') bad(at, `names a text field: use a list of values, not {min, max}`);
      if (field?.kind !== 'numeric' || !field.numeric) {
        // No product has a number there: a bound matches nothing, an exclusion keeps everything.
        if (!exclusionOnly) nothing = true;
        continue;
      }
      conditions.push({
        kind: 'range', field: fid!, min: c.min ?? -Infinity, max: c.max ?? Infinity, not: c.not ?? [], requireValue: !exclusionOnly,
      });
    }
  }
  // Cheap, selective conditions first: postings ORs before per-doc checks.
  conditions.sort((a, b) => (a.kind === 'in' ? 0 : 1) - (b.kind === 'in' ? 0 : 1));
  return { conditions, nothing };
}

/** Settings that shape a plan: effective field weights and synonym groups. */
export interface PlanSettings {
  fieldWeights?: Record<string, number>;
  synonyms?: readonly (readonly string[])[];
}

/** Compiles `request` against `state` (see module doc). */
export function compileSearchPlan(state: CatalogState, request: SearchRequest, settings: PlanSettings = {}): { plan: SearchPlan; extras: PlanExtras } {
  const { index } = state;
  const words = tokenize(request.q);
  const synonyms = synonymMap(settings.synonyms ?? []);
  const planWords: PlanWord[] = [];
  const corrected: string[] = [];
  let anyCorrection = false;
  let matchNothing = false;
  words.forEach((word, i) => {
    const { planWord, correction } = compileWord(state, word, i === words.length - 1, synonyms);
    if (planWord.termIds.length === 0) matchNothing = true;
    if (correction !== undefined) anyCorrection = true;
    corrected.push(correction ?? word);
    planWords.push(planWord);
  });
  const { conditions, nothing } = compileScope(state, request.scope ?? {});
  if (nothing) matchNothing = true;
  const fieldWeights = index.fullText.fieldIds.map((fid) => {
    const name = index.fields[fid].name;
    return settings.fieldWeights?.[name] ?? DEFAULT_FIELD_WEIGHTS[name] ?? 1;
  });
  const aggregationFields = (request.aggregations ?? []).map((name) => {
    const fid = state.fieldByName.get(name);
    return fid !== undefined && index.fields[fid].text ? fid : -1;
  });
  const rangeFields = (request.range_fields ?? []).map((name, i) => {
    const fid = state.fieldByName.get(name);
    if (fid === undefined || index.fields[fid].kind === 'none') return -1;
    if (index.fields[fid].kind !== 'numeric') bad(`range_fields[${i}]`, `names "${name}", which is not a numeric field`);
    return fid;
  });
  const sort: PlanSortKey[] = (request.sort_fields ?? []).map((spec) => {
    const [name, { order, type }] = Object.entries(spec)[0];
    const fid = state.fieldByName.get(name);
    const field = fid === undefined ? undefined : index.fields[fid];
    const usable = type === 'number' ? field?.numeric !== undefined : field?.text !== undefined;
    if (usable && type === 'text') ensureTextSortRanks(state, fid!);
    return { field: usable ? fid! : -1, type, desc: order === 'desc' };
  }).filter((k) => k.field >= 0); // a key every product misses changes no order
  if (!matchNothing) {
    // Min/max (and, when browsing, a leading number sort) walk numeric orders (see run-partial.ts).
    for (const fid of rangeFields) if (fid >= 0) ensureNumericOrder(state, fid);
    if (planWords.length === 0 && sort.length > 0 && sort[0].type === 'number') ensureNumericOrder(state, sort[0].field);
  }
  const size = request.size ?? DEFAULT_SEARCH_SIZE;
  return {
    plan: { matchNothing, words: planWords, fieldWeights, conditions, aggregationFields, rangeFields, sort, limit: request.start + size },
    extras: anyCorrection ? { correctedQuery: corrected.join(' ') } : {},
  };
}
