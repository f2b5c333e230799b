/**
 * The HTTP surface, declared once: every endpoint with its path, error shape, CORS and timeout, and
 * every operation on it with its auth kind, query-string schema, request body and response schemas,
 * documented statuses and handler. Routing (router.ts), query decoding (query.ts), body validation and
 * response serialisers (codecs.ts, compiled per declared schema) and the OpenAPI document (openapi.ts)
 * are all derived from this list, so a path, a parameter, a schema or a status is changed here and
 * nowhere else.
 * @module
 */
import type { Handler } from './context.js';
import { dashboardAsset, dashboardConfigFile, dashboardPage } from './dashboard.js';
import { DASHBOARD_CONFIG_SCHEMA } from './dashboard-config.js';
import type { ErrorShape } from './errors.js';
import * as h from './handlers.js';
import { byteSize, DEFAULT_LIMITS } from './limits.js';
import { RECOMMEND_METHODS, type QuerySchemaName, type SchemaName } from './schemas.js';

/** An HTTP method an operation is declared for (HEAD and OPTIONS are derived, see {@link EndpointDeclaration}). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an operation; the listener checks it before the handler runs and OpenAPI publishes it.
 * - `public`: anyone (browser-called endpoints and operations probes);
 * - `website`: a website token, which names the website (events);
 * - `search`: a website token or a browser key whose actions include `search` (search);
 * - `insights`: a website token or a browser key whose actions include `insights` (click events);
 * - `admin`: an admin token, on a website that exists (`{websiteId}` of the path; 404 otherwise).
 */
export type AuthKind = 'public' | 'website' | 'search' | 'insights' | 'admin';

/** The OpenAPI tags, in the order the document lists them, with their descriptions. */
export const TAGS = {
  search: 'Product search with facets, ranges, scope and sorting.',
  recommendations: 'The seventeen recommendation methods and bundles, called from the shop\'s pages.',
  events: 'Purchase, view and click events, sent by the shop with its website token (clicks also by browsers, with a key opening insights).',
  coupons: 'Price-beat codes, marked as used from the shop.',
  admin: 'Catalog, settings, keys and reports of one website (admin token).',
  operations: 'Probes, metrics and this document.',
} as const;

/** One OpenAPI tag. */
export type Tag = keyof typeof TAGS;

/** A successful response of an operation. */
export interface ResponseDeclaration {
  description: string;
  /**
   * The JSON body's schema: the handler's answer is serialised with a serialiser compiled from it
   * (codecs.ts). Absent for a body that is not JSON of a fixed schema (then `content` documents it).
   */
  schema?: SchemaName;
  /** OpenAPI content of a response without `schema` (text, free-form JSON). */
  content?: Record<string, unknown>;
  /** Response headers the handler sets, with what each means (documented as strings). */
  headers?: Readonly<Record<string, string>>;
}

/** The request body of an operation. */
export interface BodyDeclaration {
  /** Media types accepted (415 otherwise); the first one and every other JSON type are documented with `schema`. */
  mediaTypes: readonly string[];
  /** The body's schema as published. */
  schema: SchemaName;
  /**
   * True when the adapter validates the body with `schema` before calling the engine; false when the
   * engine validates it itself (events, settings, search keys: their errors carry the engine's paths).
   */
  validate: boolean;
  /** OpenAPI content overriding the one derived from `schema` (streamed product feeds). */
  content?: Record<string, unknown>;
}

/** One operation: a method on an endpoint. */
export interface OperationDeclaration {
  method: HttpMethod;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  auth: AuthKind;
  /**
   * The contract's schema of the query string, when the operation reads one: the router decodes and
   * validates the query with it before the handler runs (query.ts), and OpenAPI lists its parameters.
   */
  query?: QuerySchemaName;
  body?: BodyDeclaration;
  /** Optional request headers the handler reads, with what each means (documented as strings). */
  requestHeaders?: Readonly<Record<string, string>>;
  /** Successful responses by status. */
  responses: Readonly<Record<number, ResponseDeclaration>>;
  /**
   * Error statuses the operation answers, with what each means; written in the endpoint's error shape.
   * 405 is added to every operation (any other method is answered so); 503 (engine closing, store failed,
   * timeout) to every operation that declares errors.
   */
  errors?: Readonly<Record<number, string>>;
  handler: Handler;
}

