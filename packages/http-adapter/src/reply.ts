/**
 * Writing responses: every response of the listener goes through {@link send}, which adds the
 * request id and per-request headers, records metrics and writes the request log line once.
 * @module
 */
import { formatError, newTraceId } from '@aisle/engine';
import { serialize } from './codecs.js';
import type { ListenerState, RequestContext } from './context.js';
import { toWireError } from './errors.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);

/** Sends a response once; records metrics and the log line. */
export function send(
  ctx: RequestContext,
  state: ListenerState,
  status: number,
  contentType: string | undefined,
  body: string | Buffer,
  headers?: Record<string, string>,
): void {
  if (ctx.done) return;
  ctx.done = true;
  state.deadlines?.disarm(ctx);
  const { res } = ctx;
  if (res.headersSent || res.writableEnded) return;
  const out: Record<string, string | number> = { 'x-request-id': ctx.requestId };
  if (contentType) {
    out['content-type'] = contentType;
    out['content-length'] = Buffer.byteLength(body);
  }
  if (ctx.headers) Object.assign(out, ctx.headers);
  if (headers) Object.assign(out, headers);
  if (state.closing) out.connection = 'close';
  res.writeHead(status, out);
  res.end(body);
  const { metrics, logger } = state;
  // Skip the clock, the label and the log object entirely when neither metrics nor info logs are on.
  const logging = logger !== undefined && (typeof logger.isLevelEnabled !== 'function' || logger.isLevelEnabled('info'));
  if (!metrics && !logging) return;
  const seconds = (performance.now() - ctx.startedAt) / 1e3;
  const method = KNOWN_METHODS.has(ctx.req.method ?? '') ? ctx.req.method! : 'OTHER';
  metrics?.observe(method, ctx.route.template, status, seconds);
  if (logging) requestLogger(state, logger, method, ctx.route.template).info({ reqId: ctx.requestId, status, ms: Math.round(seconds * 1e6) / 1e3 }, 'request');
}

/**
 * The logger of a request's line: a child of `logger` with its method and route bound (the line has the
 * same fields). pino serialises a child's bindings once; writing them on every line was a fifth of the
 * line's cost on the hot recommendation path. Methods and routes are few (KNOWN_METHODS, the route table);
 * found by method, then route, both strings the listener already holds (no key made per request).
 */
function requestLogger(state: ListenerState, logger: NonNullable<ListenerState['logger']>, method: string, route: string): NonNullable<ListenerState['logger']> {
  let byRoute = state.requestLoggers.get(method);
  if (byRoute === undefined) state.requestLoggers.set(method, (byRoute = new Map()));
  let child = byRoute.get(route);
  if (child === undefined) byRoute.set(route, (child = logger.child({ method, route })));
  return child;
}

/** Sends a JSON body. */
export function sendJson(ctx: RequestContext, state: ListenerState, status: number, body: string, headers?: Record<string, string>): void {
  send(ctx, state, status, JSON_TYPE, body, headers);
}

/**
 * Sends a declared response: the body is serialised by the serialiser compiled from the schema the
 * operation declares for `status` (endpoints.ts). A status the operation does not declare is a
 * programming error, caught by the tests that check every answer against the OpenAPI document.
 */
export function reply(ctx: RequestContext, state: ListenerState, status: number, body: unknown, headers?: Record<string, string>): void {
  const serializer = ctx.operation?.serializers.get(status);
  if (!serializer) throw new Error(`${ctx.req.method} ${ctx.route.template} declares no JSON response with status ${status}`);
  send(ctx, state, status, JSON_TYPE, serializer(body), headers);
}

/** W3C Trace Context: version 00, a trace id and a parent id that are not all zeros (all-zero ids are invalid). */
const VALID_TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The W3C trace id of a request: from a valid incoming `traceparent`, else a fresh one. */
function traceIdOf(ctx: RequestContext): string {
  const header = ctx.req.headers.traceparent;
  return typeof header === 'string' && VALID_TRACEPARENT.test(header) ? header : newTraceId();
}

/** Renders any thrown value in the documented error shape of the request's endpoint. */
export function sendError(ctx: RequestContext, state: ListenerState, err: unknown): void {
  if (ctx.done) return;
  const wire = toWireError(err);
  if (wire.status >= 500) {
    // Server-side failures are logged with the error (and its stack); the caller sees only the wire message.
    state.logger?.error({ reqId: ctx.requestId, route: ctx.route.template, err }, 'request failed');
  }
  if (ctx.route.shape === 'problem') {
    const problem = formatError('problem', wire, traceIdOf(ctx));
    send(ctx, state, problem.status, PROBLEM_TYPE, serialize.ProblemDetails(problem), wire.headers);
  } else {
    sendJson(ctx, state, wire.status, serialize.ErrorEnvelope(formatError('envelope', wire)), wire.headers);
  }
}
