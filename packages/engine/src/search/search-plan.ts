/**
 * Compiles a validated search request against one catalog version into a {@link SearchPlan}, in one
 * step: query words resolved to term ids (exact, synonym, prefix, typo), the scope, disjunctive holds
 * and merchandising rules resolved by plan-filters.ts (conditions to dictionary codes and field numbers),
 * sort keys to field numbers. The plan is plain data (structured-cloneable), so the same plan runs
 * inline or on every worker of the pool, and nothing edits it afterwards (but `minWords`, lowered by
 * executeSearch's retries). Semantic errors (a numeric range on a text field, …) are raised here as
 * `SEARCH_BAD_REQUEST`.
 * @module
 */
import type { CatalogIndex, CatalogState, TextColumn } from '../catalog/catalog-index.js';
import type { HierarchySetting } from '../contract/settings-schema.js';
import { hierarchyOf } from '../catalog/columns/hierarchy-column.js';
import { charMask, lowerBound } from '../catalog/catalog-index.js';
import { DEFAULT_FIELD_WEIGHTS } from '../catalog/field-values.js';
import { ensureNumericOrder, ensureTextSortRanks } from '../catalog/columns/text-column-lookups.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { liveDocCount, liveDocFreq, liveFieldKind, liveLengthAverages, queryFieldKind } from '../catalog/changes/tombstones.js';
import { fieldError } from '../errors.js';
import type { ScopeConditions, SearchRequest } from '../types.js';
import { DEFAULT_SEARCH_SIZE } from './validate-search-request.js';
import { popcount32 } from '../catalog/columns/bitset.js';
import { allowedEdits, boundedOsaDistance } from './typo.js';
import type { PlanMerch } from './merchandising.js';
import type { PlanDisjunctive } from './conditions.js';
import type { PlanCondition } from './conditions.js';
import { compileFilters, type RulesInForce } from './plan-filters.js';
import { DEFAULT_LANGUAGE, keptStemIndex, LANGUAGES, queryStemOf, stemIndex, type Language } from './language.js';
import { resolveRelevance, type ResolvedRelevance, type SynonymEntry } from './relevance-settings.js';
import { MIN_COMPLETED_WORD, wordSplits } from './unmatched-word.js';
import { pinnedKind, type FieldTypes } from '../catalog/field-types.js';
import { compileRangeBuckets, noValuesProblem, type PlanBuckets } from './range-buckets.js';
import type { NumericValues } from '../catalog/columns/numeric-column.js';
import { compileDistinct, type PlanDistinct, type RangeGroups } from './distinct.js';
import type { WebsiteSettings } from '../contract/settings-schema.js';

/** The pseudo-field of `sort_fields` that stands for relevance. */
export const SCORE_FIELD = '_score';

/**
 * The pseudo-field of `sort_fields` and `ranking.tieBreakers` that stands for the value derived from
 * shoppers' behaviour (learning/behaviour-popularity.ts). Reserved: a product field of that name is
 * stored and returned as given, but this name sorts by the derived value.
 */
export const POPULARITY_FIELD = '_popularity';

/** Per term id matched by some word (directly or in a phrase alternative): the mask of those words. */
function termWordMasks(words: readonly PlanWord[]): Map<number, number> {
  const masks = new Map<number, number>();
  const add = (t: number, bit: number): void => { masks.set(t, (masks.get(t) ?? 0) | bit); };
  words.forEach((w, i) => {
    const bit = 1 << i;
    for (const t of w.termIds) add(t, bit);
    for (const phrase of w.phrases) for (const g of phrase) for (const t of g.termIds) add(t, bit);
  });
  return masks;
}

/**
 * How a term matched a query word; higher ranks first: exact (or synonym), stem or prefix, one typo,
 * two typos. The score tier of a match is `quality * 1000`, far above any BM25 difference.
 */
export const MatchQuality = { TwoTypos: 0, OneTypo: 1, Prefix: 2, Exact: 3 } as const;

/** Terms that match (any one of them), with how each matched and its IDF. */
export interface PlanTerms {
  termIds: number[];
  qualities: number[];
  /** IDF per matched term. */
  idfs: number[];
}

/** One query word: the terms it matches and how, and the phrases (synonyms) that stand for it. */
export interface PlanWord extends PlanTerms {
  word: string;
  /**
   * Multi-word synonyms of the word (or of a phrase it is part of): a doc matches the word when it has a
   * term of every group of one of these.
   */
  phrases: PlanTerms[][];
}

/**
 * One sort key, resolved: a field (`number` or `text` values), relevance (`score`, `field` -1), or a
 * value derived per doc (`derived`, `field` -1: `values`, e.g. `_popularity`; its arrays live on
 * SharedArrayBuffers, so sending the plan to the pool's workers does not copy them).
 */
