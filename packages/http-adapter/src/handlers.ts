/**
 * One handler per operation: check the request, call the engine, answer. The caller is already
 * authenticated (the declared auth kind, caller.ts); bodies are read and validated and answers
 * serialised as the operation declares them (endpoints.ts). Errors are thrown and rendered by the
 * listener in the endpoint's documented shape.
 * @module
 */
import type {
  AttributionReportParams, BundleRequest, ClickRequest, RecommendationReportParams, CouponIssue, CouponParams, LoadSummary, ProductsParams, PurchaseRequest,
  RecommendParams, SearchReportParams, SearchRequest, ViewRequest,
} from '@aisle/engine';
import { MAX_BULK_DELETE_BYTES, MAX_BULK_DELETE_REFIDS, restrictFacetBuckets, SETTINGS_MAX_ARRAY_ITEMS } from '@aisle/engine';
import { peekBodyStream, readJsonBody, requireMediaType, type BodyLimits } from './body.js';
import { describeAjvError } from './codecs.js';
import { corsHeaders } from './cors.js';
import type { Handler, ListenerState, RequestContext } from './context.js';
import { HttpError } from './errors.js';
import { entityTag, ifMatchVersions } from './preconditions.js';
import { JSON_TYPE, reply, send } from './reply.js';

/**
 * The point after which a write request is carried through to its true answer: the request timer
 * (`handlerTimeoutMs`) covers reading and checking the request, never the commit — a 503 "did not
 * complete" must mean nothing was stored. If the timer already answered (a slow body), the request is
 * abandoned here, before anything is written.
 */
function commitPoint(ctx: RequestContext, state: ListenerState): void {
  if (ctx.done) throw new AbandonedRequest();
  state.deadlines?.disarm(ctx);
}

/** A request already answered (by the timer) whose handler stops before writing anything. */
export class AbandonedRequest extends Error {
  constructor() {
    super('the request was answered before its write started (timeout); nothing was written');
  }
}

/** The media types the running operation declares for its body (415 for any other). */
function declaredMediaTypes(ctx: RequestContext): readonly string[] {
  const body = ctx.operation?.declaration.body;
  if (!body) throw new Error(`${ctx.req.method} ${ctx.route.template} declares no request body`);
  return body.mediaTypes;
}

/**
 * Reads the JSON body of the running operation: its media type checked (415), parsed within the
 * limits, and validated against its declared schema when the adapter validates it (400 naming the field).
 */
async function readBody<T>(ctx: RequestContext, state: ListenerState, limits: BodyLimits = state.limits): Promise<T> {
  requireMediaType(ctx.req, declaredMediaTypes(ctx));
  const body = await readJsonBody(ctx.req, limits);
  const validator = ctx.operation?.validator;
  if (validator && !validator(body)) {
    const { path, message } = describeAjvError(validator.errors);
    throw new HttpError('BODY_INVALID', { at: path === '$' ? '' : `${path} `, problem: message }, { key: path });
  }
  return body as T;
}

/**
 * The query parameters of the running operation, decoded and checked by its declared query schema
 * before the handler ran (router.ts); `T` is the type the contract derives from that schema.
 */
function queryOf<T>(ctx: RequestContext): T {
  if (ctx.queryParams === undefined) throw new Error(`${ctx.req.method} ${ctx.route.template} declares no query schema`);
  return ctx.queryParams as T;
}

/** The website of the authenticated caller (set before the handler by caller.ts). */
function websiteOf(ctx: RequestContext): string {
  if (ctx.websiteId === undefined) throw new Error(`${ctx.route.template} runs without an authenticated website`);
  return ctx.websiteId;
}

/** `POST /v1.4/search` */
export const search: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  // From here on, CORS headers only when the searched website allows the origin (see cors.ts).
  ctx.headers = corsHeaders(ctx.req, state.engine.website(websiteId), false);
  const body = await readBody<SearchRequest>(ctx, state);
  if (body.website_id !== websiteId) {
    throw new HttpError('TOKEN_WRONG_WEBSITE', { websiteId: body.website_id }, { key: 'Authorization' });
  }
  // A key's forced scope applies beside the caller's own (both, as conditions of their own: engine SearchOptions).
  const forced = ctx.searchKey?.scope;
  const response = await state.engine.search(body, forced ? { forcedScope: forced } : {});
  if (forced) {
    const aggregations = restrictFacetBuckets(response.payload.aggregations, forced, body.disjunctive_facets);
    if (aggregations !== undefined) response.payload = { ...response.payload, aggregations };
  }
  reply(ctx, state, 200, response);
};

