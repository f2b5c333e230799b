/**
 * The bundle call as pure functions: body validation and the assembly of bundles from ranked
 * companions. (Companion ranking needs the models; see `RecommendationModels.bundles`.)
 *
 * Body: `product_ref_ids` (non-empty array of non-empty strings, at most 100), `setCount` (integer
 * 1..20, default 1), `count` (integer, items per bundle including the inputs, default
 * 1 + product_ref_ids.length, at most 100, and larger than the number of inputs), `filter_out_of_stock`
 * (boolean, default false). Repeated input RefIds count once.
 *
 * Assembly: with k = count − inputs companions per bundle and the companions ranked best first, bundle
 * b holds the inputs, the top k−1 companions and the (k−1+b)-th one, so bundles differ in (exactly) one
 * companion and the best bundle comes first. There are min(setCount, companions − k + 1) bundles; when
 * fewer than k companions exist there is one bundle with all of them; with none, the payload is empty.
 * @module
 */
import { AisleError } from '../errors.js';

/** A validated bundle body. */
export interface CheckedBundleBody {
  productRefIds: string[];
  setCount: number;
  count: number;
  filterOutOfStock: boolean;
}

export { MAX_SET_COUNT, MAX_BUNDLE_COUNT } from '../contract/limits.js';
import { MAX_SET_COUNT, MAX_BUNDLE_COUNT } from '../contract/limits.js';

function bad(field: string, problem: string): never {
  throw new AisleError('RECOMMEND_BAD_PARAMS', `${field} ${problem}`, { details: { param: field } });
}

/** Validates a bundle body; throws `RECOMMEND_BAD_PARAMS` naming the field. */
export function checkBundleBody(body: unknown): CheckedBundleBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) bad('body', 'must be a JSON object');
  const b = body as Record<string, unknown>;
  const ids = b.product_ref_ids;
  if (!Array.isArray(ids) || ids.length === 0) bad('product_ref_ids', 'must be a non-empty array of RefId strings');
  if (ids.length > MAX_BUNDLE_COUNT) bad('product_ref_ids', `must hold at most ${MAX_BUNDLE_COUNT} RefIds`);
  ids.forEach((v, i) => {
    if (typeof v !== 'string' || v === '') bad(`product_ref_ids[${i}]`, 'must be a non-empty string');
  });
  const productRefIds = [...new Set(ids as string[])];
  let setCount = 1;
  if (b.setCount !== undefined && b.setCount !== null) {
    if (typeof b.setCount !== 'number' || !Number.isInteger(b.setCount) || b.setCount < 1 || b.setCount > MAX_SET_COUNT) {
      bad('setCount', `must be an integer from 1 to ${MAX_SET_COUNT}`);
    }
    setCount = b.setCount;
  }
  let count = productRefIds.length + 1;
  if (b.count !== undefined && b.count !== null) {
    if (typeof b.count !== 'number' || !Number.isInteger(b.count) || b.count > MAX_BUNDLE_COUNT) {
      bad('count', `must be an integer of at most ${MAX_BUNDLE_COUNT}`);
    }
    if (b.count <= productRefIds.length) bad('count', `must be larger than the number of product_ref_ids (${productRefIds.length})`);
    count = b.count;
  }
  const f = b.filter_out_of_stock;
  if (f !== undefined && f !== null && typeof f !== 'boolean') bad('filter_out_of_stock', 'must be true or false');
  return { productRefIds, setCount, count, filterOutOfStock: f === true };
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
