/**
 * Whether a doc passes a request's resolved scope conditions, one doc at a time: the per-doc form of
 * the filters, for the few docs that are not read through the candidate bitsets (pinned docs, boosts,
 * near misses of disjunctive facets). Its own module because merchandising and disjunctive facets both
 * test docs this way and each uses the other: here neither imports the other to do so.
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { numericAt } from '../catalog/columns/numeric-column.js';
import type { PlanCondition } from './search-plan.js';

/** Whether doc `d` passes one resolved scope condition (the per-doc form of the filters). */
export function docPasses(index: CatalogIndex, cond: PlanCondition, d: number): boolean {
  const field = index.fields[cond.field];
  if (cond.kind === 'range') {
    const v = numericAt(field, d);
    if (v !== v) return !cond.requireValue;
    return v >= cond.min && v <= cond.max && !cond.not.includes(v);
  }
  const { offsets, codes, single } = field.text!;
  let listed = false;
  if (single) listed = single[d] >= 0 && cond.codes.includes(single[d]);
  else for (let j = offsets[d], end = offsets[d + 1]; j < end && !listed; j++) listed = cond.codes.includes(codes[j]);
  return listed === (cond.kind === 'in');
}

/** Whether doc `d` passes every condition. */
export function docPassesAll(index: CatalogIndex, conditions: readonly PlanCondition[], d: number): boolean {
  for (const cond of conditions) if (!docPasses(index, cond, d)) return false;
  return true;
}
