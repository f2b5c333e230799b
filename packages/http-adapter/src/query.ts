/**
 * Query strings, decoded from their declaration: an operation that reads query parameters names one
 * of the contract's query schemas (endpoints.ts), and the router compiles that schema, once, into a
 * decoder that turns the raw query string into the typed parameters the handler reads. By the declared
 * type of each parameter: a string (of an `enum` when the schema lists one), an integer within the
 * schema's `minimum`..`maximum`, a boolean (`true|false|1|0`, any case), or an array of strings in the
 * indexed form `items[0]`, `items[1]`, … (also repeated `items=` and `items[]=`). A malformed, missing
 * (when required) or repeated value fails with a coded error naming the parameter. Names are matched in
 * any case, as the recommendation method segments are (`Count=5` is `count=5`; `count` and `Count`
 * together are one parameter given twice); a name the operation does not declare is refused naming it
 * (it used to be ignored, so a misspelt `cnt=5` answered the default length without a word), except a
 * name starting with `_`, which is the caller's own (a cache buster such as `_=1764489600000`).
 * @module
 */
import { HttpError } from './errors.js';
import { isValidPercentEncoding } from './percent-encoding.js';
import { querySchemas, type JsonSchema, type QuerySchemaName } from './schemas.js';
import { RecentMemo } from '@aisle/engine/internal';

/** Raw query parameters: every name with all its values in order. */
export type RawQuery = Map<string, string[]>;

/**
 * Splits a query string into names and values (percent-decoding both, `+` as space), as URLSearchParams
 * reads it. A query without `%` or `+` has nothing to decode: it is split here, without URLSearchParams'
 * list of pairs (the recommendation calls' `count=5` is on the hot path).
 */
export function parseQueryString(query: string): RawQuery {
  const out: RawQuery = new Map();
  if (!query) return out;
  const add = (name: string, value: string) => {
    const list = out.get(name);
    if (list) list.push(value);
    else out.set(name, [value]);
  };
  if (query.includes('%') || query.includes('+')) {
    for (const [name, value] of new URLSearchParams(query)) add(name, value);
    return out;
  }
  // URLSearchParams skips one leading "?" (`…??count=3`, a query string appended with its own "?"): so
  // does this split, or such a request would be read differently whether or not it escapes anything.
  for (let start = query.charCodeAt(0) === 0x3f ? 1 : 0; start < query.length;) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    // An empty pair (`a=1&&b=2`) is skipped, a pair without `=` is a name with an empty value.
    if (end > start) {
      const eq = query.indexOf('=', start);
      if (eq === -1 || eq > end) add(query.slice(start, end), '');
      else add(query.slice(start, eq), query.slice(eq + 1, end));
    }
    start = end + 1;
  }
  return out;
}

/** Whether a parameter name is the caller's own (`_`, `_cb`: cache busters), neither read nor refused. */
const isCallersOwn = (name: string) => name.startsWith('_');

/** The name an array parameter is declared by: `items` of `items[0]` and `items[]` (no array made: it runs per parameter of every request). */
const baseName = (name: string) => {
  const bracket = name.indexOf('[');
  return bracket < 0 ? name : name.slice(0, bracket);
};

/**
 * The first parameter (its name as decoded) whose name or value is not valid percent-encoding, among
 * those `wanted` takes (an array parameter's `items[0]` is taken by its name, `items`).
 */
function malformedParameter(query: string, wanted: (name: string) => boolean): string | undefined {
  for (const part of query.split('&')) {
    if (!part.includes('%')) continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    // A `+` (a space) never makes a component invalid.
    if (isValidPercentEncoding(rawName) && isValidPercentEncoding(rawValue)) continue;
    const name = new URLSearchParams(`${rawName}=`).keys().next().value!;
    if (wanted(name)) return name;
  }
  return undefined;
}

/**
 * A `%` that is not an escape of an ASCII byte (`%00`–`%7F`): a stray `%`, or a byte of a multi-byte
 * UTF-8 sequence, the only escapes that can fail to decode.
 */
const MAY_BE_MALFORMED = /%(?![0-7][0-9A-Fa-f])/;

/** The decoded parameters of one request, as the declared schema types them. */
export type QueryParams = Record<string, string | number | boolean | string[]>;

/**
 * Decodes a raw query string (without `?`); `maxItems` (the listener's `maxQueryItems`) bounds every
 * array parameter below the contract's own bound (its schema's `maxItems`), which it can lower, never
 * raise: the engine refuses past the contract's bound however it is called. The parameters are frozen,
 * shared by the requests with the same query string.
 */
