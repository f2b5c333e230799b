/**
 * The search operation: validated request → compiled plan → candidate ranges (inline, or fanned out
 * over the worker pool for large catalogs) → merged payload. When no product matches every query word,
 * the search runs again requiring one word fewer, until something matches (see {@link executeSearch}).
 * @module
 */
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import type { WebsiteSettings } from '../config.js';
import type { SearchPayload, SearchRequest } from '../types.js';
import { assemblePayload, rankedDocs } from './assemble-payload.js';
import { resolveRelevance } from './relevance-settings.js';
import { runPartial, type PartialResult } from './run-partial.js';
import { compileSearchPlan, type PlanExtras, type SearchPlan } from './search-plan.js';
import type { SearchPool } from './search-pool.js';
import { docMatchesWord } from './text-matches.js';

/** Where and how a search runs. */
export interface SearchContext {
  /** Catalogs with at least `pool.threshold` products run on the pool; smaller ones inline. */
  pool?: SearchPool;
  /**
   * The website's current settings, read for this search: relevance settings (language, stop words,
   * synonyms, typo tolerance, ranking, field weights) and redirects.
   */
  settings?: WebsiteSettings;
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
export async function executeSearch(catalog: Catalog, request: SearchRequest, context: SearchContext = {}): Promise<SearchPayload> {
  const state = catalog.state;
  const settings = context.settings;
  const relevance = resolveRelevance(settings);
  // The catalog's own options (library users) come under the website's settings.
  relevance.fieldWeights = { ...catalog.options.fieldWeights, ...relevance.fieldWeights };
  relevance.synonyms = [...(catalog.options.synonyms ?? []), ...relevance.synonyms];
  let { plan, extras } = compileSearchPlan(state, request, relevance);
  let partials = await runPlan(state, plan, context.pool);
  const none = (list: readonly PartialResult[]) => list.every((p) => p.total === 0);
  if (none(partials) && !plan.matchNothing && plan.words.length > 0) {
    // The words found nothing together: before dropping any, let every word also match its typo
    // variants ("sorts" in "sorts cotton" may be a typo of "shorts" although "sorts" is a word).
    const wide = compileSearchPlan(state, request, relevance, { widenTypos: true });
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
  return assemblePayload(state, plan, extras, partials, request, settings);
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