/** One endpoint: a path template and its operations. */
export interface EndpointDeclaration {
  /** Path template with `{name}` parameters, as in OpenAPI and the metrics label. */
  path: string;
  /** Descriptions of the path parameters, by name (every `{name}` of `path`). */
  pathParams?: Readonly<Record<string, string>>;
  /** The error shape of every answer that is not a success. */
  errorShape: ErrorShape;
  /** Browser-called: CORS headers per the website's settings, and preflights answered. */
  cors: boolean;
  /** Subject to `handlerTimeoutMs` (default true; not the product upload, whose duration grows with the feed). */
  timed?: boolean;
  /**
   * A GET that changes state (the spec's coupon call): HEAD is not implied, so a HEAD request (link
   * checkers, prefetchers) is answered 405 and changes nothing. Every other GET also answers HEAD.
   */
  getChangesState?: boolean;
  /** Left out of the OpenAPI document (the dashboard's files, the catch-all of unknown methods). */
  undocumented?: boolean;
  /**
   * Reads no query string and ignores one, where every other operation refuses a name it does not
   * declare (decision 0092): probes and monitors, the OpenAPI document and the dashboard's page and
   * files (whose URLs get cache busters and probe parameters), and the catch-all of unknown methods
   * (answered 404 whatever it is sent).
   */
  queryIgnored?: true;
  operations: readonly OperationDeclaration[];
}

const UNSUPPORTED_JSON = 'Content-Type is not application/json.';
const JSON_BODY = ['application/json'] as const;
/** The errors of every JSON body read whole (a feed upload has its own: {@link FEED_ERRORS}). */
const JSON_BODY_ERRORS = { 413: 'Body too large.', 415: UNSUPPORTED_JSON };
/** The errors of a product-feed upload that only the feed has (PUT and PATCH of products). */
const FEED_ERRORS = {
  413: `Upload above the limit (default ${byteSize(DEFAULT_LIMITS.adminMaxBytes)}); nothing was changed.`,
  415: 'Not JSON or NDJSON.',
};
/** The version of the settings an answer carries (docs/http-api.md, "Concurrent edits"). */
const SETTINGS_ETAG = { ETag: 'The version of the settings answered: a strong entity tag to send back as If-Match.' };
/** The condition a settings write may carry, and its refusal. */
const SETTINGS_IF_MATCH = {
  requestHeaders: { 'If-Match': 'Write only while the settings are at this version (an ETag of GET or of an earlier write; * or no header: unconditionally).' },
  error: { 412: 'The settings changed since the version in If-Match was read (another editor saved): nothing was changed; read them again.' },
};
/** A settings change refused because stored products do not fit the pinned field types it sets. */
const FIELD_TYPES_CONFLICT = { 409: 'Stored products do not fit the pinned field types (fields); records lists up to 100 of them. Nothing was changed.' };
const PRODUCT_FEED_TYPES = ['application/json', 'application/x-ndjson', 'application/ndjson', 'application/jsonl'] as const;

const WEBSITE_ID = { website_id: 'Website id.' };
const ADMIN_WEBSITE = { websiteId: 'Website id.' };

/** The documented errors of admin operations, plus those of one operation. */
const adminErrors = (extra: Record<number, string> = {}): Record<number, string> => ({
  400: 'Invalid request.', 401: 'Missing or invalid admin token.', 404: 'Unknown website.', ...extra,
});

/** The read of one product by URL (on `product`, and on `productsDelete` for the refId "delete"). */
const productRead = (operationId: string, summary: string, notFound: string): OperationDeclaration => ({
  method: 'GET', operationId, tag: 'admin', summary, auth: 'admin',
  // Products are free-form JSON: written as given, not through a fixed schema.
  responses: { 200: { description: 'The product.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Product' } } } } },
  errors: adminErrors({ 404: notFound }),
  handler: h.getProduct,
});