export interface PlanSortKey {
  field: number;
  type: 'number' | 'text' | 'score' | 'derived';
  desc: boolean;
  values?: NumericValues;
}

/** A compiled search request. */
export interface SearchPlan {
  /** Some condition can match nothing (unknown field in a positive condition, no word matching anything). */
  matchNothing: boolean;
  words: PlanWord[];
  /**
   * Fewest words a doc must match: `words.length` unless no doc matches them all (then the search is run
   * again with fewer, see execute-search.ts) or some word matches no term at all.
   */
  minWords: number;
  /** BM25F weight per full-text field number. */
  fieldWeights: number[];
  /** The scope's conditions every result passes (those held back for disjunctive facets are in `disjunctive`). */
  conditions: PlanCondition[];
  /**
   * Field number per requested aggregation (-1: no text values, empty buckets), then, with
   * `facet_search`, the searched field (its counts: see facet-search.ts).
   */
  aggregationFields: number[];
  /**
   * Per `hierarchical_facets` name (in request order), the hierarchy's node column: counted as the
   * aggregations are, at aggregation index `aggregationFields.length + h` (see hierarchical-facets.ts).
   */
  hierarchyColumns: TextColumn[];
  /** Field number per requested range (-1: no product has it, null/null). */
  rangeFields: number[];
  /** Per `range_buckets` field (in request order): its field and bounds (see range-buckets.ts). */
  rangeBuckets: PlanBuckets[];
  /** The result order: `sort_fields`, relevance (when there are words), then the tie-breakers; doc id last. */
  sort: PlanSortKey[];
  /** How many of the best matches to select: `start + size` or the proximity window when larger, plus one per pinned product. */
  limit: number;
  /** Merchandising rules that apply to this request (see merchandising.ts). */
  merch?: PlanMerch;
  /**
   * Mean field length per full-text field number over the live docs, when appends or deletes made it
   * differ from the build's (`FullTextIndex.avgFieldLengths`; see tombstones.ts, text-matches.ts).
   */
  lengthAverages?: number[];
  /** Conditions held back for disjunctive facets (see disjunctive-facets.ts); absent when none is. */
  disjunctive?: PlanDisjunctive[];
  /** Variants: one result per group (see distinct.ts); absent when the request is not distinct. */
  distinct?: PlanDistinct;
}

/** What the calling thread keeps beside the plan (not sent to workers). */
export interface PlanExtras {
  /**
   * Per plan word, its best typo correction when it matched only through typo tolerance (undefined: it
   * matched as typed); absent when no word has one. `suggestions.corrected_query` is the query with the
   * corrections the results bear out (see `correctedQuery`, execute-search.ts).
   */
  corrections?: (string | undefined)[];
  /** `suggestions.corrected_query`, set by executeSearch from `corrections` once the results are known. */
  correctedQuery?: string;
  /** Per term id a plan word matches: the bit mask of the words it matches (proximity). */
  termWords?: Map<number, number>;
  /** `suggestions.dropped_words`: the query words the best result does not match (set by executeSearch). */
  droppedWords?: string[];
  /** The ranked docs when executeSearch already computed them (for the dropped words). */
  ranked?: Int32Array;
  /** Merchandising boosts that could not be applied, for the caller to report (see plan-filters.ts). */
  ruleProblems?: Error[];
}

/** BM25 saturation (`b`, the length normalisation: `postingNorm` in catalog/full-text/length-norms.ts). */
export const BM25_K1 = 1.2;

/** Query words beyond this are ignored (a pasted paragraph must not cost a scan per word). */
export const MAX_QUERY_WORDS = 32;

/** The best matches re-ranked by word proximity (see assemble-payload.ts). */
export const PROXIMITY_WINDOW = 50;

function bad(field: string, problem: string): never {
  throw fieldError('SEARCH_BAD_REQUEST', field, problem);
}

function findSorted(list: readonly string[], value: string): number {
  const i = lowerBound(list, value);
  return i < list.length && list[i] === value ? i : -1;
}

/** A synonym rule on folded words: a query containing the words `from` (in a row) also finds each of `to`. */
export interface SynonymRule {
  from: string[];
  to: string[][];
}

/** Synonym entries (two-way groups and one-way `{from, to}`) as one-way rules over folded words. */
export function synonymRules(entries: readonly SynonymEntry[]): SynonymRule[] {
  const rules: SynonymRule[] = [];
  const words = (text: string): string[] => tokenize(text);
  for (const entry of entries) {
    if (Array.isArray(entry)) {
      const group = entry.map(words).filter((w) => w.length > 0);
      for (const from of group) rules.push({ from, to: group.filter((g) => g.join(' ') !== from.join(' ')) });
    } else {
      const from = words(entry.from);
      if (from.length > 0) rules.push({ from, to: entry.to.map(words).filter((w) => w.length > 0) });
    }
  }
  return rules;
}

