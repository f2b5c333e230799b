/**
 * The bundle call as pure functions: body validation and the assembly of bundles from ranked
 * companions. (Companion ranking needs the models; see `RecommendationModels.bundles`.)
 *
 * Body: the contract's `BundleRequest` (contract/schemas.ts: limits, defaults); `count` must also be
 * larger than the number of distinct inputs. Repeated input RefIds count once.
 *
 * Assembly: with k = count − inputs companions per bundle and the companions ranked best first, bundle
 * b holds the inputs, the top k−1 companions and the (k−1+b)-th one, so bundles differ in (exactly) one
 * companion and the best bundle comes first. There are min(setCount, companions − k + 1) bundles; when
 * fewer than k companions exist there is one bundle with all of them; with none, the payload is empty.
 * @module
 */
import { fieldError } from '../errors.js';

/** A validated bundle body. */
export interface CheckedBundleBody {
  productRefIds: string[];
  setCount: number;
  count: number;
  filterOutOfStock: boolean;
}

export { MAX_SET_COUNT, MAX_BUNDLE_COUNT } from '../contract/limits.js';
import { DEFAULT_SET_COUNT, MAX_BUNDLE_COUNT } from '../contract/limits.js';
import type { BundleRequest } from '../contract/schemas.js';
import { checkAgainst } from '../contract/validate.js';

function bad(field: string, problem: string): never {
  throw fieldError('RECOMMEND_BAD_PARAMS', field, problem);
}

/**
 * Validates a bundle body against the contract's `BundleRequest` schema, then the one rule a schema
 * cannot state (`count` larger than the number of distinct inputs); throws `RECOMMEND_BAD_PARAMS`
 * naming the field. `null` is not a value of an optional field (as on the wire; ADR 0017).
 */
export function checkBundleBody(body: unknown): CheckedBundleBody {
  const b = checkAgainst<BundleRequest>('BundleRequest', body, bad, { self: 'body' });
  const productRefIds = [...new Set(b.product_ref_ids)];
  // A bundle holds the inputs and at least one companion within MAX_BUNDLE_COUNT items: with as many
  // distinct inputs as that, the default count (one more) made larger bundles and any count given failed.
  if (productRefIds.length >= MAX_BUNDLE_COUNT) {
    bad('product_ref_ids', `must name at most ${MAX_BUNDLE_COUNT - 1} distinct RefIds (a bundle holds at most ${MAX_BUNDLE_COUNT} items: the inputs and a companion)`);
  }
  if (b.count !== undefined && b.count <= productRefIds.length) {
    bad('count', `must be larger than the number of distinct product_ref_ids (${productRefIds.length})`);
  }
  return {
    productRefIds, setCount: b.setCount ?? DEFAULT_SET_COUNT, count: b.count ?? productRefIds.length + 1, filterOutOfStock: b.filter_out_of_stock === true,
  };
}

/** Builds the bundles from the inputs and the ranked companions (see the module notes). */
export function assembleBundles<T>(inputs: readonly T[], companions: readonly T[], perBundle: number, setCount: number): T[][] {
  if (companions.length === 0 || perBundle <= 0) return [];
  if (companions.length < perBundle) return [[...inputs, ...companions]];
  const core = companions.slice(0, perBundle - 1);
  const bundles: T[][] = [];
  for (let b = 0; b < setCount && perBundle - 1 + b < companions.length; b++) bundles.push([...inputs, ...core, companions[perBundle - 1 + b]!]);
  return bundles;
}
