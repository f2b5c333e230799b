/**
 * The structures derived from a catalog version (hierarchies, sort ranks, key orders, numeric
 * orders), passed on to the version that replaces it, so that no search after a change waits for
 * one to be derived from scratch on the event loop (docs/decisions/0049-derived-lookups-carried.md):
 * - a version made by a fast path (an append, tombstones, a value patch, a renumbering) gets them
 *   extended at the cost of the change ({@link carryDerivedSteps});
 * - a version built in one go (a rebuild, a merge) derives, in steps, before it is published, those
 *   the version it replaces had ({@link deriveLikeSteps}).
 * Both run inside the change's own steps, which big catalogs run in time slices.
 * @module
 */
import type { CatalogState } from '../catalog-index.js';
import type { Steps } from '../steps.js';
import { appendedHierarchySteps, buildHierarchySteps, derivedHierarchies, hierarchyFields, keepHierarchy } from './hierarchy-column.js';
import { carryKeyOrdersSteps, deriveLookupsLikeSteps } from './text-column-lookups.js';

/**
 * Gives `to` what `from` had derived. `to` must be made from `from` by a fast path: the same docs
 * (some maybe deleted) then docs appended, dictionaries that only grew, and no doc's values changed
 * but in the fields `changed` names (a value patch's; default none). Sort ranks and numeric orders are
 * carried by the change paths with the columns they belong to (append-products.ts, patch-values.ts; an
 * append leaves a numeric order as the base its new docs are merged into on first use).
 */
export function* carryDerivedSteps(from: CatalogState, to: CatalogState, changed: (field: number) => boolean = () => false): Steps<void> {
  yield* carryKeyOrdersSteps(from, to);
  for (const { setting, tree } of derivedHierarchies(from)) {
    // A patched level (a number as a level's value) moves docs between nodes: derived anew.
    const touched = hierarchyFields(setting).some((name) => {
      const fid = from.fieldByName.get(name);
      return fid !== undefined && changed(fid);
    });
    keepHierarchy(to, setting, touched ? yield* buildHierarchySteps(to, setting) : yield* appendedHierarchySteps(tree, to, setting));
  }
}

/** Derives on `to`, a version built in one go to replace `from`, what `from` had derived (see the module doc). */
export function* deriveLikeSteps(from: CatalogState, to: CatalogState): Steps<void> {
  yield* deriveLookupsLikeSteps(from, to);
  for (const { setting } of derivedHierarchies(from)) keepHierarchy(to, setting, yield* buildHierarchySteps(to, setting));
}
