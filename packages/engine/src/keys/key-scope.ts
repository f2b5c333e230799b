/**
 * How a search key's forced scope combines with the scope a caller sends. Pure.
 *
 * The rule (documented in docs/http-api.md, "Search keys"): the key's scope is ANDed with the
 * caller's, field by field, so the result selects at most what the key allows:
 * - a field only the key names: the key's condition;
 * - a field only the caller names: the caller's condition;
 * - both name it: the intersection of the two conditions — value lists intersect, an exclusion list
 *   removes values from the other side's list, two exclusion lists unite, numeric bounds take the
 *   tighter `min` and `max` and their `not` lists unite, `{exists: true}` yields to a condition that
 *   requires a value and `{exists: false}` absorbs an exclusion (search/conditions.ts,
 *   `intersectConditions`). When no one condition states the intersection (a value list against
 *   numeric bounds) the key's condition alone applies.
 *
 * With `disjunctive_facets`, the counts of a field ignore that field's own condition; for a field the
 * key forces, {@link restrictFacetBuckets} then drops the buckets of values the key does not allow, so
 * counts never reveal what lies outside the key's scope.
 * @module
 */
import { allowsValue, conditionToWire, intersectConditions, parseKeyCondition, parseValidCondition } from '../search/conditions.js';
import type { FacetBucket, ScopeCondition, ScopeConditions } from '../types.js';

/** A scope object, as validated. */
export type Scope = ScopeConditions;

/**
 * The intersection of the key's condition and the caller's on one field (`isHierarchy`: the key names
 * a hierarchy of the website, whose lists are paths: a subtree within a subtree is the deeper one).
 */
export function intersectCondition(forced: ScopeCondition, caller: ScopeCondition, isHierarchy = false): ScopeCondition {
  const both = intersectConditions(parseKeyCondition(forced, isHierarchy), parseKeyCondition(caller, isHierarchy));
  // Not stated by one condition: the key's alone can never widen what the key allows.
  return both === undefined ? forced : conditionToWire(both);
}

/**
 * The scope of a request made with a key: the caller's scope intersected with the key's, field by field
 * (`hierarchies`: the names of the website's hierarchies, see {@link intersectCondition}).
 */
export function applyForcedScope(forced: Scope, caller: Scope | undefined, hierarchies?: ReadonlySet<string>): Scope {
  // fromEntries defines own properties: a field named "__proto__" stays a field.
  const merged: Scope = Object.fromEntries(Object.entries(caller ?? {}));
  for (const [field, cond] of Object.entries(forced)) {
    merged[field] = Object.hasOwn(merged, field) ? intersectCondition(cond, merged[field]!, hierarchies?.has(field)) : cond;
  }
  return merged;
}

/** True when a facet value (a bucket key) satisfies the key's condition on its field. */
export function valueAllowed(cond: ScopeCondition, value: string): boolean {
  return allowsValue(parseValidCondition(cond), value);
}

/**
 * Drops, from the aggregations of the fields the key forces and the request counts disjunctively, the
 * buckets of values the key does not allow (a disjunctive count ignores the field's own condition,
 * which includes the key's). Returns a new object; the others are kept as they are.
 */
export function restrictFacetBuckets(
  aggregations: Record<string, FacetBucket[]> | undefined, forced: Scope, disjunctive: readonly string[] | undefined,
): Record<string, FacetBucket[]> | undefined {
  if (aggregations === undefined || disjunctive === undefined || disjunctive.length === 0) return aggregations;
  const out: Record<string, FacetBucket[]> = Object.fromEntries(Object.entries(aggregations));
  for (const field of disjunctive) {
    if (!Object.hasOwn(forced, field) || !Object.hasOwn(out, field)) continue;
    out[field] = out[field]!.filter((b) => valueAllowed(forced[field]!, b.key));
  }
  return out;
}