// Term ids grouped by word length, per vocabulary: a typo scan only looks at plausible lengths.
const termsByLengthCache = new WeakMap<readonly string[], Uint32Array[]>();
function termsByLength(vocabulary: readonly string[]): Uint32Array[] {
  let buckets = termsByLengthCache.get(vocabulary);
  if (!buckets) {
    const lists: number[][] = [];
    vocabulary.forEach((t, id) => { (lists[t.length] ??= []).push(id); });
    buckets = Array.from({ length: lists.length }, (_, i) => Uint32Array.from(lists[i] ?? []));
    termsByLengthCache.set(vocabulary, buckets);
  }
  return buckets;
}

function idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/** What compiling words needs besides the catalog version. */
interface WordContext {
  state: CatalogState;
  lang: Language;
  typo: ResolvedRelevance['typoTolerance'];
  /** Typo variants for every word, also those with exact, stem, prefix or synonym matches. */
  widen: boolean;
  /** The website's stop words (the language's and its own). */
  isStop: (word: string) => boolean;
}

/** Whether term `t` is in some live doc (a word only deleted products had is no term of the catalog). */
function isLiveTerm(state: CatalogState, t: number): boolean {
  return state.tombstones === undefined || liveDocFreq(state, t) > 0;
}

/** Exact and same-stem terms of a word: `quality` gets Exact for the word, Prefix for its stem variants. */
function addExactAndStems(ctx: WordContext, word: string, quality: Map<number, number>): void {
  const { vocabulary } = ctx.state;
  const exact = findSorted(vocabulary, word);
  if (exact >= 0 && isLiveTerm(ctx.state, exact)) quality.set(exact, MatchQuality.Exact);
  const kept = keptStemIndex(vocabulary, ctx.lang);
  // A word of the vocabulary has its stem kept with it once the index is derived (the same: a stem is a
  // function of the word); an index not derived yet is derived only for a word that has a stem.
  const stem = exact >= 0 && kept !== undefined ? kept.ofTerm[exact] : queryStemOf(ctx.lang, word);
  if (stem === undefined) return;
  for (const t of (kept ?? stemIndex(vocabulary, ctx.lang)).byStem.get(stem) ?? []) if (!quality.has(t) && isLiveTerm(ctx.state, t)) quality.set(t, MatchQuality.Prefix);
}

/** Every live term starting with `word` not matched otherwise, as a Prefix match. */
function addCompletions(ctx: WordContext, word: string, quality: Map<number, number>): void {
  const { vocabulary } = ctx.state;
  // The sorted vocabulary makes every word starting with `word` one contiguous range.
  for (let t = lowerBound(vocabulary, word); t < vocabulary.length && vocabulary[t].startsWith(word); t++) {
    if (!quality.has(t) && isLiveTerm(ctx.state, t)) quality.set(t, MatchQuality.Prefix);
  }
}

function toPlanTerms(ctx: WordContext, quality: Map<number, number>, typoMaxDf: number): PlanTerms {
  const termDocFreq = (t: number) => liveDocFreq(ctx.state, t);
  const docCount = liveDocCount(ctx.state);
  const termIds = [...quality.keys()].sort((a, b) => a - b);
  return {
    termIds,
    qualities: termIds.map((t) => quality.get(t)!),
    // Typo matches share one IDF (that of the most common of them): otherwise a rare misspelt-looking
    // word would outrank the common word the user most likely meant ("sharee": "saree" before "shree").
    idfs: termIds.map((t) => idf(docCount, quality.get(t)! <= MatchQuality.OneTypo ? typoMaxDf : termDocFreq(t))),
  };
}

/**
 * The typos a typed word may have and the term lengths they reach: `allowedEdits` within
 * `length ± edits`; and a word one letter shorter than `minWordSizeOneTypo` may be a word of that size
 * with a letter missing ("cse" for "case"): 1 edit, to terms one letter longer only.
 */
export function typoLengths(word: string, typo: ResolvedRelevance['typoTolerance']): { edits: number; minLength: number; maxLength: number } {
  const edits = allowedEdits(word, typo);
  if (edits > 0) return { edits, minLength: Math.max(1, word.length - edits), maxLength: word.length + edits };
  if (typo.enabled && word.length > 0 && word.length + 1 === typo.minWordSizeOneTypo) return { edits: 1, minLength: word.length + 1, maxLength: word.length + 1 };
  return { edits: 0, minLength: 0, maxLength: -1 };
}

