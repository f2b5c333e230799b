/**
 * The search operation (`engine.search`, and the ranking a settings preview runs): a validated request
 * routed to its website's effective settings (the website's, or a running experiment's variant), ranked
 * (text match, re-rank stages, merchandising), then answered: the page remembered for clicks, the
 * search logged, its completions added. The engine holds one and delegates to it.
 * @module
 */
import type { FailureReporter } from '../background-failures.js';
import { personalizationWeight, semanticSearchOf, type WebsiteSettings } from '../config.js';
import type { SearchOptions } from '../engine-api.js';
import { AisleError } from '../errors.js';
import { suggestionSettingsOf } from '../analytics/analytics-settings.js';
import { logQuery, type SearchLog } from '../analytics/search-log.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { DEFAULT_FIELD_WEIGHTS } from '../catalog/field-values.js';
import type { ResultPages } from '../clicks/result-pages.js';
import { customerKey } from '../contract/formats.js';
import { DEFAULT_SEARCH_SIZE, MAX_SEARCH_SIZE } from '../contract/limits.js';
import type { SearchPayload } from '../contract/schemas.js';
import { assignmentPoint } from '../experiments/assignment.js';
import { INTERLEAVED, type ExperimentService } from '../experiments/experiment-service.js';
import { teamDraftInterleave } from '../experiments/interleaving.js';
import { Random } from '../util/seeded-random.js';
import type { ClickLearner } from '../learning/click-learner.js';
import { clickRankingOf } from '../learning/click-ranking-settings.js';
import { affinityOf, affinityProfile, affinityRolesOf } from '../search/personalize.js';
import { makeReranker, type RankStage, type RerankInputs } from '../search/rerank.js';
import { executeRankedSearch, executeSearch, type RankedSearch, type SearchPool } from '../search/index.js';
import type { ExperimentRecord, ListExperiment } from '../store/store.js';
import type { Product, SearchRequest, SearchResponse } from '../types.js';
import { NO_SETTINGS, type WebsiteState } from './website-state.js';

/** The engine's parts a search uses. */
export interface SearchParts {
  experiments: ExperimentService;
  searchLog: SearchLog;
  /** The answered result lists that clicks name. */
  resultPages: ResultPages;
  /** What shoppers' clicks and purchases taught (click ranking, `_popularity`). */
  learner: ClickLearner;
  /** The replay of the stored events into the models: personalised searches wait for its first attempt. */
  replay: { readonly firstAttempt: Promise<void> };
  pool: SearchPool | undefined;
  reporter: FailureReporter;
}

/**
 * A shopper's search of a website (`engine.search`), validated: routed to its settings (a running
 * search experiment's variant for a customer in one), ranked and answered.
 */
export async function search(parts: SearchParts, state: WebsiteState, request: SearchRequest, options: SearchOptions = {}): Promise<SearchResponse> {
  if (request.client !== state.config.client) {
    throw new AisleError('CLIENT_NOT_FOUND', `client "${request.client}" does not belong to website "${request.website_id}"`);
  }
  // The customer as events key it (a GUID in lower case: contract/formats.ts), for personalization, the
  // experiment's variant, the session and the answered list alike; a copy only when that changes it.
  const customer = request.customer_id;
  if (typeof customer === 'string' && customerKey(customer) !== customer) request = { ...request, customer_id: customerKey(customer) };
  // One object while a website has none: a variant's merged settings are cached per settings object.
  const settings = state.config.settings ?? NO_SETTINGS;
  // A customer in a running search experiment is served under their variant's settings (docs/experiments.md).
  const assignment = parts.experiments.assign(request.website_id, 'search', request.customer_id);
  if (assignment === undefined) return searchWith(parts, state, request, settings, options);
  const { experiment, variant } = assignment;
  const customerId = request.customer_id!;
  if (variant === INTERLEAVED) {
    const [a, b] = [0, 1].map((i) => parts.experiments.variantSettings(request.website_id, experiment, i, settings));
    if (a === null || b === null) return searchWith(parts, state, request, settings, options);
    return searchInterleaved(parts, state, request, [a, b], options, experiment, customerId);
  }
  const variantSettings = parts.experiments.variantSettings(request.website_id, experiment, variant, settings);
  if (variantSettings === null) return searchWith(parts, state, request, settings, options);
  return searchWith(parts, state, request, variantSettings, options, { id: experiment.id, variant: experiment.variants[variant]!.name, customerId });
}

