/**
 * One handler per endpoint: check the request, call the engine, serialise the answer.
 * Errors are thrown and rendered by the listener in the endpoint's documented shape.
 * @module
 */
import type { BundleRequest, CouponIssue, LoadSummary, PurchaseRequest, SearchRequest, ViewRequest } from '@aisle/engine';
import { applyForcedScope, restrictFacetBuckets } from '@aisle/engine';
import type { ValidateFunction } from 'ajv';
import { peekBodyStream, readJsonBody, requireMediaType } from './body.js';
import { describeAjvError, serialize, validate } from './codecs.js';
import { corsHeaders } from './cors.js';
import type { Handler, ListenerState, RequestContext } from './context.js';
import { HttpError } from './errors.js';
import { parseQueryString, parseRecommendParams, scalar } from './query.js';
import { JSON_TYPE, send, sendJson } from './reply.js';

const JSON_ONLY = ['application/json'] as const;
const PRODUCT_FEED_TYPES = ['application/json', 'application/x-ndjson', 'application/ndjson', 'application/jsonl'] as const;

/**
 * The point after which a write request is carried through to its true answer: the request timer
 * (`handlerTimeoutMs`) covers reading and checking the request, never the commit — a 503 "did not
 * complete" must mean nothing was stored. If the timer already answered (a slow body), the request is
 * abandoned here, before anything is written.
 */
function commitPoint(ctx: RequestContext): void {
  if (ctx.done) throw new AbandonedRequest();
  if (ctx.timer) clearTimeout(ctx.timer);
  ctx.timer = undefined;
}

/** A request already answered (by the timer) whose handler stops before writing anything. */
export class AbandonedRequest extends Error {
  constructor() {
    super('the request was answered before its write started (timeout); nothing was written');
  }
}

/** Validates with an ajv validator; 400 naming the field otherwise. */
function check<T>(validator: ValidateFunction, body: unknown): T {
  if (!validator(body)) {
    const { path, message } = describeAjvError(validator.errors);
    throw new HttpError(400, path === '$' ? message : `${path} ${message}`, { key: path });
  }
  return body as T;
}

/** `POST /v1.4/search` */
export const search: Handler = async (ctx, state) => {
  const { websiteId, key } = await state.tokens.requireSearchCaller(ctx.req, state.engine);
  // From here on, CORS headers only when the searched website allows the origin (see cors.ts).
  ctx.headers = corsHeaders(ctx.req, state.engine.website(websiteId), false);
  requireMediaType(ctx.req, JSON_ONLY);
  const body = check<SearchRequest>(validate.SearchRequest, await readJsonBody(ctx.req, state.limits));
  if (body.website_id !== websiteId) {
    throw new HttpError(401, `the bearer token does not open website_id "${body.website_id}"`, { key: 'Authorization' });
  }
  const forced = key?.scope;
  if (forced) body.scope = applyForcedScope(forced, body.scope);
  const response = await state.engine.search(body);
  if (forced) {
    const aggregations = restrictFacetBuckets(response.payload.aggregations, forced, body.disjunctive_facets);
    if (aggregations !== undefined) response.payload = { ...response.payload, aggregations };
  }
  sendJson(ctx, state, 200, serialize.SearchResponse(response));
};

/** `GET /1.0/ClientRecom/{website_id}/{Method}` for one of the seventeen methods. */
export function recommend(method: string): Handler {
  return async (ctx, state) => {
    const params = parseRecommendParams(parseQueryString(ctx.query), state.limits.maxQueryItems);
    const response = await state.engine.recommend(ctx.params[0]!, method, params);
    sendJson(ctx, state, 200, serialize.RecommendResponse(response));
  };
}

/** `GET /1.0/ClientRecom/{website_id}/{unknown}` */
export const unknownMethod: Handler = async (ctx) => {
  throw new HttpError(404, `unknown recommendation method "${ctx.params[1]}"`);
};

/** `POST /1.0/ClientRecom/{website_id}/bundle` */
export const bundle: Handler = async (ctx, state) => {
  requireMediaType(ctx.req, JSON_ONLY);
  const body = check<BundleRequest>(validate.BundleRequest, await readJsonBody(ctx.req, state.limits));
  const response = await state.engine.bundles(ctx.params[0]!, body);
  sendJson(ctx, state, 200, serialize.BundleResponse(response));
};

/** `POST /3.0/events/purchases` and `POST /3.0/events/views`: the token names the website. */
export function events(kind: 'purchases' | 'views'): Handler {
  return async (ctx, state) => {
    const websiteId = state.tokens.requireWebsite(ctx.req);
    requireMediaType(ctx.req, JSON_ONLY);
    // No schema here: the engine validates event bodies itself (every failure under its path, RFC 7807).
    const body = await readJsonBody(ctx.req, state.limits);
    commitPoint(ctx);
    const ack = kind === 'purchases'
      ? await state.engine.recordPurchases(websiteId, body as PurchaseRequest)
      : await state.engine.recordViews(websiteId, body as ViewRequest);
    sendJson(ctx, state, 202, serialize.EventAck(ack));
  };
}

