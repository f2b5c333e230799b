/**
 * Query-string parsing for the GET endpoints: indexed arrays (`items[0]`, `items[1]`, …, also repeated
 * `items=` and `items[]=`), booleans (`true|false|1|0`), bounded integers. A malformed value fails
 * with 400 naming the parameter.
 * @module
 */
import type { RecommendParams } from '@aisle/engine';
import { HttpError } from './errors.js';

/** Raw query parameters: every name with all its values in order. */
export type RawQuery = Map<string, string[]>;

/** Splits a query string into names and values (percent-decoding both, `+` as space). */
export function parseQueryString(query: string): RawQuery {
  const out: RawQuery = new Map();
  if (!query) return out;
  for (const [name, value] of new URLSearchParams(query)) {
    const list = out.get(name);
    if (list) list.push(value);
    else out.set(name, [value]);
  }
  return out;
}

/** The single value of a scalar parameter; 400 when repeated. */
export function scalar(query: RawQuery, name: string): string | undefined {
  const values = query.get(name);
  if (!values) return undefined;
  if (values.length > 1) throw new HttpError(400, `query parameter ${name} is given more than once`, { key: name });
  return values[0];
}

/** `true|false|1|0` (case-insensitive) → boolean; anything else → 400 naming the parameter. */
export function booleanParam(query: RawQuery, name: string): boolean | undefined {
  const value = scalar(query, name);
  if (value === undefined) return undefined;
  switch (value.toLowerCase()) {
    case 'true': case '1': return true;
    case 'false': case '0': return false;
    default: throw new HttpError(400, `query parameter ${name} must be true, false, 1 or 0 (got "${value}")`, { key: name });
  }
}

/** A decimal integer within [min, max]; 400 naming the parameter otherwise. */
export function integerParam(query: RawQuery, name: string, min: number, max: number): number | undefined {
  const value = scalar(query, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new HttpError(400, `query parameter ${name} must be an integer from ${min} to ${max} (got "${value}")`, { key: name });
  }
  return Number(value);
}

const INDEXED = /^([A-Za-z_][A-Za-z0-9_]*)\[(\d*)\]$/;

/**
 * The array parameter `name`: `name[0]=a&name[1]=b` (ordered by index; gaps allowed), `name[]=a` and
 * repeated `name=a&name=b` (in order). A non-numeric index or a repeated index → 400.
 */
export function arrayParam(query: RawQuery, name: string, maxLength: number): string[] | undefined {
  const indexed: [number, string][] = [];
  const plain: string[] = [];
  let seen = false;
  for (const [key, values] of query) {
    if (key === name || key === `${name}[]`) {
      plain.push(...values);
      seen = true;
      continue;
    }
    if (!key.startsWith(`${name}[`)) continue;
    const m = INDEXED.exec(key);
    if (!m || m[1] !== name || m[2] === '' || m[2]!.length > 6) {
      throw new HttpError(400, `query parameter ${key} is not of the form ${name}[<index>]`, { key });
    }
    if (values.length > 1) throw new HttpError(400, `query parameter ${key} is given more than once`, { key });
    indexed.push([Number(m[2]), values[0]!]);
    seen = true;
  }
  if (!seen) return undefined;
  indexed.sort((a, b) => a[0] - b[0]);
  const items = [...indexed.map(([, v]) => v), ...plain];
  if (items.length > maxLength) throw new HttpError(400, `query parameter ${name} has ${items.length} entries; at most ${maxLength} are accepted`, { key: name });
  return items;
}

/** Parses the recommendation query parameters. Unknown names (cache busters, tracking) are ignored. */
export function parseRecommendParams(query: RawQuery, maxItems: number): RecommendParams {
  const params: RecommendParams = {};
  const customerId = scalar(query, 'customerId');
  if (customerId !== undefined) params.customerId = customerId;
  const productRef = scalar(query, 'productRef');
  if (productRef !== undefined) params.productRef = productRef;
  const productStyleId = scalar(query, 'productStyleId');
  if (productStyleId !== undefined) params.productStyleId = productStyleId;
  const items = arrayParam(query, 'items', maxItems);
  if (items !== undefined) params.items = items;
  const filterOutOfStock = booleanParam(query, 'filterOutOfStock');
  if (filterOutOfStock !== undefined) params.filterOutOfStock = filterOutOfStock;
  const count = integerParam(query, 'count', 1, 100);
  if (count !== undefined) params.count = count;
  return params;
}