/**
 * A validated search of a website run under the given effective settings (the website's, an
 * experiment variant's): ranked, remembered for clicks, logged, with its completions.
 * `experiment` tags the response and its logged page.
 */
async function searchWith(
  parts: SearchParts, state: WebsiteState, request: SearchRequest, settings: WebsiteSettings, options: SearchOptions, experiment?: ListExperiment,
): Promise<SearchResponse> {
  const { payload, rankedBy, stages } = await rankSearch(parts, state, request, settings, options);
  return answerSearch(parts, state, request, settings, options, payload, rankedBy, experiment, stages);
}

/**
 * The ranked page of a validated search under `settings`, nothing remembered or logged: what a
 * shopper's search answers before it is recorded, and all a settings preview is (not a shopper's search).
 */
export async function rankSearch(
  parts: SearchParts, state: WebsiteState, request: SearchRequest, settings: WebsiteSettings, options: SearchOptions,
): Promise<RankedSearch> {
  const personalization = personalizationWeight(settings.personalization);
  // The spec: customer_id is "required only when personalization is enabled" (the wire contract).
  if (personalization !== undefined && !request.customer_id) {
    throw new AisleError('SEARCH_BAD_REQUEST', 'customer_id is required: personalization is enabled for this website');
  }
  const inputs: RerankInputs = {};
  const semantic = semanticSearchOf(settings.semanticSearch);
  if (semantic && tokenize(request.q).length > 0) {
    inputs.semantic = {
      weight: semantic.weight,
      scores: async (candidates, revisions) => {
        const weights = { ...state.catalog.options.fieldWeights, ...settings.fieldWeights };
        try {
          const scored = await state.semantics.scores(semantic.model, request.q, candidates, revisions, (f) => weights[f] ?? DEFAULT_FIELD_WEIGHTS[f] ?? 1);
          return scored && { label: `${scored.model.id}@${scored.model.version}`, similarities: scored.similarities };
        } catch (err) {
          // A failing embedder (a remote model down, a contract broken) must not take search down: the
          // plain order is served, without `ats_model` (the model did not rank), and the failure is reported.
          parts.reporter.report('semantic-embedding', err, state.config.websiteId);
          return undefined;
        }
      },
    };
  }
  if (personalization !== undefined && request.customer_id) {
    // The shopper's history is complete only once the stored events are replayed.
    await parts.replay.firstAttempt;
    // Keyed here too: a settings preview ranks its body's search without passing through search().
    const activity = state.models.customerActivity(customerKey(request.customer_id));
    const catalogState = state.catalog.state;
    const profile = activity && affinityProfile(activity, (refId) => {
      const doc = catalogState.docByRefId.get(refId);
      return doc === undefined ? undefined : catalogState.store.get(doc);
    }, affinityRolesOf(settings.fieldRoles));
    if (profile) inputs.personalization = { weight: personalization, affinity: (p) => affinityOf(profile, p) };
  }
  const clickRanking = clickRankingOf(settings.clickRanking);
  if (clickRanking !== undefined) inputs.clicks = parts.learner.clickStage(request.website_id, logQuery(request.q), clickRanking, parts.searchLog);
  return executeRankedSearch(state.catalog, request, {
    pool: parts.pool, settings, rerank: makeReranker(inputs), forcedScope: options.forcedScope,
    onRuleProblem: (problem) => parts.reporter.warn('merchandising-rule', problem, state.config.websiteId),
    popularity: (catalogState) => parts.learner.popularityValues(request.website_id, catalogState),
  });
}

/**
 * An interleaving experiment's search: both variants rank the results down to the end of the page, the
 * two rankings are merged by team draft (its coin seeded by the experiment, the customer and the query,
 * so every page of one search and a repeated search interleave alike) and the page is cut from the
 * merged list; the page remembers which variant placed each item, so a click credits that variant.
 * Totals, facets and suggestions are the first variant's (the control: the same products match).
 */
