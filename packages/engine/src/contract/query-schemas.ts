/**
 * The query strings of the wire, declared once: one TypeBox object schema per operation that reads
 * query parameters, each property a parameter (its type, bounds, default, whether it is required and
 * its description). The HTTP adapter derives from them the decoding of the query string (strings to
 * the declared numbers, booleans and arrays, `items[n]` included), its validation and the OpenAPI
 * parameters; the engine's library calls take the types derived here (`Static<>`) and check a library
 * caller's values against the same schemas.
 *
 * Query parameters are flat: a property is a string (optionally of an `enum`), an integer with
 * `minimum` and `maximum`, a boolean, or an array of strings. On the wire, names match in any case and
 * an undeclared one is refused, except names starting with `_` (cache busters), which are not read; the
 * objects stay open for library callers, except the admin reports' ({@link REPORT_QUERY}), whose
 * misspelt window (`form=…`) answered the report of all time.
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import { parseIsoDateTime } from './formats.js';
import { DEFAULT_COUNT, MAX_CART_ITEMS, MAX_COUNT, MAX_ID_LENGTH, SEARCH_REPORT_LIMITS } from './limits.js';

const opt = Type.Optional;
const oneOf = <const T extends readonly string[]>(values: T, options: { default: T[number]; description: string }) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * A customer id of a search or a recommendation: kept with the answered result list (and in the search
 * log and an experiment's roll-ups), so bounded and without NUL or unpaired surrogates, which a SQL store
 * refuses — on PostgreSQL the write of the whole batch of lists would fail, at every retry.
 */
export const keptCustomerId = (description: string) => Type.String({ maxLength: MAX_ID_LENGTH, format: 'clean-text', description });

/** The query of every recommendation method (which of them a method needs is the method table's, recommend/methods.ts). */
export const RecommendQuerySchema = Type.Object({
  customerId: opt(keptCustomerId('Customer id from the configuration interface.')),
  productRef: opt(Type.String({ description: 'Product reference id.' })),
  productStyleId: opt(Type.String({ description: 'Style id (between product and SKU).' })),
  items: opt(Type.Array(Type.String({ minLength: 1 }), {
    maxItems: MAX_CART_ITEMS,
    description: `RefIds in the cart: the indexed form items[0]=a&items[1]=b, or repeated items=a&items=b (at most ${MAX_CART_ITEMS}).`,
  })),
  filterOutOfStock: opt(Type.Boolean({ description: 'Drop out-of-stock items (true, false, 1 or 0 in any case).' })),
  count: opt(Type.Integer({ minimum: 1, maximum: MAX_COUNT, default: DEFAULT_COUNT, description: `List length (default ${DEFAULT_COUNT}, at most ${MAX_COUNT}).` })),
});

/** Query parameters of a recommendation method, parsed from the query string (or given by a library caller). */
export type RecommendParams = Static<typeof RecommendQuerySchema>;

/** `GET /b2b/coupon/mark_as_used`. */
export const CouponQuerySchema = Type.Object({
  code: Type.String({ description: 'The price-beat promotion code.' }),
  client: Type.String({ description: 'The website id (or its client shortcode).' }),
});

/** The parameters of the coupon call. */
export type CouponParams = Static<typeof CouponQuerySchema>;

const ON_ERROR = ['reject', 'skip'] as const;

/** `PUT /admin/v1/websites/{websiteId}/products`. */
export const ProductsPutQuerySchema = Type.Object({
  mode: opt(oneOf(['upsert', 'replace'] as const, { default: 'upsert', description: 'replace swaps the whole catalog atomically.' })),
  onError: opt(oneOf(ON_ERROR, {
    default: 'reject', description: 'reject: a bad record aborts the load and changes nothing; skip: bad records are reported and skipped.',
  })),
});

/** `PATCH /admin/v1/websites/{websiteId}/products`. */
export const ProductsPatchQuerySchema = Type.Object({
  mode: opt(oneOf(['upsert'] as const, { default: 'upsert', description: 'Only upsert: a patch merges into stored products.' })),
  onError: opt(oneOf(ON_ERROR, {
    default: 'reject',
    description: 'reject: a bad record or an unknown refId refuses the whole request and changes nothing; skip: such records are reported and skipped.',
  })),
});

