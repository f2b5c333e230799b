/**
 * The products a scope selects, as a search with that scope and no query selects them: the scope is
 * compiled and run by the search plan itself (one reading of scope syntax and field kinds), over the
 * whole catalog version, in product order. Used by bulk deletes by scope.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import type { FieldTypes } from '../catalog/field-types.js';
import type { ScopeConditions } from '../types.js';
import type { HierarchySetting } from '../contract/settings-schema.js';
import { runPartial } from './run-partial.js';
import { compileSearchPlan } from './search-plan.js';

/**
 * The refIds of the live products of `state` that `scope` selects; `fieldTypes`: the website's pinned
 * types; `hierarchies`: its hierarchies (a key naming one keeps the products at or below its paths). A
 * scope that does not fit the catalog (a range on a text field…) throws `SEARCH_BAD_REQUEST` as in a search.
 */
export function refIdsInScope(
  state: CatalogState, scope: ScopeConditions, fieldTypes: FieldTypes | undefined, hierarchies?: Readonly<Record<string, HierarchySetting>>,
): string[] {
  const docCount = state.index.docCount;
  // A page as large as the catalog: every selected product, in product order (no query, no sort keys).
  const { plan } = compileSearchPlan(state, { website_id: '', client: '', q: '', start: 0, size: docCount, scope }, undefined, { fieldTypes, hierarchies });
  const { topDocs } = runPartial(state.index, plan, 0, docCount);
  const refIdOf = state.store.fieldReader('refId');
  return Array.from(topDocs, (d) => refIdOf(d) as string);
}
