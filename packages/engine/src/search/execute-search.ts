/**
 * The search operation: validated request → compiled plan → candidate ranges (inline, or fanned out
 * over the worker pool for large catalogs) → merged payload. When no product matches every query word,
 * the search runs again requiring one word fewer, until something matches (see {@link executeSearch}).
 * @module
 */
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import type { WebsiteSettings } from '../config.js';
import type { NumericValues } from '../catalog/columns/numeric-column.js';
import type { ScopeConditions, SearchPayload, SearchRequest } from '../types.js';
import { assemblePayload, rankedDocs } from './assemble-payload.js';
import { resolveRelevance, type ResolvedRelevance } from './relevance-settings.js';
import { runPartial, type PartialResult } from './run-partial.js';
import { withDisjunctiveAggregations } from './disjunctive-facets.js';
import { highlightProducts } from './highlight.js';
import { compileSearchPlan, planLanguage, planScoring, type PlanExtras, type SearchPlan } from './search-plan.js';
import type { SearchTables } from './term-aids-ahead.js';
import type { SearchPool } from './search-pool.js';
import type { RankStage, SearchReranker } from './rerank.js';
import { docMatchesWord, weightedNormsOf } from './text-matches.js';
import { DEFAULT_SEARCH_SIZE } from './validate-search-request.js';

/** Where and how a search runs. */
export interface SearchContext {
  /** Catalogs with at least `pool.threshold` products run on the pool; smaller ones inline. */
  pool?: SearchPool;
  /**
   * The website's current settings, read for this search: relevance settings (language, stop words,
   * synonyms, typo tolerance, ranking, field weights), redirects and merchandising rules.
   */
  settings?: WebsiteSettings;
  /** The time rules' `from`/`until` are compared with (ms since the epoch; default now). */
  now?: number;
  /**
   * The re-rank stage (personalization, semantic similarity): reorders the best `rerank.depth` results
   * of requests ranked by relevance (no `sort_fields`), pinned products staying in place. Never changes
   * the set, totals or facets. Used by {@link executeRankedSearch}.
   */
  rerank?: SearchReranker;
  /**
   * Told of each merchandising boost that cannot be applied on the current catalog version (its scope
   * no longer fits a field's kind), once per settings version; the boost is skipped for the search.
   */
  onRuleProblem?: (problem: Error) => void;
  /**
   * A search key's forced scope: every result passes it as well as the request's own scope. Compiled
   * as conditions of their own (never merged into the request's: on a multi-valued field no one
   * condition states "has b and not a"), never held back for disjunctive facets.
   */
  forcedScope?: ScopeConditions;
  /**
   * `_popularity` per doc of a catalog version (learning/popularity-keys.ts), asked only by searches
   * that sort by it; none: the key changes no order.
   */
  popularity?: (state: CatalogState) => NumericValues | undefined;
}

/** A search's payload, the semantic model that took part in ranking it, if any, and what re-ranked it. */
export interface RankedSearch {
  payload: SearchPayload;
  /** `id@version` of the semantic model whose similarities ranked the results. */
  rankedBy?: string;
  /** What re-ranked the plain order (`settings.ranked_by`), in stage order; empty when nothing did. */
  stages: RankStage[];
}

/** One run of the plain search: its payload (no highlighting yet) and what it was computed from. */
interface SearchRun {
  payload: SearchPayload;
  state: CatalogState;
  plan: SearchPlan;
}

async function runPlan(state: CatalogState, plan: SearchPlan, pool: SearchPool | undefined): Promise<PartialResult[]> {
  const n = state.index.docCount;
  return pool && !plan.matchNothing && n > 0 && n >= pool.threshold
    ? pool.runPartials(state.index, plan)
    : [runPartial(state.index, plan, 0, n)];
}

/**
 * Runs a (validated) search request against a catalog and returns the documented payload. The
 * catalog version is read once at the start, so a concurrent upsert or replace is seen entirely or
 * not at all. When nothing matches all the query words, every word is also given its typo variants
 * (a correctly spelt word is otherwise never widened); when that finds nothing either, the results
 * are the products matching the most words (each run requires one word fewer, filters still apply),
 * and `suggestions.dropped_words` lists the words the best of them does not match. Throws
 * `AisleError('SEARCH_BAD_REQUEST')` for requests that do not fit the catalog (a range over a text
 * field, a numeric bound on a text field, a list of values on a numeric field).
 */
export async function executeSearch(catalog: Catalog, asked: SearchRequest, context: SearchContext = {}): Promise<SearchPayload> {
  const { payload, state, plan } = await runSearch(catalog, asked, context);
  if (asked.highlight) payload.result = highlightProducts(state, plan, payload.result);
  return payload;
}

