/**
 * The OpenAPI 3.1 description of the whole HTTP surface, built from the schemas module (the same
 * schemas validate requests and serialise responses).
 * @module
 */
import { RECOMMEND_METHODS, schemas, type JsonSchema, type SchemaName } from './schemas.js';

const json = (name: SchemaName) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } });
const problem = { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } };
const envelope = json('ErrorEnvelope');

const errorResponse = (description: string, shape: 'envelope' | 'problem') => ({ description, content: shape === 'problem' ? problem : envelope });

/** Every endpoint can answer 503: the engine is closing, the store failed, or the engine did not answer in time. */
const UNAVAILABLE = 'The engine is closing, the store failed (nothing was recorded), or the engine did not answer in time.';

function errors(shape: 'envelope' | 'problem', statuses: Record<number, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, description] of Object.entries({ ...statuses, 503: UNAVAILABLE })) out[status] = errorResponse(description, shape);
  return out;
}

const queryParam = (name: string, schema: JsonSchema, description: string, required = false) => ({ name, in: 'query', required, description, schema });
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });

const bearer = [{ bearer: [] }];
const admin = [{ adminBearer: [] }];

/** The recommendation query parameters. */
const recommendParameters = [
  queryParam('customerId', { type: 'string' }, 'Customer id from the configuration interface.'),
  queryParam('productRef', { type: 'string' }, 'Product reference id.'),
  queryParam('productStyleId', { type: 'string' }, 'Style id (between product and SKU).'),
  {
    name: 'items', in: 'query', required: false, style: 'form', explode: true,
    description: 'RefIds in the cart: the indexed form items[0]=a&items[1]=b, or repeated items=a&items=b (at most 100).',
    schema: { type: 'array', items: { type: 'string' } },
  },
  queryParam('filterOutOfStock', { type: 'string', enum: ['true', 'false', '1', '0'] }, 'Drop out-of-stock items.'),
  queryParam('count', { type: 'integer', minimum: 1, maximum: 100, default: 10 }, 'List length (default 10, at most 100).'),
];

const common415 = 'Content-Type is not application/json.';

