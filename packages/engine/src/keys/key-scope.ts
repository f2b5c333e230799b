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
import type { CatalogState } from '../catalog/catalog-index.js';
import type { WebsiteSettings } from '../config.js';
import { fieldError } from '../errors.js';
import { allowsValue, compileScope, parseScope, parseValidCondition } from '../search/conditions.js';
import type { FacetBucket, ScopeCondition, ScopeConditions } from '../types.js';

/** A scope object, as validated. */
export type Scope = ScopeConditions;

/**
 * True when a facet value (a bucket key) is one the key lets a shopper see on its field: a value a product
 * holding it alone could pass with (`allowsValue`), or, for `{all, any?, not?}`, a value the condition
 * names (in `all` or `any`, not in `not`; any value not in `not` when it names none). No product passes
 * `{all: [a, b]}` with one value, so the first rule alone dropped every bucket of the field, `a` and `b`
 * among them; values it does not name are dropped as a list's unnamed values are.
 */
export function valueAllowed(cond: ScopeCondition, value: string): boolean {
  const c = parseValidCondition(cond);
  if (c.op !== 'every') return allowsValue(c, value);
  if (c.not.includes(value)) return false;
  const named = c.all.length > 0 || c.any !== undefined;
  return !named || c.all.includes(value) || (c.any?.includes(value) ?? false);
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

/**
 * Refuses, with `KEY_BAD_REQUEST` naming `scope.<field>`, a forced scope that does not fit the catalog
 * it will filter (a list of values on a numeric field, bounds on a text field, a hierarchy condition on
 * a field): created as it was, the key answered 201 and then every search made with it 400. Checked as
 * the search checks it (the website's pinned field types and hierarchies); a field no product has yet
 * fits (it matches nothing until products have it).
 */
export function checkKeyScopeFits(state: CatalogState, settings: WebsiteSettings | undefined, scope: Scope): void {
  const hierarchies = settings?.hierarchies ?? {};
  const compiled = compileScope(state, parseScope(scope, new Set(Object.keys(hierarchies))), settings?.fields, hierarchies);
  if ('mismatch' in compiled) throw fieldError('KEY_BAD_REQUEST', `scope.${compiled.mismatch.field}`, compiled.mismatch.problem);
}

/**
 * Refuses, with `SETTINGS_INVALID` naming `settings.hierarchies.<name>`, settings that drop (or rename) a
 * hierarchy the forced scope of one of `keys` names: a hierarchy's name in a scope means the hierarchy,
 * and once it is gone the name means a field no product has, so every search made with the key matched
 * nothing (a storefront without results, and nobody told). `before`: the hierarchies in force.
 */
export function checkKeysKeepHierarchies(
  keys: readonly { id: string; scope: unknown }[], before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>,
): void {
  for (const key of keys) {
    if (typeof key.scope !== 'object' || key.scope === null) continue;
    for (const name of Object.keys(key.scope)) {
      if (!Object.hasOwn(before, name) || Object.hasOwn(after, name)) continue;
      throw fieldError('SETTINGS_INVALID', `settings.hierarchies.${name}`, `is named by the forced scope of search key ${key.id} (its searches would match nothing): revoke the key first, or keep the hierarchy`);
    }
  }
}