export type QueryDecoder = (query: string, maxItems: number) => QueryParams;

/** Decodes one declared parameter from the raw query into `out`. */
type ParameterDecoder = (query: RawQuery, out: QueryParams, maxItems: number) => void;

/** The object schema of a query string, as the contract declares it. */
interface QuerySchema {
  properties: Record<string, JsonSchema>;
  required?: readonly string[];
}

const decoders = new Map<QuerySchemaName, QueryDecoder>();

/** The decoder of a named query schema of the contract (compiled on first use, then shared by every operation declaring it). */
export function queryDecoderFor(name: QuerySchemaName): QueryDecoder {
  let decoder = decoders.get(name);
  if (decoder === undefined) {
    decoder = compileQueryDecoder(querySchemas[name] as QuerySchema);
    decoders.set(name, decoder);
  }
  return decoder;
}

/** Compiles the decoder of a query schema (at start; a schema this decoder cannot read fails here, not per request). */
export function compileQueryDecoder(schema: QuerySchema): QueryDecoder {
  const required = new Set(schema.required ?? []);
  const decoders = Object.entries(schema.properties).map(([name, property]) => parameterDecoder(name, property, required.has(name)));
  const declaredNames = Object.keys(schema.properties);
  // Lowercased name → declared name: the one spelling the decoders read.
  const declared = new Map(declaredNames.map((name) => [name.toLowerCase(), name]));
  if (declared.size !== declaredNames.length) throw new Error(`query schema declares names that differ only in case: ${declaredNames.join(', ')}`);
  const accepted = declaredNames.length > 0 ? declaredNames.join(', ') : 'no query parameters';
  // Query strings decoded lately, by the array bound they were decoded under (one per listener, in practice).
  const decodedBy = new Map<number, RecentMemo<string, QueryParams>>();
  const decode = (query: string, maxItems: number): QueryParams => {
    // URLSearchParams reads a bad percent-encoding as U+FFFD, or a stray `%` as itself: a parameter sent
    // so is refused (as a bad path segment is), not read (or named) as another text; a name of the
    // caller's own is not read at all. The exact scan runs only when one regex says it may find one (a
    // cart's `items%5B0%5D=…`, ASCII escapes only, is on the hot path).
    if (query.includes('%') && MAY_BE_MALFORMED.test(query)) {
      const name = malformedParameter(query, (key) => !isCallersOwn(key));
      if (name !== undefined) throw new HttpError('QUERY_PARAM_MALFORMED', { name }, { key: name });
    }
    const raw = declaredSpelling(parseQueryString(query), declared, accepted);
    const out: QueryParams = {};
    for (const decodeParameter of decoders) decodeParameter(raw, out, maxItems);
    return out;
  };
  // A storefront sends the same few query strings over and over (`count=5`): their parameters are
  // decoded once and shared, frozen (handlers and the engine read them, never change them). A query that
  // fails is decoded, and refused, every time.
  return (query, maxItems) => {
    let decoded = decodedBy.get(maxItems);
    if (decoded === undefined) decodedBy.set(maxItems, (decoded = new RecentMemo(DECODED_QUERIES)));
    const known = decoded.get(query);
    if (known !== undefined) return known;
    const params = freezeParams(decode(query, maxItems));
    return query.length <= DECODED_QUERY_LENGTH ? decoded.remember(query, params) : params;
  };
}

/** Most query strings remembered per decoder and bound (then all are forgotten and remembered again as asked)… */
export const DECODED_QUERIES = 1024;
/** …each at most this long (a longer one is decoded every time: the memory stays bounded). */
export const DECODED_QUERY_LENGTH = 256;