/**
 * Compiles one query word: its exact term and same-stem terms, its synonyms, every term it prefixes
 * when it is the last word; and only when none of these exists, the terms within the allowed edits
 * (so a correctly spelt word is never widened by typo variants: `shirt` does not find `skirt`).
 */
function compileWord(
  ctx: WordContext, word: string, isLast: boolean, synonymTargets: readonly string[][],
): { planWord: PlanWord; correction?: string } {
  const { vocabulary, termMasks } = ctx.state;
  const df = (t: number) => liveDocFreq(ctx.state, t);
  const quality = new Map<number, number>();
  addExactAndStems(ctx, word, quality);
  const phrases: PlanTerms[][] = [];
  for (const target of synonymTargets) {
    const groups = target.map((w) => {
      const q = new Map<number, number>();
      addExactAndStems(ctx, w, q);
      // A synonym stands for the word itself: its terms rank as exact matches.
      for (const t of q.keys()) q.set(t, MatchQuality.Exact);
      return q;
    });
    if (groups.some((g) => g.size === 0)) continue; // the catalog lacks a word of it
    if (groups.length === 1) for (const t of groups[0].keys()) quality.set(t, MatchQuality.Exact);
    else phrases.push(groups.map((g) => toPlanTerms(ctx, g, 0)));
  }
  if (isLast) addCompletions(ctx, word, quality);
  let correction: string | undefined;
  let typoMaxDf = 0;
  const sure = quality.size > 0 || phrases.length > 0;
  const { edits, minLength, maxLength } = sure && !ctx.widen ? { edits: 0, minLength: 0, maxLength: -1 } : typoLengths(word, ctx.typo);
  if (edits > 0) {
    const buckets = termsByLength(vocabulary);
    const mask = charMask(word);
    let best = -1;
    let bestDistance = edits + 1;
    for (let len = minLength; len <= maxLength && len < buckets.length; len++) {
      const bucket = buckets[len];
      for (let i = 0; i < bucket.length; i++) {
        const t = bucket[i];
        // Each edit changes at most two characters of the set: a cheap filter before the DP.
        if (popcount32(termMasks[t] ^ mask) > 2 * edits || quality.has(t) || !isLiveTerm(ctx.state, t)) continue;
        const distance = boundedOsaDistance(word, vocabulary[t], edits);
        if (distance > edits) continue;
        quality.set(t, distance === 1 ? MatchQuality.OneTypo : MatchQuality.TwoTypos);
        if (df(t) > typoMaxDf) typoMaxDf = df(t);
        if (distance < bestDistance || (distance === bestDistance && (df(t) > df(best)
          || (df(t) === df(best) && vocabulary[t] < vocabulary[best])))) {
          best = t;
          bestDistance = distance;
        }
      }
    }
    if (best >= 0 && !sure) correction = vocabulary[best];
  }
  if (quality.size === 0 && phrases.length === 0) relaxUnmatchedWord(ctx, word, isLast, quality, phrases);
  // Written out rather than spread: V8 takes a slow path for a spread followed by more properties.
  const { termIds, qualities, idfs } = toPlanTerms(ctx, quality, typoMaxDf);
  return { planWord: { word, termIds, qualities, idfs, phrases }, correction };
}

/** A word compiled ({@link compileWord}) and the typo settings it was compiled under. */
interface KeptWord {
  typo: ResolvedRelevance['typoTolerance'];
  compiled: { planWord: PlanWord; correction?: string };
}

/**
 * Terms of the words kept compiled per catalog version and relevance tables: bounded by terms, not
 * words (a short last word completes to thousands of terms). Beyond, the list starts again.
 */
const MAX_KEPT_TERMS = 65_536;

/** The words kept compiled for one catalog version and relevance tables, and their terms in all. */
interface KeptWords {
  words: Map<string, KeptWord>;
  terms: number;
}
const keptWords = new WeakMap<CatalogState, WeakMap<RelevanceTables, KeptWords>>();

/** The terms a compiled word holds (its own and its phrases'). */
function termsOf(planWord: PlanWord): number {
  let n = planWord.termIds.length;
  for (const phrase of planWord.phrases) for (const group of phrase) n += group.termIds.length;
  return n;
}

/**
 * {@link compileWord}, kept for the catalog version: a shop's queries repeat their words (three in four
 * words of the peers' 2,000-query workload were asked before, decision 0062), and compiling one reads
 * the vocabulary at a dozen places or more (exact term, stem, completions, typo candidates), each a
 * cache miss by the time a search compiles. A word is compiled from the version (immutable), the
 * tables, the typo settings, its being the last word and the widening; a word that synonym rules
 * target together with its neighbours is compiled each time. The plan word is shared by the plans
 * that ask for it: plans are never edited after they are compiled (see the module doc).
 */