/** `GET /1.0/ClientRecom/{website_id}/{Method}` for one of the seventeen methods. */
export function recommend(method: string): Handler {
  return async (ctx, state) => {
    // A HEAD's list reaches no shopper: answered as the GET, not counted as served (reports, click-through).
    const counted = ctx.req.method !== 'HEAD';
    const response = await state.engine.recommend(ctx.params[0]!, method, queryOf<RecommendParams>(ctx), counted ? undefined : { counted });
    reply(ctx, state, 200, response);
  };
}

/** `GET /1.0/ClientRecom/{website_id}/{unknown}` */
export const unknownMethod: Handler = async (ctx) => {
  throw new HttpError('UNKNOWN_METHOD', { method: ctx.params[1]! });
};

/** `POST /1.0/ClientRecom/{website_id}/bundle` */
export const bundle: Handler = async (ctx, state) => {
  const body = await readBody<BundleRequest>(ctx, state);
  const response = await state.engine.bundles(ctx.params[0]!, body);
  reply(ctx, state, 200, response);
};

/** `POST /3.0/events/purchases` and `POST /3.0/events/views`: the token names the website. */
export function events(kind: 'purchases' | 'views'): Handler {
  return async (ctx, state) => {
    const websiteId = websiteOf(ctx);
    // Not validated here (declared so): the engine validates event bodies itself (every failure under its path, RFC 7807).
    const body = await readBody<unknown>(ctx, state);
    commitPoint(ctx, state);
    const ack = kind === 'purchases'
      ? await state.engine.recordPurchases(websiteId, body as PurchaseRequest)
      : await state.engine.recordViews(websiteId, body as ViewRequest);
    reply(ctx, state, 202, ack);
  };
}

/** `POST /3.0/events/clicks`: the token or browser key names the website. */
export const clicks: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  // From here on, CORS headers only when the key's website allows the origin (as for search, see cors.ts).
  ctx.headers = corsHeaders(ctx.req, state.engine.website(websiteId), false);
  const body = await readBody<unknown>(ctx, state);
  commitPoint(ctx, state);
  reply(ctx, state, 202, await state.engine.recordClicks(websiteId, body as ClickRequest));
};

/** `GET /b2b/coupon/mark_as_used?code=&client=` */
export const markCouponUsed: Handler = async (ctx, state) => {
  const { code, client } = queryOf<CouponParams>(ctx);
  commitPoint(ctx, state);
  const result = await state.engine.markCouponUsed(client, code);
  reply(ctx, state, 200, { type: 1, code: 0, payload: result });
};

/**
 * `PUT /admin/v1/websites/{websiteId}/products[?mode=replace][&onError=skip]` (JSON array or NDJSON):
 * upserts whole products; `PATCH` with the same body forms merges partial products (RFC 7396).
 */
export const products: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  // A feed may come gzipped: the engine recognises gzip's bytes and unzips it as it reads.
  const type = requireMediaType(ctx.req, declaredMediaTypes(ctx), ['gzip']);
  const patch = ctx.req.method === 'PATCH';
  // PATCH declares mode=upsert as its only value (ProductsPatchQuery): a patch merges into stored products.
  const { mode = 'upsert', onError = 'reject' } = queryOf<ProductsParams>(ctx);
  // The feed is streamed into the engine; its first byte is checked before anything changes: a blank
  // body is refused (with mode=replace it would empty the catalog), and a JSON upload must be an array.
  const body = await peekBodyStream(ctx.req, state.limits.adminMaxBytes);
  const what = patch ? 'partial products with refId' : 'products';
  if (body.first === undefined) throw new HttpError('FEED_EMPTY', { what });
  // gzip's first byte: the engine unzips the feed and reads the bytes it finds (an array, else NDJSON).
  if (type === 'application/json' && body.first !== 0x5b && body.first !== GZIP_FIRST_BYTE) {
    throw new HttpError('FEED_NOT_ARRAY', { what });
  }
  // The upload limit counts the bytes sent; a gzipped feed is bounded by it once unzipped too.
  const options = { onError, maxUnzippedBytes: state.limits.adminMaxBytes };
  let summary: LoadSummary;
  try {
    summary = patch
      ? await state.engine.patchProducts(websiteId, body.stream, options)
      : mode === 'replace'
        ? await state.engine.replaceProducts(websiteId, body.stream, options)
        : await state.engine.upsertProducts(websiteId, body.stream, options);
  } catch (err) {
    if (body.exceeded()) throw new HttpError('FEED_TOO_LARGE', { max: state.limits.adminMaxBytes }, { headers: { connection: 'close' } });
    // The rest of a rejected feed is not read: the connection closes after the answer.
    if (!ctx.req.readableEnded) ctx.res.setHeader('connection', 'close');
    throw err;
  }
  reply(ctx, state, 200, summary);
};