/**
 * {@link executeSearch}, plus the re-rank stage when the context has one: the plain search selects the
 * best `max(start + size, depth)` (same totals and facets), the stage reorders the first `depth` of
 * them — products pinned by merchandising rules keep their positions, the others are reordered around
 * them — and the page is cut from the reordered list (then highlighted).
 */
export async function executeRankedSearch(catalog: Catalog, request: SearchRequest, context: SearchContext = {}): Promise<RankedSearch> {
  const rerank = context.rerank;
  if (!rerank || !orderedByRelevance(request)) {
    const { payload, state, plan } = await runSearch(catalog, request, context);
    if (request.highlight) payload.result = highlightProducts(state, plan, payload.result);
    return { payload, stages: rulesStage(plan) };
  }
  const size = request.size ?? DEFAULT_SEARCH_SIZE;
  const end = request.start + size;
  const depth = rerank.depth;
  const { payload, state, plan } = await runSearch(catalog, { ...request, start: 0, size: Math.max(end, depth) }, context);
  const window = payload.result.slice(0, depth);
  const pinnedDocs = new Set((plan.merch?.pins ?? []).map((p) => p.doc));
  const pinned = window.map((p) => pinnedDocs.size > 0 && pinnedDocs.has(state.docByRefId.get(p.refId) ?? -1));
  const free = window.filter((_, i) => !pinned[i]);
  // The page was read from `state`: its revisions name the very product versions re-ranked.
  const revisions = free.map((p) => state.store.revision(state.docByRefId.get(p.refId)!));
  const { order, rankedBy, stages } = await rerank.reorder(free, revisions);
  let next = 0;
  const reordered = window.map((p, i) => (pinned[i] ? p : free[order[next++]]));
  let page = reordered.concat(payload.result.slice(depth)).slice(request.start, end);
  if (request.highlight) page = highlightProducts(state, plan, page);
  payload.result = page;
  return { payload, rankedBy, stages: [...rulesStage(plan), ...stages] };
}

/** `rules` when a merchandising rule pins or boosts for this request (hides change the set, not the order). */
function rulesStage(plan: SearchPlan): RankStage[] {
  return plan.merch !== undefined && (plan.merch.pins.length > 0 || plan.merch.boosts.length > 0) ? ['rules'] : [];
}

/**
 * True when the request leaves the order to relevance: no `sort_fields`, or only the pseudo-field
 * `_score` descending. Any other sort key is an order the caller asked for, which no re-rank may change.
 */
function orderedByRelevance(request: SearchRequest): boolean {
  return (request.sort_fields ?? []).every((key) => {
    const [name, spec] = Object.entries(key)[0] ?? [];
    return name === '_score' && spec?.order === 'desc';
  });
}

/** The inputs a {@link searchRelevance} was made from, compared by identity. */
interface RelevanceSource {
  settings: WebsiteSettings | undefined;
  catalogOptions: Catalog['options'];
  members: readonly unknown[];
  relevance: ResolvedRelevance;
}

/**
 * The settings members relevance is resolved from (a member replaced makes another relevance), written
 * into `into` (a search compares them in a reused array: none allocated per search).
 */
function relevanceMembers(settings: WebsiteSettings | undefined, catalogOptions: Catalog['options'], into: unknown[] = []): unknown[] {
  into.length = 0;
  into.push(
    settings?.language, settings?.stopWords, settings?.synonyms, settings?.typoTolerance, settings?.ranking, settings?.fieldWeights,
    catalogOptions.fieldWeights, catalogOptions.synonyms,
  );
  return into;
}

/** The members of the current search's settings, compared with the last relevance's (see {@link relevanceMembers}). */
const searchMembers: unknown[] = [];

/** Per catalog (its options object), the last relevance made: its searches run under the same settings until they change. */
const lastRelevance = new WeakMap<Catalog['options'], RelevanceSource>();

/**
 * The relevance settings of a search: the website's (defaults filled in) over the catalog's own
 * options (library users). The same object while the settings and the options are the same objects
 * (settings are replaced, never edited in place, when they change), so that what the plan compiler
 * derives from it (stop words, synonym rules, field weights) is made once, not on every search.
 */
function searchRelevance(settings: WebsiteSettings | undefined, catalogOptions: Catalog['options']): ResolvedRelevance {
  const last = lastRelevance.get(catalogOptions);
  if (last !== undefined && last.settings === settings && last.catalogOptions === catalogOptions) {
    const members = relevanceMembers(settings, catalogOptions, searchMembers);
    let same = true;
    for (let i = 0; i < members.length && same; i++) same = members[i] === last.members[i];
    if (same) return last.relevance;
  }
  const relevance = resolveRelevance(settings);
  relevance.fieldWeights = { ...catalogOptions.fieldWeights, ...relevance.fieldWeights };
  relevance.synonyms = [...(catalogOptions.synonyms ?? []), ...relevance.synonyms];
  lastRelevance.set(catalogOptions, { settings, catalogOptions, members: relevanceMembers(settings, catalogOptions), relevance });
  return relevance;
}