function keptCompiledWord(
  ctx: WordContext, tables: RelevanceTables, word: string, isLast: boolean, synonymTargets: readonly string[][],
): { planWord: PlanWord; correction?: string } {
  if (synonymTargets.length > 0) return compileWord(ctx, word, isLast, synonymTargets);
  let byTables = keptWords.get(ctx.state);
  if (byTables === undefined) keptWords.set(ctx.state, (byTables = new WeakMap()));
  let kept = byTables.get(tables);
  if (kept === undefined) byTables.set(tables, (kept = { words: new Map(), terms: 0 }));
  const key = `${isLast ? 'last' : 'inner'}${ctx.widen ? ' widened' : ''}\u0000${word}`;
  const found = kept.words.get(key);
  if (found !== undefined && found.typo === ctx.typo) return found.compiled;
  const compiled = compileWord(ctx, word, isLast, synonymTargets);
  const terms = termsOf(compiled.planWord);
  // A word kept under other typo settings is replaced.
  if (found !== undefined) kept.terms -= termsOf(found.compiled.planWord);
  if (kept.terms + terms > MAX_KEPT_TERMS) {
    kept.words.clear();
    kept.terms = 0;
  }
  if (terms <= MAX_KEPT_TERMS) {
    kept.words.set(key, { typo: ctx.typo, compiled });
    kept.terms += terms;
  }
  return compiled;
}

/**
 * A word that matches nothing at all, before it is dropped (see unmatched-word.ts): its completions
 * when it is not the last word (the last one has them already), and its splits into two catalog words
 * that are not stop words, each a phrase whose parts match as the words themselves would (exact and same-stem terms).
 */
function relaxUnmatchedWord(ctx: WordContext, word: string, isLast: boolean, quality: Map<number, number>, phrases: PlanTerms[][]): void {
  const { vocabulary } = ctx.state;
  if (!isLast && word.length >= MIN_COMPLETED_WORD) addCompletions(ctx, word, quality);
  // A stop word is no part of what was meant ("callan" is not "call an").
  const isLivePart = (part: string): boolean => {
    const t = findSorted(vocabulary, part);
    return !ctx.isStop(part) && t >= 0 && isLiveTerm(ctx.state, t);
  };
  for (const parts of wordSplits(word, isLivePart)) {
    phrases.push(parts.map((part) => {
      const q = new Map<number, number>();
      addExactAndStems(ctx, part, q);
      return toPlanTerms(ctx, q, 0);
    }));
  }
}

/**
 * The words of `q` that take part in matching: at most {@link MAX_QUERY_WORDS}, stop words removed
 * (unless the query has nothing else: "the who" still searches).
 */
export function queryWords(q: string, isStopWord: (word: string) => boolean): string[] {
  const words = tokenize(q).slice(0, MAX_QUERY_WORDS);
  const kept = words.filter((w) => !isStopWord(w));
  return kept.length > 0 ? kept : words;
}

/** Per word of `words`, the targets of the synonym rules whose `from` occurs (in a row) over it. */
function synonymTargetsPerWord(words: readonly string[], rules: readonly SynonymRule[]): string[][][] {
  const targets: string[][][] = words.map(() => []);
  for (const rule of rules) {
    const n = rule.from.length;
    for (let i = 0; i + n <= words.length; i++) {
      let same = true;
      for (let j = 0; j < n && same; j++) same = words[i + j] === rule.from[j];
      if (!same) continue;
      for (let j = 0; j < n; j++) targets[i + j].push(...rule.to);
    }
  }
  return targets;
}

/** What a plan derives from its relevance settings alone (no catalog): the language, the stop word test and the synonym rules. */
interface RelevanceTables {
  /** The members they were made from, compared by identity on every use. */
  language: string;
  stopWords: readonly string[];
  synonyms: readonly SynonymEntry[];
  lang: Language;
  isStop: (word: string) => boolean;
  rules: SynonymRule[];
  /** The BM25F weight per full-text field number of the last catalog index compiled against. */
  weights?: { fieldIds: readonly number[]; fields: CatalogIndex['fields']; fieldWeights: Record<string, number>; perField: number[] };
}

/**
 * Per relevance object (a search's: execute-search.ts keeps one while the settings stay), its tables,
 * made once rather than on every search (tokenizing every stop word and synonym entry, per search,
 * cost more than matching a rare word).
 */
const relevanceTables = new WeakMap<ResolvedRelevance, RelevanceTables>();

