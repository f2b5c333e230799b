/**
 * Validation of the search request body against the contract's `SearchRequest` schema (ajv, compiled
 * once; see contract/validate.ts). Pure. Every violation throws `SEARCH_BAD_REQUEST` with a message
 * naming the field. Unknown top-level fields are ignored (clients may send more than the table lists,
 * e.g. tracking ids) and left out of the result; unknown keys inside `scope` conditions and
 * `sort_fields` specs are errors, since they would silently change the meaning.
 * @module
 */
import { DEFAULT_SEARCH_SIZE } from '../contract/limits.js';
import { schemas, type SearchRequest, type ScopeConditions } from '../contract/schemas.js';
import { checkAgainst, type FailAt } from '../contract/validate.js';
import { fieldError } from '../errors.js';

export { MAX_SEARCH_SIZE, DEFAULT_SEARCH_SIZE, MAX_QUERY_LENGTH, MAX_REQUEST_FIELDS, MAX_SCOPE_VALUES } from '../contract/limits.js';
export type { FailAt } from '../contract/validate.js';

function badRequest(field: string, problem: string): never {
  throw fieldError('SEARCH_BAD_REQUEST', field, problem);
}

/** The documented top-level fields, read from the schema: what the validated request keeps. */
const REQUEST_FIELDS = Object.keys(schemas.SearchRequest.properties) as (keyof SearchRequest)[];

/**
 * Checks a whole scope object (field name → condition: the request's, a rule's, or a search key's forced
 * scope) against the contract's `Scope` schema and returns it typed; `fail` words the error for its
 * caller, so every scope is read with exactly the same syntax.
 */
export function validateScope(v: unknown, key = 'scope', fail: FailAt = badRequest): ScopeConditions {
  return checkAgainst<ScopeConditions>('Scope', v, fail, { root: key });
}

/**
 * Checks a search request body (already parsed JSON) and returns it typed, with `size` defaulted
 * to {@link DEFAULT_SEARCH_SIZE}. Throws `AisleError('SEARCH_BAD_REQUEST')` naming the first offending field.
 */
export function validateSearchRequest(body: unknown): SearchRequest {
  const valid = checkAgainst<SearchRequest>('SearchRequest', body, badRequest, { self: '(body)' });
  // Bounds ascend strictly: an equal or smaller bound would make a band that no value can be in.
  for (const [field, bounds] of Object.entries(valid.range_buckets ?? {})) {
    for (let i = 1; i < bounds.length; i++) {
      if (!(bounds[i]! > bounds[i - 1]!)) badRequest(`range_buckets.${field}[${i}]`, `must be greater than the bound before it (${bounds[i - 1]}): bounds ascend`);
    }
  }
  const request: Record<string, unknown> = { size: DEFAULT_SEARCH_SIZE };
  for (const k of REQUEST_FIELDS) if (valid[k] !== undefined) request[k] = valid[k];
  return request as SearchRequest;
}