/** The first byte of a gzip stream (RFC 1952): a feed starting with it is read unzipped. */
const GZIP_FIRST_BYTE = 0x1f;

/** The last segment of the bulk-delete path, `…/products/delete`. */
export const BULK_DELETE_SEGMENT = 'delete';

/**
 * The refId a product path names: its `{refId}` segment; on the bulk-delete path (no such segment), its
 * own last segment, so the product whose refId is "delete" stays readable and deletable by URL.
 */
const refIdOf = (ctx: RequestContext): string => ctx.params[1] ?? BULK_DELETE_SEGMENT;

/** `GET /admin/v1/websites/{websiteId}/products/{refId}`: the stored product as given (404 unknown). */
export const getProduct: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  const refId = refIdOf(ctx);
  const found = await state.engine.getProduct(websiteId, refId);
  if (found === undefined) throw new HttpError('PRODUCT_NOT_FOUND', { refId: JSON.stringify(refId), websiteId }, { key: 'refId' });
  // Products are free-form JSON: serialised as given, not through a fixed schema.
  send(ctx, state, 200, JSON_TYPE, JSON.stringify(found));
};

/** `DELETE /admin/v1/websites/{websiteId}/products/{refId}` (idempotent: unknown refId → deleted 0). */
export const deleteProduct: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  commitPoint(ctx, state);
  reply(ctx, state, 200, await state.engine.deleteProducts(websiteId, [refIdOf(ctx)]));
};

/** `POST /admin/v1/websites/{websiteId}/products/delete` with `{refIds}` or `{scope}` (the engine checks the body). */
export const bulkDeleteProducts: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  // The listener's limits, raised to what the contract lets one bulk delete hold (never lowered).
  const limits = {
    ...state.limits,
    maxArrayLength: Math.max(state.limits.maxArrayLength, MAX_BULK_DELETE_REFIDS),
    maxBytes: Math.max(state.limits.maxBytes, MAX_BULK_DELETE_BYTES),
  };
  const body = await readBody<unknown>(ctx, state, limits);
  commitPoint(ctx, state);
  reply(ctx, state, 200, await state.engine.bulkDeleteProducts(websiteId, body));
};

/** `POST /admin/v1/websites/{websiteId}/coupons` with `{coupons: [{code, customerId?, discount?}]}`. */
export const issueCoupons: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  const body = await readBody<{ coupons: CouponIssue[] }>(ctx, state);
  commitPoint(ctx, state);
  reply(ctx, state, 201, await state.engine.issueCoupons(websiteId, body.coupons));
};

/** `GET /admin/v1/websites/{websiteId}/stats` */
export const stats: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  reply(ctx, state, 200, await state.engine.stats(websiteId));
};

/** `GET /admin/v1/websites/{websiteId}/reports/attribution[?from=&to=]` (ISO 8601 date-times; the engine checks them). */
export const attribution: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  reply(ctx, state, 200, await state.engine.attributionReport(websiteId, queryOf<AttributionReportParams>(ctx)));
};

/** `GET /admin/v1/websites/{websiteId}/reports/searches[?from=&to=&limit=]` (the engine reads the date-times). */
export const searchReport: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  reply(ctx, state, 200, await state.engine.searchReport(websiteId, queryOf<SearchReportParams>(ctx)));
};

/** `GET /admin/v1/websites/{websiteId}/reports/recommendations[?from=&to=]` (the engine checks them). */
export const recommendationReport: Handler = async (ctx, state) => {
  reply(ctx, state, 200, await state.engine.recommendationReport(websiteOf(ctx), queryOf<RecommendationReportParams>(ctx)));
};

/** `GET /admin/v1/websites/{websiteId}/settings`: every key, defaults filled in; their version as `ETag`. */
export const getSettings: Handler = async (ctx, state) => {
  const { settings, version } = await state.engine.getVersionedSettings(websiteOf(ctx));
  reply(ctx, state, 200, settings, { etag: entityTag(version) });
};

/**
 * The limits a body holding settings is read with (a settings update, a preview): the settings schema
 * bounds every array (10,000 synonyms…), so the listener's array limit is raised to its largest bound
 * (never lowered): what the documents say a website may hold is what HTTP takes.
 */
function settingsBodyLimits(state: ListenerState): BodyLimits {
  return { ...state.limits, maxArrayLength: Math.max(state.limits.maxArrayLength, SETTINGS_MAX_ARRAY_ITEMS) };
}

/**
 * `PUT|PATCH /admin/v1/websites/{websiteId}/settings`: PUT replaces, PATCH merges (RFC 7396). The
 * engine validates (400 naming the key) and stores; with `If-Match`, only from a version it names (412
 * otherwise). The new version answers as `ETag`.
 */