function relevanceTablesOf(settings: ResolvedRelevance): RelevanceTables {
  const cached = relevanceTables.get(settings);
  if (cached !== undefined && cached.language === settings.language && cached.stopWords === settings.stopWords && cached.synonyms === settings.synonyms) return cached;
  const lang = LANGUAGES.get(settings.language) ?? LANGUAGES.get(DEFAULT_LANGUAGE)!;
  const extraStops = new Set(settings.stopWords.flatMap((w) => tokenize(w)));
  const isStop = (w: string) => lang.stopWords.has(w) || extraStops.has(w);
  // Synonym phrases lose their stop words as the query does ("case for iphone" → "case iphone").
  const content = (phrase: string[]) => (phrase.every(isStop) ? phrase : phrase.filter((w) => !isStop(w)));
  const rules = synonymRules(settings.synonyms).map((r) => ({ from: content(r.from), to: r.to.map(content) }));
  const tables: RelevanceTables = { language: settings.language, stopWords: settings.stopWords, synonyms: settings.synonyms, lang, isStop, rules };
  relevanceTables.set(settings, tables);
  return tables;
}

/**
 * The BM25F weight per full-text field number of `index` under `settings`: one array while both stay
 * (text-matches.ts keys its weighted norms by it, so they too are made once).
 */
function fieldWeightsOf(settings: ResolvedRelevance, index: CatalogIndex): number[] {
  const tables = relevanceTablesOf(settings);
  const { fieldIds } = index.fullText;
  const last = tables.weights;
  if (last !== undefined && last.fieldIds === fieldIds && last.fields === index.fields && last.fieldWeights === settings.fieldWeights) return last.perField;
  const perField = fieldIds.map((fid) => {
    const name = index.fields[fid].name;
    return settings.fieldWeights[name] ?? DEFAULT_FIELD_WEIGHTS[name] ?? 1;
  });
  tables.weights = { fieldIds, fields: index.fields, fieldWeights: settings.fieldWeights, perField };
  return perField;
}

/**
 * What every plan compiled against `state` under `settings` scores with (the BM25F weight per field and
 * the live docs' mean lengths): the same objects as the plans', so that the weighted norms derived from
 * them (text-matches.ts `weightedNormsOf`) are the searches' own table, for work derived ahead of the
 * searches (term-aids-ahead.ts).
 */
export function planScoring(state: CatalogState, settings: ResolvedRelevance): Pick<SearchPlan, 'fieldWeights' | 'lengthAverages'> {
  return { fieldWeights: fieldWeightsOf(settings, state.index), lengthAverages: liveLengthAverages(state) };
}

/** The language plans under `settings` stem their words in (its stemmer and stop words). */
export function planLanguage(settings: ResolvedRelevance): Language {
  return relevanceTablesOf(settings).lang;
}

/**
 * Compiles `request` against `state` (see module doc) with the website's relevance settings
 * (`settings`, defaults filled in) and merchandising rules (`options.rules`; none by default).
 * `widenTypos` gives every word its typo variants, also a word with exact matches (the second attempt
 * of a search whose words found nothing together). `request.aggregations` must already list its
 * disjunctive facets (`withDisjunctiveAggregations`).
 */
