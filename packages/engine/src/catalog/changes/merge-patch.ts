/**
 * Partial product updates: JSON Merge Patch (RFC 7396) of each patch record into the stored product
 * with the same refId. Pure functions; the catalog feeds the merged, whole products to its usual
 * upsert path, so a patch that only changes numbers still takes the value-patch fast path
 * (`patch-values.ts`).
 * @module
 */
import type { SkippedLine } from '../../engine-api.js';
import { AisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { productProblem } from '../input/product-limits.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * RFC 7396: a patch that is not an object replaces the target; an object patch merges key by key into
 * a copy of the target (a non-object target counts as `{}`), `null` removing the key. The target is
 * never modified. Keys are defined as own data properties, so a `"__proto__"` key in the JSON stays a
 * plain field and never reaches a prototype.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isPlainObject(target)) {
    for (const key of Object.keys(target)) define(result, key, target[key]);
  }
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete result[key];
    else define(result, key, mergePatch(Object.prototype.hasOwnProperty.call(result, key) ? result[key] : undefined, value));
  }
  return result;
}

function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Whether merging `patch` into `base` can make a product larger than either was: only a new field or a
 * text, list or object value can. Changes of numbers and booleans of known fields, and removals, cannot:
 * a value patch of a million prices is not walked again (patch-values.ts keeps it at milliseconds).
 */
function mayGrow(base: Product, patch: Product): boolean {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) continue;
    if ((typeof value === 'number' || typeof value === 'boolean') && Object.hasOwn(base, key)) continue;
    if (key === 'refId') continue;
    return true;
  }
  return false;
}

/** The merged products of a patch batch, and the records it skipped. */
export interface MergedPatches {
  /** Whole products, one per patch applied, in patch order (a refId patched twice appears twice, the later merged over the earlier). */
  products: Product[];
  skipped: SkippedLine[];
}

/**
 * Merges each patch (a partial product with `refId`) into the product `lookup` finds for its refId.
 * A refId the catalog does not hold is an error for that record: with `onError: 'reject'` the whole
 * batch is refused (`CATALOG_BAD_INPUT` naming the record; nothing changes), with `'skip'` the record
 * is listed in `skipped`. `positions[i]` is patch i's 1-based record number in the request. Pure.
 */
export function mergeProductPatches(
  patches: readonly Product[], positions: readonly number[], lookup: (refId: string) => Product | undefined, onError: 'reject' | 'skip',
): MergedPatches {
  const products: Product[] = [];
  const skipped: SkippedLine[] = [];
  // Earlier patches of this batch, so a refId patched twice merges the second over the first.
  const merged = new Map<string, Product>();
  patches.forEach((patch, i) => {
    const refId = patch.refId;
    const base = merged.get(refId) ?? lookup(refId);
    const line = positions[i] ?? i + 1;
    if (base === undefined) {
      const message = `record ${line}: no product with refId ${JSON.stringify(refId)} to patch (PUT creates products)`;
      if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line, refId } });
      skipped.push({ line, message });
      return;
    }
    const product = mergePatch(base, patch) as Product;
    // Each record was checked alone; stored and patched together they may pass a limit (fields, characters).
    const problem = mayGrow(base, patch) ? productProblem(product) : undefined;
    if (problem !== undefined) {
      const message = `record ${line}: the patched product would be past a product limit: ${problem}`;
      if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line, refId } });
      skipped.push({ line, message });
      return;
    }
    merged.set(refId, product);
    products.push(product);
  });
  return { products, skipped };
}