/** `GET /b2b/coupon/mark_as_used?code=&client=` */
export const markCouponUsed: Handler = async (ctx, state) => {
  const query = parseQueryString(ctx.query);
  const code = scalar(query, 'code');
  const client = scalar(query, 'client');
  if (!code) throw new HttpError(400, 'query parameter code is required', { key: 'code' });
  if (!client) throw new HttpError(400, 'query parameter client is required', { key: 'client' });
  commitPoint(ctx);
  const result = await state.engine.markCouponUsed(client, code);
  sendJson(ctx, state, 200, serialize.CouponUsed({ type: 1, code: 0, payload: result }));
};

/** Admin: the token must be an admin token and the website must exist. */
function adminWebsite(ctx: RequestContext, state: ListenerState): string {
  state.tokens.requireAdmin(ctx.req);
  const websiteId = ctx.params[0]!;
  if (!state.engine.website(websiteId)) throw new HttpError(404, `unknown website "${websiteId}"`, { key: 'websiteId' });
  return websiteId;
}

/**
 * `PUT /admin/v1/websites/{websiteId}/products[?mode=replace][&onError=skip]` (JSON array or NDJSON):
 * upserts whole products; `PATCH` with the same body forms merges partial products (RFC 7396).
 */
export const products: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  const type = requireMediaType(ctx.req, PRODUCT_FEED_TYPES);
  const query = parseQueryString(ctx.query);
  const patch = ctx.req.method === 'PATCH';
  const mode = scalar(query, 'mode') ?? 'upsert';
  if (mode !== 'upsert' && mode !== 'replace') throw new HttpError(400, 'query parameter mode must be upsert or replace', { key: 'mode' });
  if (patch && mode !== 'upsert') throw new HttpError(400, 'query parameter mode is not accepted by PATCH (a patch merges into stored products)', { key: 'mode' });
  const onError = scalar(query, 'onError') ?? 'reject';
  if (onError !== 'reject' && onError !== 'skip') throw new HttpError(400, 'query parameter onError must be reject or skip', { key: 'onError' });
  // The feed is streamed into the engine; its first byte is checked before anything changes: a blank
  // body is refused (with mode=replace it would empty the catalog), and a JSON upload must be an array.
  const body = await peekBodyStream(ctx.req, state.limits.adminMaxBytes);
  const what = patch ? 'partial products with refId' : 'products';
  if (body.first === undefined) throw new HttpError(400, `request body is empty; send a JSON array or NDJSON of ${what}`);
  if (type === 'application/json' && body.first !== 0x5b) {
    throw new HttpError(400, `request body must be a JSON array of ${what} (or NDJSON with Content-Type application/x-ndjson)`);
  }
  const options = { onError: onError as 'reject' | 'skip' };
  let summary: LoadSummary;
  try {
    summary = patch
      ? await state.engine.patchProducts(websiteId, body.stream, options)
      : mode === 'replace'
        ? await state.engine.replaceProducts(websiteId, body.stream, options)
        : await state.engine.upsertProducts(websiteId, body.stream, options);
  } catch (err) {
    if (body.exceeded()) throw new HttpError(413, `request body exceeds the limit of ${state.limits.adminMaxBytes} bytes; nothing was changed`, { headers: { connection: 'close' } });
    // The rest of a rejected feed is not read: the connection closes after the answer.
    if (!ctx.req.readableEnded) ctx.res.setHeader('connection', 'close');
    throw err;
  }
  sendJson(ctx, state, 200, serialize.LoadSummary(summary));
};

/**
 * `GET /admin/v1/websites/{websiteId}/products/{refId}` (the stored product as given; 404 unknown) and
 * `DELETE` (idempotent: unknown refId → deleted 0).
 */
export const product: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  const refId = ctx.params[1]!;
  if (ctx.req.method === 'DELETE') {
    commitPoint(ctx);
    const result = await state.engine.deleteProducts(websiteId, [refId]);
    sendJson(ctx, state, 200, serialize.DeleteResult(result));
    return;
  }
  const found = await state.engine.getProduct(websiteId, refId);
  if (found === undefined) throw new HttpError(404, `no product with refId ${JSON.stringify(refId)} in website "${websiteId}"`, { key: 'refId' });
  // Products are free-form JSON: serialised as given, not through a fixed schema.
  send(ctx, state, 200, JSON_TYPE, JSON.stringify(found));
};

/** `POST /admin/v1/websites/{websiteId}/coupons` with `{coupons: [{code, customerId?, discount?}]}`. */
export const issueCoupons: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  requireMediaType(ctx.req, JSON_ONLY);
  const body = check<{ coupons: CouponIssue[] }>(validate.CouponIssueRequest, await readJsonBody(ctx.req, state.limits));
  commitPoint(ctx);
  const result = await state.engine.issueCoupons(websiteId, body.coupons);
  sendJson(ctx, state, 201, serialize.CouponIssueResult(result));
};

