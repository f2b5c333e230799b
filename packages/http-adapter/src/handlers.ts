/**
 * One handler per endpoint: check the request, call the engine, serialise the answer.
 * Errors are thrown and rendered by the listener in the endpoint's documented shape.
 * @module
 */
import type { CouponIssue, LoadSummary, SearchRequest } from '@aisle/engine';
import type { ValidateFunction } from 'ajv';
import { peekBodyStream, readJsonBody, requireMediaType } from './body.js';
import { describeAjvError, serialize, validate } from './codecs.js';
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
  const websiteId = state.tokens.requireWebsite(ctx.req);
  requireMediaType(ctx.req, JSON_ONLY);
  const body = check<SearchRequest>(validate.SearchRequest, await readJsonBody(ctx.req, state.limits));
  if (body.website_id !== websiteId) {
    throw new HttpError(401, `the bearer token does not open website_id "${body.website_id}"`, { key: 'Authorization' });
  }
  const response = await state.engine.search(body);
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
  const body = check(validate.BundleRequest, await readJsonBody(ctx.req, state.limits));
  const response = await state.engine.bundles(ctx.params[0]!, body);
  sendJson(ctx, state, 200, serialize.BundleResponse(response));
};

/** `POST /3.0/events/purchases` and `POST /3.0/events/views`: the token names the website. */
export function events(kind: 'purchases' | 'views'): Handler {
  return async (ctx, state) => {
    const websiteId = state.tokens.requireWebsite(ctx.req);
    requireMediaType(ctx.req, JSON_ONLY);
    const body = await readJsonBody(ctx.req, state.limits);
    commitPoint(ctx);
    const ack = kind === 'purchases'
      ? await state.engine.recordPurchases(websiteId, body)
      : await state.engine.recordViews(websiteId, body);
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

/** `PUT /admin/v1/websites/{websiteId}/products[?mode=replace][&onError=skip]` (JSON array or NDJSON). */
export const putProducts: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  const type = requireMediaType(ctx.req, PRODUCT_FEED_TYPES);
  const query = parseQueryString(ctx.query);
  const mode = scalar(query, 'mode') ?? 'upsert';
  if (mode !== 'upsert' && mode !== 'replace') throw new HttpError(400, 'query parameter mode must be upsert or replace', { key: 'mode' });
  const onError = scalar(query, 'onError') ?? 'reject';
  if (onError !== 'reject' && onError !== 'skip') throw new HttpError(400, 'query parameter onError must be reject or skip', { key: 'onError' });
  // The feed is streamed into the engine; its first byte is checked before anything changes: a blank
  // body is refused (with mode=replace it would empty the catalog), and a JSON upload must be an array.
  const body = await peekBodyStream(ctx.req, state.limits.adminMaxBytes);
  if (body.first === undefined) throw new HttpError(400, 'request body is empty; send a JSON array or NDJSON of products');
  if (type === 'application/json' && body.first !== 0x5b) {
    throw new HttpError(400, 'request body must be a JSON array of products (or NDJSON with Content-Type application/x-ndjson)');
  }
  const options = { onError: onError as 'reject' | 'skip' };
  let summary: LoadSummary;
  try {
    summary = mode === 'replace'
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

/** `DELETE /admin/v1/websites/{websiteId}/products/{refId}` (idempotent: unknown refId → deleted 0). */
export const deleteProduct: Handler = async (ctx, state) => {
  const websiteId = adminWebsite(ctx, state);
  commitPoint(ctx);
  const result = await state.engine.deleteProducts(websiteId, [ctx.params[1]!]);
  sendJson(ctx, state, 200, serialize.DeleteResult(result));
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
