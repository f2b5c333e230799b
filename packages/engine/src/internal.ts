/**
 * `@aisle/engine/internal`: the engine's inner pieces that the benchmarks (packages/bench) measure and
 * that tests drive directly, and the pieces the HTTP adapter shares with the engine (makeDataDirectory). Imported statically, so renaming one of them is a type error in the bench
 * rather than a row that silently goes "not measured". No stability promise: applications use the
 * public entry point `@aisle/engine`.
 * @module
 */
export { Catalog, type CatalogOptions } from './catalog/catalog.js';
export { saveCatalogSnapshot, loadCatalogSnapshot } from './catalog/durability/snapshot.js';
export { tokenize, foldText } from './catalog/full-text/tokenizer.js';
export { RecentMemo } from './util/recent-memo.js';
export { readProductFeed, type FeedReadOptions } from './catalog/input/feed-reader.js';
export { SkipReport } from './catalog/input/skip-report.js';
export { StoredJson } from './catalog/columns/stored-json.js';
export { andInto, andNotInto, bitsetWords, popcount } from './catalog/columns/bitset.js';
export { growableSharedBytes } from './catalog/columns/shared-arrays.js';
export { validateSearchRequest } from './search/validate-search-request.js';
export { executeSearch, executeRankedSearch, type SearchContext } from './search/execute-search.js';
export { makeReranker, blendOrder, type RerankInputs } from './search/rerank.js';
export { affinityProfile, affinityOf, DEFAULT_AFFINITY_ROLES } from './search/personalize.js';
export { trainTextModel, TextModel } from './semantic/text-model.js';
export { compileSearchPlan, type SearchPlan } from './search/search-plan.js';
export { runPartial, type PartialResult } from './search/run-partial.js';
export { TopK, type DocComparator } from './search/top-k.js';
export { boundedOsaDistance } from './search/typo.js';
export { SearchPool, DEFAULT_POOL_THRESHOLD, poolRanges, type SearchPoolOptions } from './search/search-pool.js';
export { termDocBits } from './search/term-docs.js';
export { NeighbourTable } from './recommend/neighbour-table.js';
export { lessRedundant } from './recommend/redundancy.js';
export { Interner } from './recommend/interner.js';
export { RecommendationModels, DEFAULT_TUNING, type RecommendationModelsOptions, type RecommendationTuning } from './recommend/recommendation-models.js';
export { VisualSimilarity } from './recommend/visual-similarity.js';
export { MapCatalog } from './recommend/map-catalog.js';
export { objectProductList } from './catalog/columns/product-store.js';
export { EventService, type EventServiceOptions, type EventSink, type ResultListLookup } from './events/event-service.js';
export { validatePurchaseRequest, type ValidPurchaseRequest } from './events/validate-purchases.js';
export { validateViewRequest, type ValidViewRequest } from './events/validate-views.js';
export { validateClickRequest, type ValidClickRequest } from './events/validate-clicks.js';
export { ResultPages, type AnsweredList, type ResultPagesOptions } from './clicks/result-pages.js';
export { MemoryStore } from './store/memory-store.js';
export { SearchLog, type LoggedSearch } from './analytics/search-log.js';
export { openStore } from './store/open-store.js';
export type { AnalyticsBatch, AnalyticsKind, RollupDelta } from './store/store.js';
export {
  proportionEstimate, meanEstimate, ratioEstimate, twoProportionTest, welchTest, ratioTest, minUsersForRate, signTest, withHorizon, type UserSums, type RatioSums, type Comparison, type Estimate,
} from './experiments/statistics.js';
export { teamDraftInterleave, preferredTeam, type Interleaved } from './experiments/interleaving.js';
export { assignVariant } from './experiments/assignment.js';
export { abReport, experimentReport } from './experiments/experiment-report.js';
export { experimentKind } from './analytics/search-log.js';
export { ClickEvidence, type EvidenceEvent } from './learning/click-evidence.js';
export { BehaviourPopularity } from './learning/behaviour-popularity.js';
export { makeDataDirectory } from './config.js';