/** Builds the OpenAPI document; `prefix` becomes the server URL when the surface is mounted under one. */
export function buildOpenApi(options: { prefix?: string } = {}): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  paths['/v1.4/search'] = {
    post: {
      operationId: 'search', tags: ['search'], summary: 'Search products (facets, ranges, scope, sorting).',
      security: [...bearer, { searchKey: [] }],
      requestBody: { required: true, content: json('SearchRequest') },
      responses: {
        200: { description: 'A page of results.', content: json('SearchResponse') },
        ...errors('envelope', {
          400: 'Invalid body, unknown or non-numeric range_fields, bad scope or sort, malformed JSON, limits.',
          401: 'Missing or invalid token, or the token does not open website_id.',
          404: 'Unknown client for the website.', 405: 'Method not allowed.', 413: 'Body too large.', 415: common415,
        }),
      },
    },
  };
  for (const method of RECOMMEND_METHODS) {
    paths[`/1.0/ClientRecom/{website_id}/${method}`] = {
      get: {
        operationId: `recommend${method}`, tags: ['recommendations'], summary: `Recommendation method ${method}.`,
        parameters: [pathParam('website_id', 'Website id.'), ...recommendParameters],
        responses: {
          200: { description: 'RefIds chosen by the method, with slot data.', content: json('RecommendResponse') },
          ...errors('envelope', { 400: 'Malformed query parameter (named in the message).', 404: 'Unknown website.', 405: 'Method not allowed.' }),
        },
      },
    };
  }
  paths['/1.0/ClientRecom/{website_id}/bundle'] = {
    post: {
      operationId: 'bundles', tags: ['recommendations'], summary: 'Bundles of items often bought together.',
      parameters: [pathParam('website_id', 'Website id.')],
      requestBody: { required: true, content: json('BundleRequest') },
      responses: {
        200: { description: 'A list of bundles.', content: json('BundleResponse') },
        ...errors('envelope', { 400: 'Invalid body.', 404: 'Unknown website.', 405: 'Method not allowed.', 413: 'Body too large.', 415: common415 }),
      },
    },
  };
  const eventErrors = errors('problem', {
    400: 'Validation errors keyed by property path; malformed JSON under "$".', 401: 'Missing or invalid token.',
    405: 'Method not allowed.', 413: 'Body too large.', 415: common415,
  });
  paths['/3.0/events/purchases'] = {
    post: {
      operationId: 'recordPurchases', tags: ['events'], summary: 'Record purchases (the token names the website).', security: bearer,
      requestBody: { required: true, content: json('PurchaseRequest') },
      responses: { 202: { description: 'Accepted (durable).', content: json('EventAck') }, ...eventErrors },
    },
  };
  paths['/3.0/events/views'] = {
    post: {
      operationId: 'recordViews', tags: ['events'], summary: 'Record product views (extension).', security: bearer,
      requestBody: { required: true, content: json('ViewRequest') },
      responses: { 202: { description: 'Accepted (durable).', content: json('EventAck') }, ...eventErrors },
    },
  };
  paths['/b2b/coupon/mark_as_used'] = {
    get: {
      operationId: 'markCouponUsed', tags: ['coupons'], summary: 'Mark a price-beat code as used.',
      parameters: [
        queryParam('code', { type: 'string' }, 'The price-beat promotion code.', true),
        queryParam('client', { type: 'string' }, 'The website id (or its client shortcode).', true),
      ],
      responses: {
        200: { description: 'Marked as used.', content: json('CouponUsed') },
        ...errors('envelope', { 400: 'Missing parameter.', 404: 'Unknown code or client.', 405: 'Method not allowed.', 409: 'Already used.' }),
      },
    },
  };
  const adminErrors = (extra: Record<number, string> = {}) => errors('problem', {
    400: 'Invalid request.', 401: 'Missing or invalid admin token.', 404: 'Unknown website.', 405: 'Method not allowed.', ...extra,
  });
  const websiteParam = pathParam('websiteId', 'Website id.');
  paths['/admin/v1/websites/{websiteId}/products'] = {
    put: {
      operationId: 'putProducts', tags: ['admin'], summary: 'Upsert products by refId, or replace the whole catalog (mode=replace).', security: admin,
      parameters: [
        websiteParam,
        queryParam('mode', { type: 'string', enum: ['upsert', 'replace'], default: 'upsert' }, 'replace swaps the whole catalog atomically.'),
        queryParam('onError', { type: 'string', enum: ['reject', 'skip'], default: 'reject' }, 'reject: a bad record aborts the load and changes nothing; skip: bad records are reported and skipped.'),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Product' } } },
          'application/x-ndjson': { schema: { type: 'string', description: 'One product object per line.' } },
        },
      },
      responses: { 200: { description: 'What the load did.', content: json('LoadSummary') }, ...adminErrors({ 413: 'Upload above the limit (default 1 GiB); nothing was changed.', 415: 'Not JSON or NDJSON.' }) },
    },
    patch: {
      operationId: 'patchProducts', tags: ['admin'],
      summary: 'Partial updates: each record (with refId) is merged into the stored product (JSON Merge Patch, RFC 7396; null removes a field).',
      security: admin,
      parameters: [
        websiteParam,
        queryParam('onError', { type: 'string', enum: ['reject', 'skip'], default: 'reject' }, 'reject: a bad record or an unknown refId refuses the whole request and changes nothing; skip: such records are reported and skipped.'),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Product' } } },
          'application/x-ndjson': { schema: { type: 'string', description: 'One partial product object (with refId) per line.' } },
        },
      },
      responses: { 200: { description: 'What the patch did (loaded = products changed).', content: json('LoadSummary') }, ...adminErrors({ 400: 'Invalid request, or (onError=reject) a record whose refId is not in the catalog; nothing was changed.', 413: 'Upload above the limit (default 1 GiB); nothing was changed.', 415: 'Not JSON or NDJSON.' }) },
    },
  };
  paths['/admin/v1/websites/{websiteId}/products/{refId}'] = {
    get: {
      operationId: 'getProduct', tags: ['admin'], summary: 'The stored product exactly as given (after patches).', security: admin,
      parameters: [websiteParam, pathParam('refId', 'Product reference id.')],
      responses: { 200: { description: 'The product.', content: json('Product') }, ...adminErrors({ 404: 'Unknown website or refId.' }) },
    },
    delete: {
      operationId: 'deleteProduct', tags: ['admin'], summary: 'Delete one product (idempotent).', security: admin,
      parameters: [websiteParam, pathParam('refId', 'Product reference id.')],
      responses: { 200: { description: 'Deleted count (0 for an unknown refId).', content: json('DeleteResult') }, ...adminErrors() },
    },
  };
  paths['/admin/v1/websites/{websiteId}/coupons'] = {
    post: {
      operationId: 'issueCoupons', tags: ['admin'], summary: 'Issue price-beat codes.', security: admin,
      parameters: [websiteParam],
      requestBody: { required: true, content: json('CouponIssueRequest') },
      responses: { 201: { description: 'Issued.', content: json('CouponIssueResult') }, ...adminErrors({ 413: 'Body too large.', 415: common415 }) },
    },
  };
  paths['/admin/v1/websites/{websiteId}/stats'] = {
    get: {
      operationId: 'stats', tags: ['admin'], summary: 'Counters of one website.', security: admin,
      parameters: [websiteParam],
      responses: { 200: { description: 'Counters.', content: json('WebsiteStats') }, ...adminErrors() },
    },
  };
  paths['/admin/v1/websites/{websiteId}/keys'] = {
    get: {
      operationId: 'listSearchKeys', tags: ['admin'], summary: 'The website\'s browser search keys (without the keys themselves).', security: admin,
      parameters: [websiteParam],
      responses: { 200: { description: 'The keys, oldest first.', content: json('SearchKeyList') }, ...adminErrors() },
    },
    post: {
      operationId: 'createSearchKey', tags: ['admin'],
      summary: 'Create a browser search key: it opens only search on this website, with an optional forced scope and expiry.', security: admin,
      parameters: [websiteParam],
      requestBody: { required: true, content: json('SearchKeyRequest') },
      responses: { 201: { description: 'Created; `key` is shown this once.', content: json('CreatedSearchKey') }, ...adminErrors({ 413: 'Body too large, or the website already has the most keys allowed.', 415: common415 }) },
    },
  };
  paths['/admin/v1/websites/{websiteId}/keys/{key}'] = {
    delete: {
      operationId: 'revokeSearchKey', tags: ['admin'], summary: 'Revoke a search key, given by the key or by its id.', security: admin,
      parameters: [websiteParam, pathParam('key', 'The key, or its id.')],
      responses: { 204: { description: 'Revoked (every replica refuses it within 2 s).' }, ...adminErrors({ 404: 'Unknown website, or the website has no such key.' }) },
    },
  };
  paths['/admin/v1/websites/{websiteId}/reports/attribution'] = {
    get: {
      operationId: 'attributionReport', tags: ['admin'], summary: 'Attributed revenue, retail-media spend, price-beat discounts.', security: admin,
      parameters: [
        websiteParam,
        queryParam('from', { type: 'string' }, 'ISO 8601 date-time, start (inclusive).'),
        queryParam('to', { type: 'string' }, 'ISO 8601 date-time, end (inclusive).'),
      ],
      responses: { 200: { description: 'The report.', content: json('AttributionReport') }, ...adminErrors() },
    },
  };
  paths['/admin/v1/websites/{websiteId}/reports/searches'] = {
    get: {
      operationId: 'searchReport', tags: ['admin'], summary: 'Top queries and queries without results, from the search log.', security: admin,
      parameters: [
        websiteParam,
        queryParam('from', { type: 'string' }, 'ISO 8601 date-time: searches from the hour holding it (inclusive).'),
        queryParam('to', { type: 'string' }, 'ISO 8601 date-time: searches of hours starting at or before it (default now).'),
        queryParam('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 20 }, 'Entries of each list (default 20, at most 1000).'),
      ],
      responses: { 200: { description: 'The report.', content: json('SearchReport') }, ...adminErrors() },
    },
  };
  paths['/admin/v1/websites/{websiteId}/settings'] = {
    get: {
      operationId: 'getSettings', tags: ['admin'], summary: 'The website\'s settings: every key, defaults filled in.', security: admin,
      parameters: [websiteParam],
      responses: { 200: { description: 'The settings.', content: json('WebsiteSettings') }, ...adminErrors() },
    },
    put: {
      operationId: 'putSettings', tags: ['admin'], summary: 'Replace the settings (applied to the next request; stored for every replica).', security: admin,
      parameters: [websiteParam],
      requestBody: { required: true, content: json('WebsiteSettings') },
      responses: {
        200: { description: 'The settings now in force (every key).', content: json('WebsiteSettings') },
        ...adminErrors({ 400: 'Invalid settings; the message names the key. Nothing was changed.', 413: 'Body too large.', 415: common415 }),
      },
    },
    patch: {
      operationId: 'patchSettings', tags: ['admin'], summary: 'Merge into the settings (JSON Merge Patch, RFC 7396; null removes a key).', security: admin,
      parameters: [websiteParam],
      requestBody: {
        required: true,
        content: { ...json('WebsiteSettings'), 'application/merge-patch+json': { schema: { $ref: '#/components/schemas/WebsiteSettings' } } },
      },
      responses: {
        200: { description: 'The settings now in force (every key).', content: json('WebsiteSettings') },
        ...adminErrors({ 400: 'Invalid settings after the merge; the message names the key. Nothing was changed.', 413: 'Body too large.', 415: 'Not JSON.' }),
      },
    },
  };
  paths['/healthz'] = {
    get: { operationId: 'healthz', tags: ['operations'], summary: 'Liveness.', responses: { 200: { description: 'Up.', content: json('Health') } } },
  };
  paths['/readyz'] = {
    get: {
      operationId: 'readyz', tags: ['operations'], summary: 'Readiness (503 with the failed checks and their reasons).',
      description: 'Not ready (503) while the store is unreachable, the data directory is not writable, recommendation indexes are being built, or the server is starting or shutting down.',
      responses: { 200: { description: 'Ready.', content: json('Health') }, 503: { description: 'Not ready.', content: json('Health') } },
    },
  };
  paths['/metrics'] = {
    get: {
      operationId: 'metrics', tags: ['operations'], summary: 'Prometheus metrics (text format).',
      responses: { 200: { description: 'Metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  };
  paths['/openapi.json'] = {
    get: {
      operationId: 'openapi', tags: ['operations'], summary: 'This document.',
      responses: { 200: { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'aisle',
      version: '0.1.0',
      description: 'Self-hosted search, recommendation and purchase-event engine for online shops. See docs/http-api.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.prefix || '/' }],
    tags: ['search', 'recommendations', 'events', 'coupons', 'admin', 'operations'].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A website token: opens exactly one website.' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'An admin token (adminTokens in the config file).' },
        searchKey: { type: 'http', scheme: 'bearer', description: 'A browser search key (POST /admin/v1/websites/{websiteId}/keys): opens only search on its website, with its forced scope.' },
      },
    },
  };
}
