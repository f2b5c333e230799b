/**
 * Recommendations: the per-website models and the pure pieces they are made of (see
 * docs/recommendations.md).
 * @module
 */
export { RecommendationModels, DEFAULT_TUNING, type RecommendationModelsOptions, type RecommendationTuning } from './recommendation-models.js';
export { METHODS, TacticLabels, resolveMethod, checkParams, DEFAULT_COUNT, MAX_COUNT, type MethodSpec, type TacticKey, type CheckedParams } from './methods.js';
export { runFill, cleanCandidates, type Scored, type Tactic, type CascadeOptions, type CascadeOutcome, type Picked } from './cascade.js';
export {
  signRetailMediaSlot, placeSponsored, chooseSponsored, buildSlots, boostCampaigns, productCategories, recommenderIdOf, tacticIdOf,
  RETAIL_MEDIA_LABEL, DEFAULT_SLOT_POSITION,
} from './slots.js';
export { checkBundleBody, assembleBundles, MAX_SET_COUNT, MAX_BUNDLE_COUNT, type CheckedBundleBody } from './bundles.js';
export { ATTRIBUTE_WEIGHTS, productFeatures } from './attribute-similarity.js';
