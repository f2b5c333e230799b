/**
 * The catalog's write operations on one website (upsert, replace, patch, delete, bulk delete): into the
 * store's shared catalogs when replicas share them, else into the website's catalog, whose change
 * schedules a snapshot and tells the semantic models.
 * @module
 */
import type { FailureReporter } from '../background-failures.js';
import { parseBulkDeleteRequest } from '../catalog/input/bulk-delete-request.js';
import type { LoadOptions, LoadSummary, ProductSource } from '../engine-api.js';
import { AisleError, fieldError, isAisleError } from '../errors.js';
import { parseValidCondition } from '../search/conditions.js';
import { refIdsInScope } from '../search/scope-refids.js';
import type { SharedCatalogs } from '../store/shared-catalogs.js';
import type { BulkDeleteResult } from '../types.js';
import { scheduleSnapshot } from './catalog-files.js';
import type { WebsiteState } from './website-state.js';

/** The website a write goes to, and where its catalog lives. */
export interface CatalogWriteTarget {
  state: WebsiteState;
  /** The store's shared catalogs, when replicas share them (they hold the catalog then). */
  shared: SharedCatalogs | undefined;
  /** Where a failed snapshot write goes. */
  reporter: FailureReporter;
}

/**
 * The load options a library caller passed, checked: a misspelt `onError` (`'skipp'`) used to load as
 * `'reject'` without a word, which is not what the caller asked for.
 */
function checkLoadOptions(options: LoadOptions | undefined): void {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') throw new AisleError('CATALOG_BAD_INPUT', 'catalog: the load options must be an object');
  const { onError, onProgress } = options;
  if (onError !== undefined && onError !== 'skip' && onError !== 'reject') {
    throw new AisleError('CATALOG_BAD_INPUT', `catalog: onError must be "skip" or "reject" (got ${JSON.stringify(onError) ?? String(onError)})`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new AisleError('CATALOG_BAD_INPUT', 'catalog: onProgress must be a function');
  const { maxUnzippedBytes } = options;
  if (maxUnzippedBytes !== undefined && !(Number.isSafeInteger(maxUnzippedBytes) && maxUnzippedBytes > 0)) {
    throw new AisleError('CATALOG_BAD_INPUT', `catalog: maxUnzippedBytes must be a positive integer (got ${String(maxUnzippedBytes)})`);
  }
}

/** Loads products into the catalog: merged over what it holds (`upsert`) or in place of it (`replace`). */
async function loadProducts(target: CatalogWriteTarget, kind: 'upsert' | 'replace', products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
  checkLoadOptions(options);
  const { state, shared } = target;
  if (shared) return shared[kind](state.config.websiteId, products, options);
  const summary = await state.catalog[kind](products, options);
  scheduleSnapshot(state, target.reporter);
  state.semantics.catalogChanged();
  return summary;
}

export function upsertProducts(target: CatalogWriteTarget, products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
  return loadProducts(target, 'upsert', products, options);
}

export function replaceProducts(target: CatalogWriteTarget, products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
  return loadProducts(target, 'replace', products, options);
}

export async function patchProducts(target: CatalogWriteTarget, patches: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
  checkLoadOptions(options);
  const { state, shared } = target;
  if (shared) return shared.patch(state.config.websiteId, patches, options);
  const summary = await state.catalog.patch(patches, options);
  if (summary.loaded > 0) scheduleSnapshot(state, target.reporter);
  return summary;
}

export async function deleteProducts(target: CatalogWriteTarget, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }> {
  const { state, shared } = target;
  if (!Array.isArray(refIds) || refIds.some((id) => typeof id !== 'string')) {
    throw new AisleError('CATALOG_BAD_INPUT', 'refIds must be an array of strings');
  }
  if (shared) return shared.delete(state.config.websiteId, refIds);
  const result = await state.catalog.delete(refIds);
  if (result.deleted > 0) {
    scheduleSnapshot(state, target.reporter);
    state.semantics.catalogChanged();
  }
  return result;
}

/** Deletes the products a bulk delete body names (by refId, or every product in a scope). */
export async function bulkDeleteProducts(target: CatalogWriteTarget, body: unknown): Promise<BulkDeleteResult> {
  const { state } = target;
  const request = parseBulkDeleteRequest(body);
  // `{not: []}` excludes nothing (the condition algebra's `all`): a scope of only such conditions selects
  // every product, as `{}` does, which the parse refuses; a form that clears its last filter sends it.
  if ('scope' in request && Object.values(request.scope).every((c) => parseValidCondition(c).op === 'all')) {
    throw fieldError('CATALOG_BAD_INPUT', 'scope', 'must filter something: {"not": []} excludes nothing, so this scope would select every product');
  }
  const catalog = state.catalog;
  let refIds: string[];
  try {
    refIds = 'refIds' in request ? request.refIds : refIdsInScope(catalog.state, request.scope, catalog.fieldTypes, state.config.settings?.hierarchies);
  } catch (err) {
    // A scope that does not fit the catalog is a bad delete body, worded as such.
    if (!isAisleError(err) || err.code !== 'SEARCH_BAD_REQUEST') throw err;
    throw new AisleError('CATALOG_BAD_INPUT', err.message.replace(/^search request: /, 'catalog: '), { details: err.details, cause: err });
  }
  // As this replica holds the catalog now; on PostgreSQL the log decides what is deleted (a product
  // created through another replica a moment ago is deleted though not yet known here).
  const notFound = 'refIds' in request ? refIds.filter((refId) => !catalog.has(refId)) : [];
  if (refIds.length === 0) return { deleted: 0, notFound };
  const { deleted } = await deleteProducts(target, refIds);
  return { deleted, notFound };
}