export function compileSearchPlan(
  state: CatalogState, request: SearchRequest, settings: ResolvedRelevance = resolveRelevance(undefined),
  options: {
    widenTypos?: boolean; rules?: RulesInForce; fieldTypes?: FieldTypes;
    /** The website's hierarchies (`settings.hierarchies`). */
    hierarchies?: Readonly<Record<string, HierarchySetting>>;
    /** The scope a search key forced on the request (see plan-filters.ts). */
    forcedScope?: ScopeConditions;
    popularity?: () => NumericValues | undefined; distinct?: WebsiteSettings['distinct'];
  } = {},
): { plan: SearchPlan; extras: PlanExtras } {
  const fieldTypes = options.fieldTypes;
  const { index } = state;
  const distinct = compileDistinct(state, request, options.distinct);
  const tables = relevanceTablesOf(settings);
  const { lang, isStop, rules } = tables;
  const ctx: WordContext = { state, lang, typo: settings.typoTolerance, widen: options.widenTypos === true, isStop };
  const words = queryWords(request.q, isStop);
  const targets = synonymTargetsPerWord(words, rules);
  const planWords: PlanWord[] = [];
  const corrections: (string | undefined)[] = [];
  let anyCorrection = false;
  let wordsWithTerms = 0;
  words.forEach((word, i) => {
    const { planWord, correction } = keptCompiledWord(ctx, tables, word, i === words.length - 1, targets[i]);
    if (planWord.termIds.length > 0 || planWord.phrases.length > 0) wordsWithTerms++;
    if (correction !== undefined) anyCorrection = true;
    corrections.push(correction);
    planWords.push(planWord);
  });
  const hierarchies = options.hierarchies ?? {};
  const requestAggregations = request.aggregations ?? [];
  const aggregationFields = requestAggregations.map((name) => {
    const fid = state.fieldByName.get(name);
    return fid !== undefined && index.fields[fid].text ? fid : -1;
  });
  // Counts that ignore a scope key's own condition, by key: the disjunctive facets' aggregations
  // first (range buckets read the first), then the facet search's and the hierarchies' counts.
  const ownConditionCounts = new Map<string, number[]>();
  const countsIgnoring = (key: string, aggregation: number) => {
    const list = ownConditionCounts.get(key) ?? [];
    ownConditionCounts.set(key, [...list, aggregation]);
  };
  for (const name of new Set(request.disjunctive_facets ?? [])) requestAggregations.forEach((a, i) => { if (a === name) countsIgnoring(name, i); });
  const facetSearch = request.facet_search;
  if (facetSearch) {
    const fid = state.fieldByName.get(facetSearch.field);
    if ((fid === undefined || queryFieldKind(state, fid, fieldTypes) === 'none') && pinnedKind(fieldTypes, facetSearch.field) === undefined) {
      bad('facet_search.field', noValuesProblem(state, facetSearch.field));
    }
    countsIgnoring(facetSearch.field, aggregationFields.length);
    aggregationFields.push(fid !== undefined && index.fields[fid].text ? fid : -1);
  }
  const hierarchyColumns = (request.hierarchical_facets ?? []).map((name, h) => {
    if (!Object.hasOwn(hierarchies, name)) bad(`hierarchical_facets[${h}]`, `names "${name}", which is no hierarchy of the website (settings.hierarchies)`);
    countsIgnoring(name, aggregationFields.length + h);
    return hierarchyOf(state, hierarchies[name]!).column;
  });
  // A word matching no term at all is dropped at once (see SearchPlan.minWords); none left: no match.
  const filters = compileFilters(state, request, options.rules ?? { now: 0 }, { fieldTypes, hierarchies, forcedScope: options.forcedScope, ownConditionCounts });
  const { conditions, disjunctive, merch } = filters;
  const matchNothing = (words.length > 0 && wordsWithTerms === 0) || filters.matchNothing;
  const fieldWeights = fieldWeightsOf(settings, index);
  const rangeFields = (request.range_fields ?? []).map((name, i) => {
    const fid = state.fieldByName.get(name);
    if (fid === undefined) return -1;
    const kind = queryFieldKind(state, fid, fieldTypes);
    if (kind === 'none') return -1;
    if (kind !== 'numeric') bad(`range_fields[${i}]`, `names "${name}", which is not a numeric field`);
    return fid;
  });
  const rangeBuckets = compileRangeBuckets(state, request.range_buckets ?? {}, (fid) => queryFieldKind(state, fid, fieldTypes), (name) => pinnedKind(fieldTypes, name) !== undefined);
  // A bucket field whose condition is held back for its disjunctive facet counts that condition's near
  // misses too (the facet's aggregation comes first among the held condition's counts).
  const disjunctiveFields = new Set(request.disjunctive_facets ?? []);
  Object.keys(request.range_buckets ?? {}).forEach((name, i) => {
    const b = rangeBuckets[i]!;
    const held = b.field < 0 || !disjunctiveFields.has(name) ? undefined : disjunctive.find((h) => h.condition.kind !== 'under' && h.condition.field === b.field);
    if (held && held.aggregations.length > 0) b.nearMissAggregation = held.aggregations[0];
  });
  // A request's sort key must name something to sort by (`at`: its path); a tie-breaker of the
  // settings (no `at`) that names a field no product has yet changes no order.
  const fieldKey = (name: string, type: 'number' | 'text', desc: boolean, at?: string): PlanSortKey | undefined => {
    const fid = state.fieldByName.get(name);
    const field = fid === undefined ? undefined : index.fields[fid];
    const kind = fid === undefined ? 'none' : queryFieldKind(state, fid, fieldTypes);
    if (at !== undefined && kind === 'none' && pinnedKind(fieldTypes, name) === undefined) bad(at, noValuesProblem(state, name));
    if (at !== undefined && kind === 'text' && type === 'number') bad(at, `names "${name}", a text field: sort it with type "text"`);
    if (kind === 'none') return undefined; // a pinned field without values sorts as absent
    const usable = type === 'number' ? field?.numeric !== undefined : field?.text !== undefined;
    if (!usable) return undefined; // a key every product misses changes no order
    if (type === 'text') ensureTextSortRanks(state, fid!);
    return { field: fid!, type, desc };
  };
  // `_popularity` (reserved, whatever the products hold): a number key; without learned values it changes no order.
  const popularityKey = (type: 'number' | 'text', desc: boolean, at?: string): PlanSortKey | undefined => {
    if (type === 'text' && at !== undefined) bad(at, `names "${POPULARITY_FIELD}", a number: sort it with type "number"`);
    const values = options.popularity?.();
    return values === undefined ? undefined : { field: -1, type: 'derived', desc, values };
  };
  // Scores rank the matches when there is query text, or boost rules that give browsing a relevance.
  const hasText = planWords.length > 0 || (merch?.boosts.length ?? 0) > 0;
  const sort: PlanSortKey[] = [];
  (request.sort_fields ?? []).forEach((spec, i) => {
    const [name, { order, type }] = Object.entries(spec)[0];
    // `_score` places relevance among the keys; without query text every score is equal (no key).
    const at = `sort_fields[${i}].${name}`;
    const key = name === SCORE_FIELD ? (hasText ? { field: -1, type: 'score' as const, desc: order === 'desc' } : undefined)
      : name === POPULARITY_FIELD ? popularityKey(type, order === 'desc', at) : fieldKey(name, type, order === 'desc', at);
    if (key) sort.push(key);
  });
  if (hasText && !sort.some((k) => k.type === 'score')) sort.push({ field: -1, type: 'score', desc: true });
  for (const tb of settings.ranking.tieBreakers) {
    const key = tb.field === POPULARITY_FIELD ? popularityKey(tb.type ?? 'number', tb.order === 'desc') : fieldKey(tb.field, tb.type ?? 'number', tb.order === 'desc');
    if (key) sort.push(key);
  }
  if (!matchNothing) {
    // Min/max (and, when browsing, a leading number sort) walk numeric orders (see run-partial.ts).
    for (const fid of rangeFields) if (fid >= 0) ensureNumericOrder(state, fid);
    if (planWords.length === 0 && sort.length > 0 && sort[0].type === 'number') ensureNumericOrder(state, sort[0].field);
  }
  const size = request.size ?? DEFAULT_SEARCH_SIZE;
  const extras: PlanExtras = anyCorrection ? { corrections } : {};
  if (filters.ruleProblems.length > 0) extras.ruleProblems = filters.ruleProblems;
  let limit = request.start + size;
  if (planWords.length > 1) {
    limit = Math.max(limit, PROXIMITY_WINDOW);
    extras.termWords = termWordMasks(planWords);
  }
  // A pinned doc among the best is moved, not counted twice: select one more per pin.
  limit += merch?.pins.length ?? 0;
  // Never more than the catalog holds: the best `limit` are then every match, and a start far past the end
  // (up to 2^53 − 1, as the contract allows) made top-k heaps of that length (a RangeError, a 500).
  limit = Math.min(limit, index.docCount);
  return {
    plan: {
      matchNothing, words: planWords, minWords: wordsWithTerms, fieldWeights, conditions, aggregationFields, hierarchyColumns, rangeFields, rangeBuckets, sort, limit,
      lengthAverages: liveLengthAverages(state),
      ...(disjunctive.length > 0 && { disjunctive }),
      ...(merch && { merch }),
      ...(distinct && { distinct }),
    },
    extras,
  };
}