/** `GET /admin/v1/websites/{websiteId}/stats` */
export const stats: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  sendJson(ctx, state, 200, serialize.WebsiteStats(await state.engine.stats(websiteId)));
};

/** `GET /admin/v1/websites/{websiteId}/reports/attribution[?from=&to=]` (ISO 8601 date-times; the engine checks them). */
export const attribution: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  const query = parseQueryString(ctx.query);
  const range: { from?: string; to?: string } = {};
  const from = scalar(query, 'from');
  const to = scalar(query, 'to');
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  sendJson(ctx, state, 200, serialize.AttributionReport(await state.engine.attributionReport(websiteId, range)));
};

/** `GET /admin/v1/websites/{websiteId}/reports/searches[?from=&to=&limit=]` (the engine checks them). */
export const searchReport: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  const query = parseQueryString(ctx.query);
  const range: { from?: string; to?: string; limit?: string } = {};
  for (const key of ['from', 'to', 'limit'] as const) {
    const value = scalar(query, key);
    if (value !== undefined) range[key] = value;
  }
  sendJson(ctx, state, 200, serialize.SearchReport(await state.engine.searchReport(websiteId, range)));
};

/** Media types of a settings body: JSON, or the JSON Merge Patch type of RFC 7396 (PATCH). */
const SETTINGS_TYPES = ['application/json', 'application/merge-patch+json'] as const;

/**
 * `GET|PUT|PATCH /admin/v1/websites/{websiteId}/settings`: GET answers every key (defaults filled in),
 * PUT replaces, PATCH merges (RFC 7396). The engine validates (400 naming the key) and stores.
 */
export const settings: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  const method = ctx.req.method;
  if (method === 'GET' || method === 'HEAD') {
    sendJson(ctx, state, 200, serialize.WebsiteSettings(await state.engine.getSettings(websiteId)));
    return;
  }
  requireMediaType(ctx.req, method === 'PATCH' ? SETTINGS_TYPES : JSON_ONLY);
  const body = await readJsonBody(ctx.req, state.limits);
  commitPoint(ctx);
  const updated = await state.engine.updateSettings(websiteId, body, { merge: method === 'PATCH' });
  sendJson(ctx, state, 200, serialize.WebsiteSettings(updated));
};

/** `GET|POST /admin/v1/websites/{websiteId}/keys`: list the website's search keys, or create one. */
export const searchKeys: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  if (ctx.req.method === 'POST') {
    requireMediaType(ctx.req, JSON_ONLY);
    const body = await readJsonBody(ctx.req, state.limits);
    commitPoint(ctx);
    const created = await state.engine.createSearchKey(websiteId, body);
    sendJson(ctx, state, 201, serialize.CreatedSearchKey(created));
    return;
  }
  sendJson(ctx, state, 200, serialize.SearchKeyList({ keys: await state.engine.listSearchKeys(websiteId) }));
};

/** `DELETE /admin/v1/websites/{websiteId}/keys/{key}`: revoke by key or by id (404 when the website has none such). */
export const revokeSearchKey: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  commitPoint(ctx);
  await state.engine.revokeSearchKey(websiteId, ctx.params[1]!);
  send(ctx, state, 204, undefined, '');
};

/** `GET /healthz`: the process is up. */
export const healthz: Handler = async (ctx, state) => {
  sendJson(ctx, state, 200, serialize.Health({ status: 'ok' }));
};

/**
 * `GET /readyz`: 200 only when the engine's readiness checks all pass (store reachable, data directory
 * writable, recommendation indexes built) and the listener is neither starting nor shutting down;
 * otherwise 503 with every check and the reason of each failed one.
 */
export const readyz: Handler = async (ctx, state) => {
  const checks = [
    { name: 'listener', ok: !state.closing && state.isReady(), ...(state.closing ? { reason: 'shutting down' } : !state.isReady() ? { reason: 'starting' } : {}) },
    ...(state.closing ? [] : (await state.engine.readiness()).checks),
  ];
  const ready = checks.every((c) => c.ok);
  sendJson(ctx, state, ready ? 200 : 503, serialize.Health({ status: ready ? 'ready' : 'not ready', checks }));
};

/** `GET /metrics`: Prometheus text format. */
export const metrics: Handler = async (ctx, state) => {
  if (!state.metrics) throw new HttpError(404, 'metrics are disabled');
  const text = await state.metrics.text();
  send(ctx, state, 200, state.metrics.contentType, text);
};

/** `GET /openapi.json` */
export const openapi: Handler = async (ctx, state) => {
  send(ctx, state, 200, JSON_TYPE, state.openApiText());
};