/** The delete of one product by URL (idempotent: an unknown refId answers deleted 0). */
const productDelete = (operationId: string, summary: string): OperationDeclaration => ({
  method: 'DELETE', operationId, tag: 'admin', summary, auth: 'admin',
  responses: { 200: { description: 'Deleted count (0 for an unknown refId).', schema: 'DeleteResult' } },
  errors: adminErrors(),
  handler: h.deleteProduct,
});

const EVENT_ERRORS = {
  400: 'Validation errors keyed by property path; malformed JSON under "$".', 401: 'Missing or invalid token.',
  ...JSON_BODY_ERRORS,
};

/** An event endpoint: the website token names the website; the engine validates the body (errors under its paths). */
function eventEndpoint(kind: 'purchases' | 'views', operationId: string, summary: string, schema: SchemaName): EndpointDeclaration {
  return {
    path: `/3.0/events/${kind}`, errorShape: 'problem', cors: false,
    operations: [{
      method: 'POST', operationId, tag: 'events', summary, auth: 'website',
      body: { mediaTypes: JSON_BODY, schema, validate: false },
      responses: { 202: { description: 'Accepted (durable).', schema: 'EventAck' } },
      errors: kind === 'purchases'
        ? { ...EVENT_ERRORS, 409: 'An orderId already recorded with other content (named under its events[i].OrderId path); nothing of the request was stored. A replay with the same content answers 202 with the first transactionId.' }
        : EVENT_ERRORS,
      handler: h.events(kind),
    }],
  };
}

/** The product feed body of PUT and PATCH (streamed into the engine, which checks each record). */
const productFeed = (ndjson: string): BodyDeclaration => ({
  mediaTypes: PRODUCT_FEED_TYPES, schema: 'Product', validate: false,
  content: {
    'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Product' } } },
    'application/x-ndjson': { schema: { type: 'string', description: ndjson } },
  },
});

/** The recommendation endpoint of one method segment. */
function recommendEndpoint(method: string): EndpointDeclaration {
  return {
    path: `/1.0/ClientRecom/{website_id}/${method}`, pathParams: WEBSITE_ID, errorShape: 'envelope', cors: true,
    operations: [{
      method: 'GET', operationId: `recommend${method}`, tag: 'recommendations', summary: `Recommendation method ${method}.`, auth: 'public',
      query: 'RecommendQuery',
      responses: { 200: { description: 'RefIds chosen by the method, with slot data.', schema: 'RecommendResponse' } },
      errors: { 400: 'Malformed query parameter (named in the message).', 404: 'Unknown website.' },
      handler: h.recommend(method),
    }],
  };
}

/** The recommendation endpoints, one per method segment of the spec, in its order. */
export const recommendEndpoints: readonly EndpointDeclaration[] = RECOMMEND_METHODS.map(recommendEndpoint);

/**
 * `/1.0/ClientRecom/{website_id}/{method}` for a segment that names no method: answered 404 in the
 * envelope shape (the router tries it after the declared methods, matched case-insensitively).
 */
export const unknownRecommendMethod: EndpointDeclaration = {
  path: '/1.0/ClientRecom/{website_id}/{method}', errorShape: 'envelope', cors: true, undocumented: true, queryIgnored: true,
  operations: [{
    method: 'GET', operationId: 'unknownRecommendMethod', tag: 'recommendations', summary: 'Unknown recommendation method.', auth: 'public',
    responses: {}, handler: h.unknownMethod,
  }],
};