export const updateSettings: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  const ifVersion = ifMatchVersions(ctx.req.headers['if-match']);
  const body = await readBody<unknown>(ctx, state, settingsBodyLimits(state));
  commitPoint(ctx, state);
  const { settings, version } = await state.engine.updateVersionedSettings(websiteId, body, { merge: ctx.req.method === 'PATCH', ...(ifVersion && { ifVersion }) });
  reply(ctx, state, 200, settings, { etag: entityTag(version) });
};

/**
 * `POST /admin/v1/websites/{websiteId}/settings/preview`: one search ranked before and after a settings
 * change (the engine validates the body, merges the change as a PATCH would, and stores nothing).
 */
export const previewSettings: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  // Read as a settings update is: a change a PATCH takes can be previewed.
  const body = await readBody<unknown>(ctx, state, settingsBodyLimits(state));
  reply(ctx, state, 200, await state.engine.previewSettings(websiteId, body));
};

/** `GET /admin/v1/websites/{websiteId}/keys`: the website's search keys. */
export const listSearchKeys: Handler = async (ctx, state) => {
  reply(ctx, state, 200, { keys: await state.engine.listSearchKeys(websiteOf(ctx)) });
};

/** `POST /admin/v1/websites/{websiteId}/keys`: creates a search key (the engine validates the body). */
export const createSearchKey: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  const body = await readBody<unknown>(ctx, state);
  commitPoint(ctx, state);
  reply(ctx, state, 201, await state.engine.createSearchKey(websiteId, body));
};

/** `DELETE /admin/v1/websites/{websiteId}/keys/{key}`: revoke by key or by id (404 when the website has none such). */
export const revokeSearchKey: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  commitPoint(ctx, state);
  await state.engine.revokeSearchKey(websiteId, ctx.params[1]!);
  send(ctx, state, 204, undefined, '');
};

/** `GET /admin/v1/websites/{websiteId}/experiments`. */
export const listExperiments: Handler = async (ctx, state) => {
  reply(ctx, state, 200, { experiments: await state.engine.listExperiments(websiteOf(ctx)) });
};

/** `POST /admin/v1/websites/{websiteId}/experiments`: starts an experiment (the engine validates the body). */
export const createExperiment: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  const body = await readBody<unknown>(ctx, state);
  commitPoint(ctx, state);
  reply(ctx, state, 201, await state.engine.createExperiment(websiteId, body));
};

/** `GET /admin/v1/websites/{websiteId}/experiments/{experimentId}`: the experiment with its report. */
export const experimentReport: Handler = async (ctx, state) => {
  reply(ctx, state, 200, await state.engine.experimentReport(websiteOf(ctx), ctx.params[1]!));
};

/** `POST /admin/v1/websites/{websiteId}/experiments/{experimentId}/stop`. */
export const stopExperiment: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  commitPoint(ctx, state);
  reply(ctx, state, 200, await state.engine.stopExperiment(websiteId, ctx.params[1]!));
};

/** `DELETE /admin/v1/websites/{websiteId}/experiments/{experimentId}`: stopped experiments only (409 otherwise). */
export const deleteExperiment: Handler = async (ctx, state) => {
  const websiteId = websiteOf(ctx);
  commitPoint(ctx, state);
  await state.engine.deleteExperiment(websiteId, ctx.params[1]!);
  send(ctx, state, 204, undefined, '');
};

/** `GET /healthz`: the process is up. */
export const healthz: Handler = async (ctx, state) => {
  reply(ctx, state, 200, { status: 'ok' });
};

/**
 * `GET /readyz`: 200 only when the engine's readiness checks all pass (store reachable, data directory
 * writable, recommendation indexes built, stored events replayed) and the listener is neither starting
 * nor shutting down; otherwise 503 with every check and the reason of each failed one.
 */
export const readyz: Handler = async (ctx, state) => {
  const checks = [
    { name: 'listener', ok: !state.closing && state.isReady(), ...(state.closing ? { reason: 'shutting down' } : !state.isReady() ? { reason: 'starting' } : {}) },
    ...(state.closing ? [] : (await state.engine.readiness()).checks),
  ];
  const ready = checks.every((c) => c.ok);
  reply(ctx, state, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks });
};

/** `GET /metrics`: Prometheus text format. */
export const metrics: Handler = async (ctx, state) => {
  if (!state.metrics) throw new HttpError('METRICS_DISABLED', {});
  const text = await state.metrics.text();
  send(ctx, state, 200, state.metrics.contentType, text);
};

/** `GET /openapi.json` */
export const openapi: Handler = async (ctx, state) => {
  send(ctx, state, 200, JSON_TYPE, state.openApiText());
};
