/**
 * Validation of the search request body against the documented request table. Pure. Every violation
 * throws `SEARCH_BAD_REQUEST` with a message naming the field. Unknown top-level fields are ignored
 * (clients may send more than the table lists, e.g. tracking ids); unknown keys inside `scope`
 * conditions and `sort_fields` specs are errors, since they would silently change the meaning.
 * @module
 */
import { AisleError } from '../errors.js';
import type { NumericScope, SearchRequest, SortFieldSpec, TextScope } from '../types.js';

export { MAX_SEARCH_SIZE, DEFAULT_SEARCH_SIZE, MAX_QUERY_LENGTH, MAX_REQUEST_FIELDS, MAX_SCOPE_VALUES } from '../contract/limits.js';
import { MAX_SEARCH_SIZE, DEFAULT_SEARCH_SIZE, MAX_QUERY_LENGTH, MAX_REQUEST_FIELDS, MAX_SCOPE_VALUES } from '../contract/limits.js';

function badRequest(field: string, problem: string): never {
  throw new AisleError('SEARCH_BAD_REQUEST', `search request: ${field} ${problem}`, { details: { field } });
}

const bad: FailAt = badRequest;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function requireString(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (v === undefined) bad(key, 'is required');
  if (typeof v !== 'string') bad(key, 'must be a string');
  return v;
}

function nonNegativeInteger(v: unknown, key: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) bad(key, 'must be an integer');
  if (v < 0) bad(key, 'must not be negative');
  return v;
}

function stringList(v: unknown, key: string): string[] {
  if (!Array.isArray(v)) bad(key, 'must be an array of strings');
  if (v.length > MAX_REQUEST_FIELDS) bad(key, `must have at most ${MAX_REQUEST_FIELDS} entries`);
  v.forEach((item, i) => { if (typeof item !== 'string') bad(`${key}[${i}]`, 'must be a string'); });
  return v as string[];
}

/** Reports a problem at a key and throws (each validator says in which words). */
export type FailAt = (key: string, problem: string) => never;

/**
 * Checks one scope condition (`[values]`, `{not: [values]}` or `{min?, max?, not?}`) and returns it
 * typed. Shared by the search request and the settings that carry a scope (merchandising rules), so
 * the two accept exactly the same syntax; `fail` words the error for its caller.
 */
export function scopeCondition(v: unknown, key: string, bad: FailAt = badRequest): TextScope | NumericScope {
  const finite = (x: unknown, at: string): number => {
    if (typeof x !== 'number' || !Number.isFinite(x)) bad(at, 'must be a finite number');
    return x;
  };
  if (Array.isArray(v)) {
    if (v.length > MAX_SCOPE_VALUES) bad(key, `must list at most ${MAX_SCOPE_VALUES} values`);
    v.forEach((item, i) => { if (typeof item !== 'string') bad(`${key}[${i}]`, 'must be a string (text condition: an array of strings)'); });
    return v as string[];
  }
  if (!isObject(v)) bad(key, 'must be an array of strings (text field) or an object {min, max} (numeric field)');
  for (const k of Object.keys(v)) if (k !== 'min' && k !== 'max' && k !== 'not') bad(`${key}.${k}`, 'is not a known condition (min, max, not)');
  if (v.min !== undefined) finite(v.min, `${key}.min`);
  if (v.max !== undefined) finite(v.max, `${key}.max`);
  if (v.not !== undefined) {
    if (!Array.isArray(v.not)) bad(`${key}.not`, 'must be an array');
    if (v.not.length > MAX_SCOPE_VALUES) bad(`${key}.not`, `must list at most ${MAX_SCOPE_VALUES} values`);
    const texts = v.not.filter((x) => typeof x === 'string').length;
    if (texts > 0) {
      if (texts !== v.not.length) bad(`${key}.not`, 'must hold only strings (text field) or only numbers (numeric field)');
      if (v.min !== undefined || v.max !== undefined) bad(`${key}.not`, 'must hold numbers when min or max is given');
      return { not: v.not as string[] };
    }
    v.not.forEach((x, i) => finite(x, `${key}.not[${i}]`));
  }
  return v as NumericScope;
}

