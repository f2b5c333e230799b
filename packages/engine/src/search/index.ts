/**
 * Search: request validation, execution (inline or on a worker pool) and the pool itself.
 * @module
 */
export {
  validateSearchRequest, MAX_SEARCH_SIZE, DEFAULT_SEARCH_SIZE, MAX_QUERY_LENGTH, MAX_REQUEST_FIELDS, MAX_SCOPE_VALUES,
} from './validate-search-request.js';
export { executeSearch, executeRankedSearch, type SearchContext, type RankedSearch } from './execute-search.js';
export { MAX_FACET_BUCKETS } from './assemble-payload.js';
export { SearchPool, DEFAULT_POOL_THRESHOLD, type SearchPoolOptions } from './search-pool.js';
export {
  validateRelevanceSettings, resolveRelevance, DEFAULT_TYPO_TOLERANCE, RELEVANCE_LIMITS,
  type SynonymEntry, type OneWaySynonym, type TypoToleranceSettings, type RankingSettings, type TieBreaker, type ResolvedRelevance,
} from './relevance-settings.js';
export { LANGUAGES, DEFAULT_LANGUAGE, type Language } from './language.js';
export { SCORE_FIELD } from './search-plan.js';
export { checkRulesApply } from './merchandising.js';