async function searchInterleaved(
  parts: SearchParts, state: WebsiteState, request: SearchRequest, settings: [WebsiteSettings, WebsiteSettings], options: SearchOptions,
  experiment: ExperimentRecord, customerId: string,
): Promise<SearchResponse> {
  const depth = Math.min(request.start + (request.size ?? DEFAULT_SEARCH_SIZE), MAX_SEARCH_SIZE);
  const deep = { ...request, start: 0, size: depth };
  const [a, b] = await Promise.all(settings.map((s) => rankSearch(parts, state, deep, s, options)));
  const byRefId = new Map<string, Product>();
  for (const p of [...b!.payload.result, ...a!.payload.result]) byRefId.set(p.refId, p);
  const coin = new Random(Math.floor(assignmentPoint(experiment.id, `${customerId}\u0000${logQuery(request.q)}`) * 2 ** 32));
  const merged = teamDraftInterleave(a!.payload.result.map((p) => p.refId), b!.payload.result.map((p) => p.refId), depth, () => coin.next());
  const end = request.start + (request.size ?? DEFAULT_SEARCH_SIZE);
  const names = experiment.variants.map((v) => v.name);
  const payload: SearchPayload = { ...a!.payload, result: merged.items.slice(request.start, end).map((refId) => byRefId.get(refId)!) };
  const teams = [...merged.teams.slice(request.start, end)].map((t) => names[t]!);
  return answerSearch(parts, state, request, settings[0], options, payload, a!.rankedBy ?? b!.rankedBy, { id: experiment.id, variant: INTERLEAVED, customerId, teams });
}

/** Remembers a ranked page for clicks, logs it, adds completions and makes the response. */
async function answerSearch(
  parts: SearchParts, state: WebsiteState, request: SearchRequest, settings: WebsiteSettings, options: SearchOptions, payload: SearchPayload,
  rankedBy: string | undefined, experiment: ListExperiment | undefined, stages: readonly RankStage[] = [],
): Promise<SearchResponse> {
  // A search's session: its session_id, else its customer_id (an empty one is none).
  const session = request.session_id || request.customer_id || undefined;
  // One id for the page: the list clicks name, and the analytics log.
  const queryId = parts.resultPages.record({
    websiteId: request.website_id, kind: 'search', source: logQuery(request.q), variant: experiment?.variant ?? null,
    customerId: request.customer_id || null, sessionId: session ?? null,
    firstPosition: request.start + 1, refIds: payload.result.map((p) => p.refId), ...(experiment !== undefined && { experiment }),
  });
  // The first page of a query is one search for the log (paging through it is not another).
  if (request.start === 0) {
    parts.searchLog.record(request.website_id, {
      queryId, q: request.q, session, totalResults: payload.total_results,
      ...(experiment !== undefined && { experiment: { id: experiment.id, variant: experiment.variant, customerId: experiment.customerId } }),
    });
  }
  // Through a key with a forced scope, a completion is offered only when it has results within it.
  const scope = options.forcedScope;
  const suggestionSettings = suggestionSettingsOf(settings);
  const queries = scope === undefined || Object.keys(scope).length === 0
    ? parts.searchLog.suggestionsNow(request.website_id, request.q, state.catalog.state, suggestionSettings)
    : await parts.searchLog.suggestions(request.website_id, request.q, state.catalog.state, suggestionSettings, async (q: string) => {
      const found = await executeSearch(state.catalog, { website_id: request.website_id, client: request.client, q, scope, start: 0, size: 0 }, { settings });
      // Products matching only some of the words are a fallback, not results of the completion.
      return found.total_results > 0 && found.suggestions.dropped_words === undefined;
    });
  if (queries.length > 0) payload.suggestions.queries = queries;
  const response: SearchResponse = { type: 1, query_id: queryId, payload };
  if (rankedBy !== undefined || stages.length > 0) {
    response.settings = { ...(rankedBy !== undefined && { ats_model: rankedBy }), ...(stages.length > 0 && { ranked_by: [...stages] }) };
  }
  if (experiment !== undefined) response.settings = { ...response.settings, experiment: { id: experiment.id, variant: experiment.variant } };
  return response;
}