/**
 * Checks a whole scope object (field name → condition: the request's, a rule's, or a search key's forced
 * scope) and returns it typed; see {@link scopeCondition}.
 */
export function validateScope(v: unknown, key = 'scope', bad: FailAt = badRequest): Record<string, TextScope | NumericScope> {
  if (!isObject(v)) bad(key, 'must be an object whose keys are field names');
  const keys = Object.keys(v);
  if (keys.length > MAX_REQUEST_FIELDS) bad(key, `must have at most ${MAX_REQUEST_FIELDS} keys`);
  // fromEntries defines own properties: a field named "__proto__" stays a field.
  return Object.fromEntries(keys.map((k) => [k, scopeCondition(v[k], `${key}.${k}`, bad)]));
}

function sortSpec(v: unknown, key: string): SortFieldSpec {
  if (!isObject(v)) bad(key, 'must be an object {<field>: {order, type}}');
  const names = Object.keys(v);
  if (names.length !== 1) bad(key, 'must have exactly one key, the field name');
  const field = names[0];
  const spec = v[field];
  const at = `${key}.${field}`;
  if (!isObject(spec)) bad(at, 'must be an object {order, type}');
  for (const k of Object.keys(spec)) if (k !== 'order' && k !== 'type') bad(`${at}.${k}`, 'is not a known key (order, type)');
  if (spec.order !== 'asc' && spec.order !== 'desc') bad(`${at}.order`, 'must be "asc" or "desc"');
  if (spec.type !== 'number' && spec.type !== 'text') bad(`${at}.type`, 'must be "number" or "text"');
  return { [field]: { order: spec.order, type: spec.type } };
}

/**
 * Checks a search request body (already parsed JSON) and returns it typed, with `size` defaulted
 * to 20. Throws `AisleError('SEARCH_BAD_REQUEST')` naming the first offending field.
 */
export function validateSearchRequest(body: unknown): SearchRequest {
  if (!isObject(body)) bad('(body)', 'must be a JSON object');
  const website_id = requireString(body, 'website_id');
  const client = requireString(body, 'client');
  const q = requireString(body, 'q');
  if (q.length > MAX_QUERY_LENGTH) bad('q', `must be at most ${MAX_QUERY_LENGTH} characters`);
  if (body.start === undefined) bad('start', 'is required');
  const start = nonNegativeInteger(body.start, 'start');
  const request: SearchRequest = { website_id, client, q, start, size: DEFAULT_SEARCH_SIZE };
  if (body.size !== undefined) {
    const size = nonNegativeInteger(body.size, 'size');
    if (size > MAX_SEARCH_SIZE) bad('size', `must be at most ${MAX_SEARCH_SIZE}`);
    request.size = size;
  }
  if (body.customer_id !== undefined) {
    if (typeof body.customer_id !== 'string') bad('customer_id', 'must be a string');
    request.customer_id = body.customer_id;
  }
  if (body.scope !== undefined) request.scope = validateScope(body.scope, 'scope');
  if (body.aggregations !== undefined) request.aggregations = stringList(body.aggregations, 'aggregations');
  if (body.disjunctive_facets !== undefined) request.disjunctive_facets = stringList(body.disjunctive_facets, 'disjunctive_facets');
  if (body.highlight !== undefined) {
    if (typeof body.highlight !== 'boolean') bad('highlight', 'must be true or false');
    request.highlight = body.highlight;
  }
  if (body.range_fields !== undefined) request.range_fields = stringList(body.range_fields, 'range_fields');
  if (body.sort_fields !== undefined) {
    if (!Array.isArray(body.sort_fields)) bad('sort_fields', 'must be an array of {<field>: {order, type}}');
    if (body.sort_fields.length > MAX_REQUEST_FIELDS) bad('sort_fields', `must have at most ${MAX_REQUEST_FIELDS} entries`);
    request.sort_fields = body.sort_fields.map((s, i) => sortSpec(s, `sort_fields[${i}]`));
  }
  return request;
}

