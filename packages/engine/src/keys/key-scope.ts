/**
 * What a search key's forced scope hides from facet counts. Pure.
 *
 * The forced scope itself applies beside the caller's scope as conditions of their own (the engine's
 * `SearchOptions.forcedScope`; docs/http-api.md, "Search keys"): a product is a result only when it
 * passes both, so a caller narrows the key's scope and never widens it, exactly on multi-valued
 * fields too.
 *
 * With `disjunctive_facets`, the counts of a field ignore the caller's condition on that field; for a
 * field the key forces, {@link restrictFacetBuckets} also drops the buckets of values the key does not
 * allow, so counts never list what lies outside the key's scope.
 * @module
 */
import { allowsValue, parseValidCondition } from '../search/conditions.js';
import type { FacetBucket, ScopeCondition, ScopeConditions } from '../types.js';

/** A scope object, as validated. */
export type Scope = ScopeConditions;

/** True when a facet value (a bucket key) satisfies the key's condition on its field. */
export function valueAllowed(cond: ScopeCondition, value: string): boolean {
  return allowsValue(parseValidCondition(cond), value);
}

/**
 * Drops, from the aggregations of the fields the key forces and the request counts disjunctively, the
 * buckets of values the key does not allow (the counted products all pass the key's condition, but a
 * product with several values also counts under the others). Returns a new object; the others are kept as they are.
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