/** Every endpoint of the surface, by a stable name (the order is the OpenAPI document's). */
export const endpoints = {
  search: {
    path: '/v1.4/search', errorShape: 'envelope', cors: true,
    operations: [{
      method: 'POST', operationId: 'search', tag: 'search', summary: 'Search products (facets, ranges, scope, sorting).', auth: 'search',
      body: { mediaTypes: JSON_BODY, schema: 'SearchRequest', validate: true },
      responses: { 200: { description: 'A page of results.', schema: 'SearchResponse' } },
      errors: {
        400: 'Invalid body, unknown or non-numeric range_fields, bad scope or sort, malformed JSON, limits.',
        401: 'Missing or invalid token, or the token does not open website_id.',
        404: 'Unknown client for the website.', ...JSON_BODY_ERRORS,
      },
      handler: h.search,
    }],
  },
  bundle: {
    path: '/1.0/ClientRecom/{website_id}/bundle', pathParams: WEBSITE_ID, errorShape: 'envelope', cors: true,
    operations: [{
      method: 'POST', operationId: 'bundles', tag: 'recommendations', summary: 'Bundles of items often bought together.', auth: 'public',
      body: { mediaTypes: JSON_BODY, schema: 'BundleRequest', validate: true },
      responses: { 200: { description: 'A list of bundles.', schema: 'BundleResponse' } },
      errors: { 400: 'Invalid body.', 404: 'Unknown website.', ...JSON_BODY_ERRORS },
      handler: h.bundle,
    }],
  },
  purchases: eventEndpoint('purchases', 'recordPurchases', 'Record purchases (the token names the website).', 'PurchaseRequest'),
  views: eventEndpoint('views', 'recordViews', 'Record product views (extension).', 'ViewRequest'),
  clicks: {
    // Browser-called: CORS as for search (the key names the website; see cors.ts).
    path: '/3.0/events/clicks', errorShape: 'problem', cors: true,
    operations: [{
      method: 'POST', operationId: 'recordClicks', tag: 'events', auth: 'insights',
      summary: 'Record clicks and add-to-carts on search and recommendation results (extension).',
      description: 'Each queryId must be the query_id (search) or queryId (recommendation, bundle) of a list answered for the website, '
        + 'holding refId at position (1-based over the whole list). Idempotent per clickId.',
      body: { mediaTypes: JSON_BODY, schema: 'ClickRequest', validate: false },
      responses: { 202: { description: 'Accepted (durable).', schema: 'EventAck' } },
      errors: {
        ...EVENT_ERRORS, 401: 'Missing or invalid token, or a key whose actions do not include insights.',
        409: 'A clickId already recorded with other content (named under its events[i].ClickId path); nothing of the request was stored. A replay with the same content answers 202 with the first transactionId.',
      },
      handler: h.clicks,
    }],
  },
  coupon: {
    path: '/b2b/coupon/mark_as_used', errorShape: 'envelope', cors: true, getChangesState: true,
    operations: [{
      method: 'GET', operationId: 'markCouponUsed', tag: 'coupons', summary: 'Mark a price-beat code as used.', auth: 'public',
      query: 'CouponQuery',
      responses: { 200: { description: 'Marked as used.', schema: 'CouponUsed' } },
      errors: { 400: 'Missing parameter.', 404: 'Unknown code or client.', 409: 'Already used.' },
      handler: h.markCouponUsed,
    }],
  },
  products: {
    path: '/admin/v1/websites/{websiteId}/products', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false, timed: false,
    operations: [
      {
        method: 'PUT', operationId: 'putProducts', tag: 'admin', summary: 'Upsert products by refId, or replace the whole catalog (mode=replace).', auth: 'admin',
        query: 'ProductsPutQuery',
        body: productFeed('One product object per line.'),
        responses: { 200: { description: 'What the load did.', schema: 'LoadSummary' } },
        errors: adminErrors(FEED_ERRORS),
        handler: h.products,
      },
      {
        method: 'PATCH', operationId: 'patchProducts', tag: 'admin', auth: 'admin',
        summary: 'Partial updates: each record (with refId) is merged into the stored product (JSON Merge Patch, RFC 7396; null removes a field).',
        query: 'ProductsPatchQuery',
        body: productFeed('One partial product object (with refId) per line.'),
        responses: { 200: { description: 'What the patch did (loaded = products changed).', schema: 'LoadSummary' } },
        errors: adminErrors({ 400: 'Invalid request, or (onError=reject) a record whose refId is not in the catalog; nothing was changed.', ...FEED_ERRORS }),
        handler: h.products,
      },
    ],
  },
  product: {
    path: '/admin/v1/websites/{websiteId}/products/{refId}', pathParams: { ...ADMIN_WEBSITE, refId: 'Product reference id.' }, errorShape: 'problem', cors: false,
    operations: [
      productRead('getProduct', 'The stored product exactly as given (after patches).', 'Unknown website or refId.'),
      productDelete('deleteProduct', 'Delete one product (idempotent).'),
    ],
  },
  productsDelete: {
    // A literal segment where `product` has {refId}: the router matches it first, so it also answers for
    // the product whose refId is "delete" (GET and DELETE below), which stays addressable by URL.
    path: `/admin/v1/websites/{websiteId}/products/${h.BULK_DELETE_SEGMENT}`, pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [
      {
        method: 'POST', operationId: 'bulkDeleteProducts', tag: 'admin', auth: 'admin',
        summary: 'Delete many products at once, by refIds or by scope: all or nothing, as one catalog change.',
        body: { mediaTypes: JSON_BODY, schema: 'BulkDeleteRequest', validate: false },
        responses: { 200: { description: 'Products deleted, and the refIds asked for that the catalog did not hold.', schema: 'BulkDeleteResult' } },
        errors: adminErrors({
          400: 'Neither or both of refIds and scope, an empty list or scope, more than 10,000 refIds, or a scope that does not fit the catalog; nothing was deleted.',
          ...JSON_BODY_ERRORS,
        }),
        handler: h.bulkDeleteProducts,
      },
      productRead('getProductNamedDelete', 'The stored product whose refId is "delete" (as GET …/products/{refId}).', 'Unknown website, or no product "delete".'),
      productDelete('deleteProductNamedDelete', 'Delete the product whose refId is "delete" (as DELETE …/products/{refId}; idempotent).'),
    ],
  },
  coupons: {
    path: '/admin/v1/websites/{websiteId}/coupons', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [{
      method: 'POST', operationId: 'issueCoupons', tag: 'admin', summary: 'Issue price-beat codes.', auth: 'admin',
      body: { mediaTypes: JSON_BODY, schema: 'CouponIssueRequest', validate: true },
      responses: { 201: { description: 'Issued.', schema: 'CouponIssueResult' } },
      errors: adminErrors({
        ...JSON_BODY_ERRORS,
        409: 'A code the website already holds with another customerId or discount (named under its coupons[i].Code path); nothing of the request was issued. The same content again answers 201 and counts nothing.',
      }),
      handler: h.issueCoupons,
    }],
  },
  stats: {
    path: '/admin/v1/websites/{websiteId}/stats', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [{
      method: 'GET', operationId: 'stats', tag: 'admin', summary: 'Counters of one website.', auth: 'admin',
      responses: { 200: { description: 'Counters.', schema: 'WebsiteStats' } }, errors: adminErrors(), handler: h.stats,
    }],
  },
  keys: {
    path: '/admin/v1/websites/{websiteId}/keys', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [
      {
        method: 'GET', operationId: 'listSearchKeys', tag: 'admin', summary: 'The website\'s browser search keys (without the keys themselves).', auth: 'admin',
        responses: { 200: { description: 'The keys, oldest first.', schema: 'SearchKeyList' } }, errors: adminErrors(), handler: h.listSearchKeys,
      },
      {
        method: 'POST', operationId: 'createSearchKey', tag: 'admin', auth: 'admin',
        summary: 'Create a browser key: it opens, on this website only, search (with an optional forced scope), click events (insights), or both; optional expiry.',
        body: { mediaTypes: JSON_BODY, schema: 'SearchKeyRequest', validate: false },
        responses: { 201: { description: 'Created; `key` is shown this once.', schema: 'CreatedSearchKey' } },
        errors: adminErrors({ 413: 'Body too large, or the website already has the most keys allowed.', 415: UNSUPPORTED_JSON }),
        handler: h.createSearchKey,
      },
    ],
  },
  key: {
    path: '/admin/v1/websites/{websiteId}/keys/{key}', pathParams: { ...ADMIN_WEBSITE, key: 'The key, or its id.' }, errorShape: 'problem', cors: false,
    operations: [{
      method: 'DELETE', operationId: 'revokeSearchKey', tag: 'admin', summary: 'Revoke a search key, given by the key or by its id.', auth: 'admin',
      responses: { 204: { description: 'Revoked (every replica refuses it within 2 s).' } },
      errors: adminErrors({ 404: 'Unknown website, or the website has no such key.' }),
      handler: h.revokeSearchKey,
    }],
  },
  attribution: {
    path: '/admin/v1/websites/{websiteId}/reports/attribution', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [{
      method: 'GET', operationId: 'attributionReport', tag: 'admin', summary: 'Attributed revenue, retail-media spend, price-beat discounts.', auth: 'admin',
      query: 'AttributionReportQuery',
      responses: { 200: { description: 'The report.', schema: 'AttributionReport' } }, errors: adminErrors(), handler: h.attribution,
    }],
  },
  searchReport: {
    path: '/admin/v1/websites/{websiteId}/reports/searches', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [{
      method: 'GET', operationId: 'searchReport', tag: 'admin', auth: 'admin',
      summary: 'Top queries with their clicks and conversions, queries without results, queries without clicks, from the search log.',
      query: 'SearchReportQuery',
      responses: { 200: { description: 'The report.', schema: 'SearchReport' } }, errors: adminErrors(), handler: h.searchReport,
    }],
  },
  recommendationReport: {
    path: '/admin/v1/websites/{websiteId}/reports/recommendations', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [{
      method: 'GET', operationId: 'recommendationReport', tag: 'admin', auth: 'admin',
      summary: 'Per recommendation method and tactic: responses served, items, clicks, conversions, revenue.',
      query: 'RecommendationReportQuery',
      responses: { 200: { description: 'The report.', schema: 'RecommendationReport' } }, errors: adminErrors(), handler: h.recommendationReport,
    }],
  },
  settings: {
    path: '/admin/v1/websites/{websiteId}/settings', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [
      {
        method: 'GET', operationId: 'getSettings', tag: 'admin', summary: 'The website\'s settings: every key, defaults filled in.', auth: 'admin',
        responses: { 200: { description: 'The settings.', schema: 'WebsiteSettings', headers: SETTINGS_ETAG } }, errors: adminErrors(), handler: h.getSettings,
      },
      {
        method: 'PUT', operationId: 'putSettings', tag: 'admin', summary: 'Replace the settings (applied to the next request; stored for every replica).', auth: 'admin',
        body: { mediaTypes: JSON_BODY, schema: 'WebsiteSettings', validate: false }, requestHeaders: SETTINGS_IF_MATCH.requestHeaders,
        responses: { 200: { description: 'The settings now in force (every key).', schema: 'WebsiteSettings', headers: SETTINGS_ETAG } },
        errors: adminErrors({ 400: 'Invalid settings; the message names the key. Nothing was changed.', ...FIELD_TYPES_CONFLICT, ...SETTINGS_IF_MATCH.error, ...JSON_BODY_ERRORS }),
        handler: h.updateSettings,
      },
      {
        method: 'PATCH', operationId: 'patchSettings', tag: 'admin', summary: 'Merge into the settings (JSON Merge Patch, RFC 7396; null removes a key).', auth: 'admin',
        body: { mediaTypes: ['application/json', 'application/merge-patch+json'], schema: 'WebsiteSettings', validate: false }, requestHeaders: SETTINGS_IF_MATCH.requestHeaders,
        responses: { 200: { description: 'The settings now in force (every key).', schema: 'WebsiteSettings', headers: SETTINGS_ETAG } },
        errors: adminErrors({ 400: 'Invalid settings after the merge; the message names the key. Nothing was changed.', ...FIELD_TYPES_CONFLICT, ...SETTINGS_IF_MATCH.error, 413: 'Body too large.', 415: 'Not JSON.' }),
        handler: h.updateSettings,
      },
    ],
  },
  experiments: {
    path: '/admin/v1/websites/{websiteId}/experiments', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [
      {
        method: 'GET', operationId: 'listExperiments', tag: 'admin', summary: 'The website\'s experiments, oldest first.', auth: 'admin',
        responses: { 200: { description: 'The experiments.', schema: 'ExperimentList' } }, errors: adminErrors(), handler: h.listExperiments,
      },
      {
        method: 'POST', operationId: 'createExperiment', tag: 'admin', auth: 'admin',
        summary: 'Start an A/B or interleaving experiment of search settings or recommendation cascades (docs/experiments.md).',
        body: { mediaTypes: JSON_BODY, schema: 'ExperimentRequest', validate: false },
        responses: { 201: { description: 'Created; every replica assigns customers to it within a second.', schema: 'Experiment' } },
        errors: adminErrors({
          400: 'Invalid experiment; the message names the field (a variant\'s settings are validated merged over the website\'s). Nothing was stored.',
          409: 'The website has an experiment of this kind that is not stopped.',
          413: 'Body too large, or the website already keeps the most experiments allowed.', 415: UNSUPPORTED_JSON,
        }),
        handler: h.createExperiment,
      },
    ],
  },
  experiment: {
    path: '/admin/v1/websites/{websiteId}/experiments/{experimentId}', pathParams: { ...ADMIN_WEBSITE, experimentId: 'The experiment\'s id.' },
    errorShape: 'problem', cors: false,
    operations: [
      {
        method: 'GET', operationId: 'experimentReport', tag: 'admin', auth: 'admin',
        summary: 'An experiment with its report: per variant users, searches or lists served, clicks, CTR, conversions, revenue, with 95 % intervals and tests against the control.',
        responses: { 200: { description: 'The experiment and its report.', schema: 'ExperimentReport' } },
        errors: adminErrors({ 404: 'Unknown website, or no such experiment.' }), handler: h.experimentReport,
      },
      {
        method: 'DELETE', operationId: 'deleteExperiment', tag: 'admin', summary: 'Delete a stopped experiment.', auth: 'admin',
        responses: { 204: { description: 'Deleted.' } },
        errors: adminErrors({ 404: 'Unknown website, or no such experiment.', 409: 'The experiment is not stopped.' }), handler: h.deleteExperiment,
      },
    ],
  },
  experimentStop: {
    path: '/admin/v1/websites/{websiteId}/experiments/{experimentId}/stop', pathParams: { ...ADMIN_WEBSITE, experimentId: 'The experiment\'s id.' },
    errorShape: 'problem', cors: false,
    operations: [{
      method: 'POST', operationId: 'stopExperiment', tag: 'admin', auth: 'admin',
      summary: 'Stop an experiment: its customers get the control again (stopping a stopped one answers it unchanged).',
      responses: { 200: { description: 'The experiment, stopped.', schema: 'Experiment' } },
      errors: adminErrors({ 404: 'Unknown website, or no such experiment.' }), handler: h.stopExperiment,
    }],
  },
  settingsPreview: {
    path: '/admin/v1/websites/{websiteId}/settings/preview', pathParams: ADMIN_WEBSITE, errorShape: 'problem', cors: false,
    operations: [{
      method: 'POST', operationId: 'previewSettings', tag: 'admin', auth: 'admin',
      summary: 'Rank one search under the settings in force and under them with a change merged in (as PATCH …/settings would merge it); nothing is stored.',
      description: 'The change is validated as the PATCH would validate it (400 naming the key, 409 for pinned field types stored products '
        + 'do not fit); the search is neither logged nor remembered for clicks (its pages carry no query id). See docs/http-api.md, "Ranking preview".',
      // The engine validates the body (its settings after the merge, as a PATCH): errors carry the engine's paths.
      body: { mediaTypes: JSON_BODY, schema: 'SettingsPreviewRequest', validate: false },
      responses: { 200: { description: 'Both pages and every product\'s positions.', schema: 'SettingsPreview' } },
      errors: adminErrors({
        400: 'A bad field of the search (named as search.<field>), an unknown top-level key, or invalid settings after the merge (named as settings.<key>).',
        ...FIELD_TYPES_CONFLICT, ...JSON_BODY_ERRORS,
      }),
      handler: h.previewSettings,
    }],
  },
  healthz: {
    path: '/healthz', errorShape: 'envelope', cors: false, queryIgnored: true,
    operations: [{
      method: 'GET', operationId: 'healthz', tag: 'operations', summary: 'Liveness.', auth: 'public',
      responses: { 200: { description: 'Up.', schema: 'Health' } }, handler: h.healthz,
    }],
  },
  readyz: {
    path: '/readyz', errorShape: 'envelope', cors: false, queryIgnored: true,
    operations: [{
      method: 'GET', operationId: 'readyz', tag: 'operations', summary: 'Readiness (503 with the failed checks and their reasons).', auth: 'public',
      description: 'Not ready (503) while the store is unreachable, the data directory is not writable, recommendation indexes are being built, or the server is starting or shutting down.',
      responses: { 200: { description: 'Ready.', schema: 'Health' }, 503: { description: 'Not ready.', schema: 'Health' } },
      handler: h.readyz,
    }],
  },
  metrics: {
    path: '/metrics', errorShape: 'envelope', cors: false, queryIgnored: true,
    operations: [{
      method: 'GET', operationId: 'metrics', tag: 'operations', summary: 'Prometheus metrics (text format).', auth: 'public',
      responses: { 200: { description: 'Metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      errors: { 404: 'Metrics are turned off.' },
      handler: h.metrics,
    }],
  },
  openapi: {
    path: '/openapi.json', errorShape: 'envelope', cors: false, queryIgnored: true,
    operations: [{
      method: 'GET', operationId: 'openapi', tag: 'operations', summary: 'This document.', auth: 'public',
      responses: { 200: { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } } },
      handler: h.openapi,
    }],
  },
  dashboard: {
    path: '/', errorShape: 'envelope', cors: false, undocumented: true, queryIgnored: true,
    operations: [{ method: 'GET', operationId: 'dashboard', tag: 'operations', summary: 'The dashboard page.', auth: 'public', responses: {}, handler: dashboardPage }],
  },
  dashboardConfig: {
    path: '/dashboard/config.json', errorShape: 'envelope', cors: false, queryIgnored: true,
    operations: [{
      method: 'GET', operationId: 'dashboardConfig', tag: 'operations', summary: 'What the dashboard page needs to start.',
      description: 'Public identifiers only (never a token): the websites with their facet, range and display fields (from '
        + 'settings.fieldRoles), the recommendation methods and those that need a customer id, and the search key and demo '
        + 'customers the server was started with (the demo). See docs/http-api.md, "The dashboard\'s configuration".',
      auth: 'public',
      responses: { 200: { description: 'The configuration.', content: { 'application/json': { schema: DASHBOARD_CONFIG_SCHEMA } } } },
      errors: { 404: 'The dashboard is turned off (dashboard: false).' },
      handler: dashboardConfigFile,
    }],
  },
  dashboardAsset: {
    path: '/dashboard/{file}', errorShape: 'envelope', cors: false, undocumented: true, queryIgnored: true,
    operations: [{ method: 'GET', operationId: 'dashboardAsset', tag: 'operations', summary: 'A dashboard file.', auth: 'public', responses: {}, handler: dashboardAsset }],
  },
} as const satisfies Record<string, EndpointDeclaration>;

/** The name of one endpoint of {@link endpoints}. */
export type EndpointName = keyof typeof endpoints;

/**
 * Every declared endpoint in document order: search, the recommendation methods, then the rest (the
 * order of the OpenAPI `paths`).
 */
export const allEndpoints: readonly EndpointDeclaration[] = [
  endpoints.search, ...recommendEndpoints,
  ...Object.values(endpoints).filter((e) => e !== endpoints.search),
  unknownRecommendMethod,
];

/** The `{name}` parameters of a path template, in order. */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}