function freezeParams(params: QueryParams): QueryParams {
  for (const value of Object.values(params)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(params);
}

/**
 * The raw parameters under their declared spelling (`Count` → `count`, `ITEMS[1]` → `items[1]`; the
 * values of two spellings of one name joined in order, so a scalar given both ways is given twice); the
 * caller's own names (`_…`) and empty ones (a stray `=`) dropped. An undeclared name is refused.
 */
function declaredSpelling(raw: RawQuery, declared: ReadonlyMap<string, string>, accepted: string): RawQuery {
  if (raw.size === 0) return raw;
  const out: RawQuery = new Map();
  for (const [name, values] of raw) {
    if (name === '' || isCallersOwn(name)) continue;
    const base = baseName(name);
    const spelling = declared.get(base.toLowerCase());
    if (spelling === undefined) throw new HttpError('QUERY_PARAM_UNKNOWN', { name, accepted }, { key: name });
    const key = spelling + name.slice(base.length);
    const list = out.get(key);
    // The parsed arrays are this request's own: the first spelling's is taken as it is.
    if (list) list.push(...values);
    else out.set(key, values);
  }
  return out;
}

/**
 * The first value of parameter `name` in a raw query string, its name matched in any case as the
 * decoders match it (for what is read before an operation decodes its query: the coupon's `client`,
 * whose website's CORS origins answer the preflight).
 */
export function queryValue(query: string, name: string): string | undefined {
  if (!query) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of new URLSearchParams(query)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The decoder of an operation that declares no query parameters: it takes none but the caller's own. */
export const noQueryDecoder: QueryDecoder = compileQueryDecoder({ properties: {} });

function parameterDecoder(name: string, schema: JsonSchema, required: boolean): ParameterDecoder {
  switch (schema.type) {
    case 'string': {
      const choices = schema.enum as readonly string[] | undefined;
      const words = choices?.join(' or ');
      return (query, out) => {
        const value = scalar(query, name);
        // An empty value of a required parameter is as good as none (`?code=`).
        if (required && !value) throw new HttpError('QUERY_PARAM_REQUIRED', { name }, { key: name });
        if (value === undefined) return;
        if (choices !== undefined && !choices.includes(value)) throw new HttpError('QUERY_PARAM_NOT_ALLOWED_VALUE', { name, choices: words! }, { key: name });
        out[name] = value;
      };
    }
    case 'boolean':
      return (query, out) => {
        const value = scalar(query, name);
        if (value === undefined) return requirePresent(name, required);
        out[name] = booleanOf(name, value);
      };
    case 'integer': {
      const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
      if (min === undefined || max === undefined) throw new Error(`query parameter ${name}: an integer parameter declares its minimum and maximum`);
      return (query, out) => {
        const value = scalar(query, name);
        if (value === undefined) return requirePresent(name, required);
        // At most nine digits: a longer number is out of every declared range, and Number() stays exact.
        if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
          throw new HttpError('QUERY_PARAM_NOT_INTEGER', { name, min, max, value }, { key: name });
        }
        out[name] = Number(value);
      };
    }
    case 'array': {
      if ((schema.items as JsonSchema | undefined)?.type !== 'string') throw new Error(`query parameter ${name}: an array parameter holds strings`);
      const declared = (schema as { maxItems?: number }).maxItems;
      if (declared === undefined) throw new Error(`query parameter ${name}: an array parameter declares its maxItems`);
      return (query, out, maxItems) => {
        const items = arrayOf(query, name, Math.min(maxItems, declared));
        if (items === undefined) return requirePresent(name, required);
        out[name] = items;
      };
    }
    default:
      throw new Error(`query parameter ${name}: type ${JSON.stringify(schema.type)} cannot be read from a query string`);
  }
}

function requirePresent(name: string, required: boolean): void {
  if (required) throw new HttpError('QUERY_PARAM_REQUIRED', { name }, { key: name });
}

/** The single value of a scalar parameter; an error when repeated. */
function scalar(query: RawQuery, name: string): string | undefined {
  const values = query.get(name);
  if (!values) return undefined;
  if (values.length > 1) throw new HttpError('QUERY_PARAM_REPEATED', { name }, { key: name });
  return values[0];
}

function booleanOf(name: string, value: string): boolean {
  switch (value.toLowerCase()) {
    case 'true': case '1': return true;
    case 'false': case '0': return false;
    default: throw new HttpError('QUERY_PARAM_NOT_BOOLEAN', { name, value }, { key: name });
  }
}

const INDEXED = /^([A-Za-z_][A-Za-z0-9_]*)\[(\d*)\]$/;

/**
 * The array parameter `name`: `name[0]=a&name[1]=b` (ordered by index; gaps allowed), `name[]=a` and
 * repeated `name=a&name=b` (in order). A non-numeric index or a repeated index is an error.
 */
function arrayOf(query: RawQuery, name: string, maxItems: number): string[] | undefined {
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
      throw new HttpError('QUERY_PARAM_BAD_INDEX', { name: key, array: name }, { key });
    }
    if (values.length > 1) throw new HttpError('QUERY_PARAM_REPEATED', { name: key }, { key });
    indexed.push([Number(m[2]), values[0]!]);
    seen = true;
  }
  if (!seen) return undefined;
  indexed.sort((a, b) => a[0] - b[0]);
  const items = [...indexed.map(([, v]) => v), ...plain];
  if (items.length > maxItems) throw new HttpError('QUERY_PARAM_TOO_MANY', { name, count: items.length, max: maxItems }, { key: name });
  return items;
}
