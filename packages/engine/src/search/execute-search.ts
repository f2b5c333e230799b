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
import { compileMerchandising } from './merchandising.js';
import { deadDisjunctiveFields, planDisjunctive, withDisjunctiveAggregations } from './disjunctive-facets.js';
import { highlightProducts } from './highlight.js';
import { compileScope, compileSearchPlan } from './search-plan.js';
import type { SearchPool } from './search-pool.js';

/** Where and how a search runs. */
export interface SearchContext {
  /** Catalogs with at least `pool.threshold` products run on the pool; smaller ones inline. */
  pool?: SearchPool;
  /** The website's settings: field weights, synonyms, redirects and rules are used here. */
  settings?: WebsiteSettings;
  /** The time rules' `from`/`until` are compared with (ms since the epoch; default now). */
  now?: number;
}

/**
 * Runs a (validated) search request against a catalog and returns the documented payload. The
 * catalog version is read once at the start, so a concurrent upsert or replace is seen entirely or
 * not at all. Throws `AisleError('SEARCH_BAD_REQUEST')` for requests that do not fit the catalog
 * (a range over a text field, a numeric bound on a text field, a list of values on a numeric field).
 */
export async function executeSearch(catalog: Catalog, asked: SearchRequest, context: SearchContext = {}): Promise<SearchPayload> {
  const state = catalog.state;
  const settings = context.settings;
  const request = withDisjunctiveAggregations(asked);
  // A disjunctive field's condition that matches nothing (only unknown values) must not empty the
  // whole plan: it is compiled apart, as a held-back condition with no value.
  const dead = deadDisjunctiveFields(state, request, (scope) => compileScope(state, scope));
  const planned = dead.length === 0 ? request : { ...request, scope: Object.fromEntries(Object.entries(request.scope!).filter(([k]) => !dead.includes(k))) };
  const { plan, extras } = compileSearchPlan(state, planned, {
    // The website's current settings when given (they change at run time), else the catalog's options.
    fieldWeights: settings?.fieldWeights ?? catalog.options.fieldWeights,
    synonyms: settings?.synonyms ?? catalog.options.synonyms,
  });
  for (const name of dead) plan.conditions.push({ kind: 'in', field: state.fieldByName.get(name)!, codes: [] });
  if (request.disjunctive_facets && request.disjunctive_facets.length > 0) plan.disjunctive = planDisjunctive(state, request, plan);
  const merch = compileMerchandising(state, request, settings?.rules, context.now ?? Date.now(), (scope) => compileScope(state, scope));
  if (merch) {
    plan.merch = merch;
    // A pinned doc among the best is moved, not counted twice: select one more per pin.
    plan.limit += merch.pins.length;
    // No pinned doc can pass a filter that matches nothing.
    if (request.scope && compileScope(state, request.scope).nothing) merch.pins = [];
  }
  const n = state.index.docCount;
  const pool = context.pool;
  const partials = pool && !plan.matchNothing && n > 0 && n >= pool.threshold
    ? await pool.runPartials(state.index, plan)
    : [runPartial(state.index, plan, 0, n)];
  const payload = assemblePayload(state, plan, extras, partials, request, settings);
  if (request.highlight) payload.result = highlightProducts(state, plan, payload.result);
  return payload;
}
