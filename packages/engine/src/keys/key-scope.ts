/**
 * How a search key's forced scope combines with the scope a caller sends. Pure.
 *
 * The rule (documented in docs/http-api.md, "Search keys"): the key's scope is ANDed with the
 * caller's, field by field, so the result selects at most what the key allows:
 * - a field only the key names: the key's condition;
 * - a field only the caller names: the caller's condition;
 * - both name it: the intersection of the two conditions — value lists intersect, an exclusion list
 *   removes values from the other side's list, two exclusion lists unite, numeric bounds take the
 *   tighter `min` and `max` and their `not` lists unite. When the two conditions are of different kinds
 *   (a value list against numeric bounds) the key's condition alone applies.
 *
 * With `disjunctive_facets`, the counts of a field ignore that field's own condition; for a field the
 * key forces, {@link restrictFacetBuckets} then drops the buckets of values the key does not allow, so
 * counts never reveal what lies outside the key's scope.
 * @module
 */
import type { FacetBucket, NumericScope, TextScope } from '../types.js';

/** A scope object, as validated. */
export type Scope = Record<string, TextScope | NumericScope>;

type Condition = TextScope | NumericScope;

/** What a condition is: a value list, a text exclusion, numeric bounds, or nothing that filters. */
type Kind =
  | { kind: 'in'; values: string[] }
  | { kind: 'notText'; values: string[] }
  | { kind: 'numeric'; cond: NumericScope }
  | { kind: 'none' };

function classify(cond: Condition): Kind {
  if (Array.isArray(cond)) return { kind: 'in', values: cond };
  const c = cond as { min?: number; max?: number; not?: unknown[] };
  if (c.min !== undefined || c.max !== undefined) return { kind: 'numeric', cond: c as NumericScope };
  if (c.not === undefined || c.not.length === 0) return { kind: 'none' };
  return typeof c.not[0] === 'string' ? { kind: 'notText', values: c.not as string[] } : { kind: 'numeric', cond: c as NumericScope };
}

function union<T>(a: readonly T[] = [], b: readonly T[] = []): T[] {
  return [...new Set([...a, ...b])];
}

/** The intersection of the key's condition and the caller's on one field. */
export function intersectCondition(forced: Condition, caller: Condition): Condition {
  const f = classify(forced);
  const c = classify(caller);
  if (c.kind === 'none') return forced;
  if (f.kind === 'none') return caller;
  if (f.kind === 'in' && c.kind === 'in') {
    const allowed = new Set(f.values);
    return c.values.filter((v) => allowed.has(v));
  }
  if (f.kind === 'in' && c.kind === 'notText') {
    const excluded = new Set(c.values);
    return f.values.filter((v) => !excluded.has(v));
  }
  if (f.kind === 'notText' && c.kind === 'in') {
    const excluded = new Set(f.values);
    return c.values.filter((v) => !excluded.has(v));
  }
  if (f.kind === 'notText' && c.kind === 'notText') return { not: union(f.values, c.values) };
  if (f.kind === 'numeric' && c.kind === 'numeric') {
    const out: NumericScope = {};
    const mins = [f.cond.min, c.cond.min].filter((x): x is number => x !== undefined);
    const maxs = [f.cond.max, c.cond.max].filter((x): x is number => x !== undefined);
    if (mins.length > 0) out.min = Math.max(...mins);
    if (maxs.length > 0) out.max = Math.min(...maxs);
    const not = union(f.cond.not, c.cond.not);
    if (not.length > 0) out.not = not;
    return out;
  }
  // Different kinds: the caller's condition cannot be combined; the key's alone can never widen.
  return forced;
}

/** The scope of a request made with a key: the caller's scope intersected with the key's, field by field. */
export function applyForcedScope(forced: Scope, caller: Scope | undefined): Scope {
  // fromEntries defines own properties: a field named "__proto__" stays a field.
  const merged: Scope = Object.fromEntries(Object.entries(caller ?? {}));
  for (const [field, cond] of Object.entries(forced)) {
    merged[field] = Object.hasOwn(merged, field) ? intersectCondition(cond, merged[field]!) : cond;
  }
  return merged;
}

/** True when a facet value (a bucket key) satisfies the key's condition on its field. */
export function valueAllowed(cond: Condition, value: string): boolean {
  const k = classify(cond);
  switch (k.kind) {
    case 'none': return true;
    case 'in': return k.values.includes(value);
    case 'notText': return !k.values.includes(value);
    case 'numeric': {
      const n = Number(value);
      if (!Number.isFinite(n)) return false;
      if (k.cond.min !== undefined && n < k.cond.min) return false;
      if (k.cond.max !== undefined && n > k.cond.max) return false;
      return !(k.cond.not ?? []).includes(n);
    }
  }
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