/** The parameters of a product upload (a PATCH accepts `mode=upsert` only). */
export type ProductsParams = Static<typeof ProductsPutQuerySchema>;

/** The admin reports' query strings are closed: a name they do not declare is refused, naming it. */
const REPORT_QUERY = { additionalProperties: false } as const;

/** `GET /admin/v1/websites/{websiteId}/reports/attribution`: the time range (the engine reads the date-times). */
export const AttributionReportQuerySchema = Type.Object({
  from: opt(Type.String({ description: 'ISO 8601 date-time, start (inclusive).' })),
  to: opt(Type.String({ description: 'ISO 8601 date-time, end (inclusive).' })),
}, REPORT_QUERY);

/** The range of the attribution report. */
export type AttributionReportParams = Static<typeof AttributionReportQuerySchema>;

/** `GET /admin/v1/websites/{websiteId}/reports/searches`: the hours and the length of each list. */
export const SearchReportQuerySchema = Type.Object({
  from: opt(Type.String({ description: 'ISO 8601 date-time: searches from the hour holding it (inclusive).' })),
  to: opt(Type.String({ description: 'ISO 8601 date-time: searches of hours starting at or before it (default now).' })),
  limit: opt(Type.Integer({
    minimum: 1, maximum: SEARCH_REPORT_LIMITS.max, default: SEARCH_REPORT_LIMITS.default,
    description: `Entries of each list (default ${SEARCH_REPORT_LIMITS.default}, at most ${SEARCH_REPORT_LIMITS.max}).`,
  })),
}, REPORT_QUERY);

/** The range and list length of the searches report. */
export type SearchReportParams = Static<typeof SearchReportQuerySchema>;

/** `GET /admin/v1/websites/{websiteId}/reports/recommendations`: the hours of the report. */
export const RecommendationReportQuerySchema = Type.Object({
  from: opt(Type.String({ description: 'ISO 8601 date-time: responses from the hour holding it (inclusive).' })),
  to: opt(Type.String({ description: 'ISO 8601 date-time: responses of hours starting at or before it (default now).' })),
}, REPORT_QUERY);

/** The range of the recommendations report. */
export type RecommendationReportParams = Static<typeof RecommendationReportQuerySchema>;

/** A report's `from` and `to` read as times (ms since the epoch; undefined when not given), and what is wrong with them. */
export interface ReportTimes {
  fromMs?: number;
  toMs?: number;
  /** Problem-details messages by parameter name; empty when both are readable. */
  errors: Record<string, string[]>;
}

/**
 * Reads the `from` and `to` of a report (both reports take them): ISO 8601 date-times, which the query
 * schema carries as strings because their reading (the contract's `parseIsoDateTime`) is more than a
 * pattern. Pure; the one wording of a bad one.
 */
export function readReportTimes(range: { from?: string; to?: string }): ReportTimes {
  const out: ReportTimes = { errors: {} };
  for (const key of ['from', 'to'] as const) {
    const text = range[key];
    if (text === undefined) continue;
    const ms = parseIsoDateTime(text);
    if (ms === undefined) out.errors[key] = [`The ${key} parameter must be an ISO 8601 date-time.`];
    else out[key === 'from' ? 'fromMs' : 'toMs'] = ms;
  }
  // An inverted window is a mistake in the request, not a window in which nothing happened: a 200 with
  // empty lists would say the latter.
  if (out.fromMs !== undefined && out.toMs !== undefined && out.toMs < out.fromMs) out.errors.to = ['The to parameter must not be before from.'];
  return out;
}

/** Every query-string schema, by the name endpoint declarations use. */
export const querySchemas = {
  RecommendQuery: RecommendQuerySchema,
  CouponQuery: CouponQuerySchema,
  ProductsPutQuery: ProductsPutQuerySchema,
  ProductsPatchQuery: ProductsPatchQuerySchema,
  AttributionReportQuery: AttributionReportQuerySchema,
  SearchReportQuery: SearchReportQuerySchema,
  RecommendationReportQuery: RecommendationReportQuerySchema,
} as const;

/** The name of one query-string schema. */
export type QuerySchemaName = keyof typeof querySchemas;