/** What one range contributes; merged by `assemblePayload`. */
export interface PartialResult {
  lo: number;
  total: number;
  /** Per requested aggregation: count per dictionary code (empty when the field has no text values). */
  facetCounts: Uint32Array[];
  /** Per requested range: [min, max] (Infinity/-Infinity when no candidate has a value). */
  ranges: Float64Array;
  /** Per `plan.rangeBuckets` field: the count per bucket. */
  bucketCounts: Uint32Array[];
  /** The range's best `limit` docs, best first, and their relevance scores (same order). */
  topDocs: Int32Array;
  topScores: Float64Array;
  /** Indexes into `plan.merch.pins` of the pinned docs of this range that are among its matches. */
  pinsMatched?: number[];
  /**
   * With disjunctive facets: the pinned docs that were candidates before the held-back conditions
   * (matched or counted here as near misses; the calling thread must not count them again).
   */
  pinsSeen?: number[];
  /**
   * Distinct searches: the range's matches per group code and those without a group (`topDocs` then
   * holds one representative per group; see distinct.ts).
   */
  groups?: RangeGroups;
  /**
   * Distinct searches counting facets per group: per aggregation and per `rangeBuckets` field, the
   * (group, value) pairs of groups reaching outside the range, flat `[g, v, …]` (their counts are not
   * in `facetCounts`/`bucketCounts`; the calling thread unions them across ranges).
   */
  groupPairs?: { facets: Int32Array[]; buckets: Int32Array[] };
}
