/**
 * The recommendation operations (`engine.recommend`, `engine.bundles`): answered by the website's models
 * once the stored events are replayed, under a running recommendations experiment's variant cascade when
 * the customer is in one; the answered list remembered for clicks and, for a recommendation, logged.
 * @module
 */
import type { SearchLog, ServedRecommendation } from '../analytics/search-log.js';
import type { AnsweredList, ResultPages } from '../clicks/result-pages.js';
import { INTERLEAVED, type ExperimentService } from '../experiments/experiment-service.js';
import { resolveMethod } from '../recommend/methods.js';
import type { RecommendationModels } from '../recommend/recommendation-models.js';
import type { RecommendOptions } from '../engine-api.js';
import { customerKey } from '../contract/formats.js';
import { fieldError } from '../errors.js';
import type { ListExperiment } from '../store/store.js';
import type { BundleRequest, BundleResponse, RecommendParams, RecommendResponse } from '../types.js';

/** The engine's parts a recommendation uses. */
export interface RecommendParts {
  experiments: ExperimentService;
  searchLog: SearchLog;
  /** The answered result lists that clicks name. */
  resultPages: ResultPages;
  /** The replay of the stored events into the models: recommendations wait for its first attempt. */
  replay: { readonly firstAttempt: Promise<void>; readonly firstAttemptOver: boolean };
}

/**
 * A recommendation of `method` from a website's models (`engine.recommend`). Answered from every stored
 * event, never from part of them: before the replay's first attempt is over (seconds after the start)
 * it waits for it; after, it answers at once, not a turn of the event loop later (on every answer).
 */
export function recommend(
  parts: RecommendParts, websiteId: string, models: RecommendationModels, method: string, params: RecommendParams, options?: RecommendOptions,
): RecommendResponse | Promise<RecommendResponse> {
  const counted = isCounted(options);
  if (!parts.replay.firstAttemptOver) return parts.replay.firstAttempt.then(() => recommendNow(parts, websiteId, models, method, params, counted));
  return recommendNow(parts, websiteId, models, method, params, counted);
}

/**
 * `options.counted` of {@link recommend} (null or absent options: counted). A misspelt or mistyped
 * option is refused, not read as the default: a host that meant not to count would count silently.
 */
function isCounted(options: RecommendOptions | null | undefined): boolean {
  if (options === undefined || options === null) return true;
  if (typeof options !== 'object' || Array.isArray(options)) throw fieldError('RECOMMEND_BAD_PARAMS', 'options', 'must be an object');
  for (const key of Object.keys(options)) if (key !== 'counted') throw fieldError('RECOMMEND_BAD_PARAMS', `options.${key}`, 'is not a known option (known: counted)');
  const { counted } = options;
  if (counted !== undefined && counted !== null && typeof counted !== 'boolean') throw fieldError('RECOMMEND_BAD_PARAMS', 'options.counted', 'must be true or false');
  return counted !== false;
}

/** {@link recommend} once the replay's first attempt is over; `counted`: logged as served (see RecommendOptions). */
function recommendNow(
  parts: RecommendParts, websiteId: string, models: RecommendationModels, method: string, params: RecommendParams, counted: boolean,
): RecommendResponse {
  // Canonical spelling of the method, however the path spelled it (segments are case-insensitive).
  const methodName = resolveMethod(method).name;
  // Read before the parameters are checked (models.recommend checks them): `params` may be missing or
  // not an object when a library caller passes one, and only a string names a customer.
  const given = params?.customerId;
  // Keyed as events key it (a GUID in lower case), so that an experiment's variant and the answered list join them.
  const customerId = typeof given === 'string' && given !== '' ? customerKey(given) : null;
  // A customer in a running recommendations experiment gets their variant's cascade for the methods it names.
  const assignment = parts.experiments.assign(websiteId, 'recommendations', customerId ?? undefined);
  const variant = assignment === undefined || assignment.variant === INTERLEAVED ? undefined : assignment.variant;
  const cascade = assignment === undefined || variant === undefined ? undefined : parts.experiments.variantTactics(assignment.experiment, variant, methodName);
  const list = models.recommend(method, params, cascade);
  const experiment: ListExperiment | undefined = assignment === undefined || variant === undefined
    ? undefined : { id: assignment.experiment.id, variant: assignment.experiment.variants[variant]!.name, customerId: customerId! };
  // One id for the response: the list clicks name, and the analytics log. The experiment is set, not
  // spread in (`...(x && { experiment })` copies through V8's slow path, on every answer).
  const answered: AnsweredList = {
    websiteId, kind: 'recommendation', source: methodName, variant: experiment?.variant ?? null, customerId, sessionId: customerId,
    firstPosition: 1, refIds: list.payload,
  };
  if (experiment !== undefined) answered.experiment = experiment;
  const queryId = parts.resultPages.record(answered);
  if (counted) {
    const served: ServedRecommendation = { queryId, method: methodName, tactics: list.slots.map((slot) => slot.tacticLabel) };
    if (experiment !== undefined) served.experiment = experiment;
    parts.searchLog.recordServed(websiteId, served);
  }
  // Added to the model's fresh answer rather than spread into a new object: `{ ...list, queryId }` takes V8's
  // slow path, ~0.5 µs an answer (decisions/0046).
  const response: RecommendResponse = Object.assign(list, { queryId });
  if (experiment !== undefined) response.experiment = { id: experiment.id, variant: experiment.variant };
  return response;
}

/** Bundles from a website's models (`engine.bundles`). */
export async function bundles(parts: RecommendParts, websiteId: string, models: RecommendationModels, body: BundleRequest): Promise<BundleResponse> {
  await parts.replay.firstAttempt;
  const answer = models.bundles(body);
  // Positions run over every bundle's RefIds in order (documented in docs/http-api.md).
  const refIds = answer.payload.flat();
  const queryId = parts.resultPages.record({
    websiteId, kind: 'recommendation', source: 'bundle', variant: null, customerId: null, sessionId: null,
    firstPosition: 1, refIds,
  });
  // Counted as served like any recommendation (method "bundle"): the report showed clicks on bundles
  // that it never counted as served (served 0, ctr 0 beside a click). Its items carry no tactic label.
  parts.searchLog.recordServed(websiteId, { queryId, method: 'bundle', tactics: [], items: refIds.length });
  return Object.assign(answer, { queryId });
}
