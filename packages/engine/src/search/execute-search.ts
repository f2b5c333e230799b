/**
 * The search operation: validated request → compiled plan → candidate ranges (inline, or fanned out
 * over the worker pool for large catalogs) → merged payload.
 * @module
 */
import type { Catalog } from '../catalog/catalog.js';
import type { WebsiteSettings } from '../config.js';
import type { SearchPayload, SearchRequest } from '../types.js';
import { assemblePayload } from './assemble-payload.js';
import { runPartial } from './run-partial.js';
import { compileSearchPlan } from './search-plan.js';
import type { SearchPool } from './search-pool.js';
import type { SearchReranker } from './rerank.js';
import { DEFAULT_SEARCH_SIZE } from './validate-search-request.js';

/** Where and how a search runs. */
export interface SearchContext {
  /** Catalogs with at least `pool.threshold` products run on the pool; smaller ones inline. */
  pool?: SearchPool;
  /** The website's settings: field weights, synonyms and redirects are used here. */
  settings?: WebsiteSettings;
  /**
   * The re-rank stage (personalization, semantic similarity): reorders the best `rerank.depth` results
   * of requests ranked by relevance (no `sort_fields`). Never changes the set, totals or facets.
   */
  rerank?: SearchReranker;
}

/** A search's payload and the semantic model that took part in ranking it, if any. */
export interface RankedSearch {
  payload: SearchPayload;
  /** `id@version` of the semantic model whose similarities ranked the results. */
  rankedBy?: string;
}

/**
 * {@link executeSearch}, plus the re-rank stage when the context has one: the plain search selects the
 * best `max(start + size, depth)` (same totals and facets), the stage reorders the first `depth` of
 * them, and the page is cut from the reordered list.
 */
export async function executeRankedSearch(catalog: Catalog, request: SearchRequest, context: SearchContext = {}): Promise<RankedSearch> {
  const rerank = context.rerank;
  if (!rerank || (request.sort_fields?.length ?? 0) > 0) return { payload: await executeSearch(catalog, request, context) };
  const size = request.size ?? DEFAULT_SEARCH_SIZE;
  const end = request.start + size;
  const depth = rerank.depth;
  const payload = await executeSearch(catalog, { ...request, start: 0, size: Math.max(end, depth) }, context);
  const window = payload.result.slice(0, depth);
  const { order, rankedBy } = await rerank.reorder(window);
  const reordered = order.map((i) => window[i]);
  payload.result = reordered.concat(payload.result.slice(depth)).slice(request.start, end);
  return { payload, rankedBy };
}

/**
 * Runs a (validated) search request against a catalog and returns the documented payload. The
 * catalog version is read once at the start, so a concurrent upsert or replace is seen entirely or
 * not at all. Throws `AisleError('SEARCH_BAD_REQUEST')` for requests that do not fit the catalog
 * (a range over a text field, a numeric bound on a text field, a list of values on a numeric field).
 */
export async function executeSearch(catalog: Catalog, request: SearchRequest, context: SearchContext = {}): Promise<SearchPayload> {
  const state = catalog.state;
  const settings = context.settings;
  const { plan, extras } = compileSearchPlan(state, request, {
    fieldWeights: { ...catalog.options.fieldWeights, ...settings?.fieldWeights },
    synonyms: [...(catalog.options.synonyms ?? []), ...(settings?.synonyms ?? [])],
  });
  const n = state.index.docCount;
  const pool = context.pool;
  const partials = pool && !plan.matchNothing && n > 0 && n >= pool.threshold
    ? await pool.runPartials(state.index, plan)
    : [runPartial(state.index, plan, 0, n)];
  return assemblePayload(state, plan, extras, partials, request, settings);
}