/**
 * The tables the searches of `catalog`'s version `state` run with under `settings` (as a search is given
 * them: the website's, or the one object of a website without settings): their weighted-norm table, the
 * very object (text-matches.ts `weightedNormsOf`), so that blocks derived under it ahead of the searches
 * are the ones they look up, and their language (term-aids-ahead.ts).
 */
export function searchTables(catalog: Catalog, state: CatalogState, settings: WebsiteSettings | undefined): SearchTables {
  const relevance = searchRelevance(settings, catalog.options);
  return { weighted: weightedNormsOf(state.index, planScoring(state, relevance)), lang: planLanguage(relevance) };
}

async function runSearch(catalog: Catalog, asked: SearchRequest, context: SearchContext): Promise<SearchRun> {
  const state = catalog.state;
  const settings = context.settings;
  const request = withDisjunctiveAggregations(asked);
  const relevance = searchRelevance(settings, catalog.options);
  const rules = { rules: settings?.rules, now: context.now ?? Date.now() };
  const compile = (options?: { widenTypos?: boolean }): { plan: SearchPlan; extras: PlanExtras } => {
    const compiled = compileSearchPlan(state, request, relevance, {
      ...options, rules, fieldTypes: settings?.fields, hierarchies: settings?.hierarchies, forcedScope: context.forcedScope, distinct: settings?.distinct,
      popularity: context.popularity && (() => context.popularity!(state)),
    });
    for (const problem of compiled.extras.ruleProblems ?? []) context.onRuleProblem?.(problem);
    return compiled;
  };
  let { plan, extras } = compile();
  let partials = await runPlan(state, plan, context.pool);
  const none = (list: readonly PartialResult[]) => list.every((p) => p.total === 0);
  if (none(partials) && !plan.matchNothing && plan.words.length > 0) {
    // The words found nothing together: before dropping any, let every word also match its typo
    // variants ("sorts" in "sorts cotton" may be a typo of "shorts" although "sorts" is a word).
    const wide = compile({ widenTypos: true });
    if (termCount(wide.plan) > termCount(plan)) {
      const widePartials = await runPlan(state, wide.plan, context.pool);
      if (!none(widePartials)) ({ plan, extras, partials } = { ...wide, partials: widePartials });
    }
  }
  // Still nothing: the products matching the most words (the strict plan: no widening).
  while (!plan.matchNothing && plan.minWords > 1 && none(partials)) {
    plan.minWords--;
    partials = await runPlan(state, plan, context.pool);
  }
  if (plan.minWords < plan.words.length) setDroppedWords(state, plan, extras, partials);
  extras.correctedQuery = correctedQuery(plan, extras, none(partials));
  return { payload: assemblePayload(state, plan, extras, partials, request, settings, context.forcedScope), state, plan };
}

/**
 * `suggestions.corrected_query`: the query's words with each correction the results bear out — a word
 * that matched through a typo variant and was not dropped. Undefined when none is left, and when nothing
 * matched: a correction of a dropped word, or of a word whose variants the filters left no product for,
 * described a search that did not happen ("did you mean shirt?" where shirts find nothing either), and
 * through a search key it named a word of products outside the key's scope.
 */
function correctedQuery(plan: SearchPlan, extras: PlanExtras, nothing: boolean): string | undefined {
  const corrections = extras.corrections;
  if (corrections === undefined || nothing) return undefined;
  const dropped = new Set(extras.droppedWords ?? []);
  let any = false;
  const words = plan.words.map((w, i) => {
    const correction = dropped.has(w.word) ? undefined : corrections[i];
    if (correction !== undefined) any = true;
    return correction ?? w.word;
  });
  return any ? words.join(' ') : undefined;
}

function termCount(plan: SearchPlan): number {
  let n = 0;
  for (const w of plan.words) n += w.termIds.length;
  return n;
}

function setDroppedWords(state: CatalogState, plan: SearchPlan, extras: PlanExtras, partials: readonly PartialResult[]): void {
  extras.ranked = rankedDocs(state, plan, extras, partials);
  const best = extras.ranked[0];
  if (best === undefined) return;
  extras.droppedWords = plan.words.filter((w) => !docMatchesWord(state.index, plan, w, best)).map((w) => w.word);
}
