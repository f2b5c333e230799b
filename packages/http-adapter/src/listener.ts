/**
 * `createListener`: a thin node:http request listener over an engine, usable as
 * `http.createServer(listener)`, as Express/Connect middleware (unknown paths go to `next()`), and
 * under a path prefix.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine } from '@aisle/engine';
import type { Logger } from 'pino';
import { TokenIndex } from './auth.js';
import type { ListenerLimits, ListenerState, RequestContext } from './context.js';
import { corsHeaders, websiteForClient } from './cors.js';
import { Deadlines } from './deadlines.js';
import { DashboardAssets, DEFAULT_DASHBOARD_DIR, type DashboardOptions } from './dashboard.js';
import { HttpError } from './errors.js';
import { DEFAULT_LIMITS } from './limits.js';
import { HttpMetrics } from './metrics.js';
import { buildOpenApi } from './openapi.js';
import { send, sendError } from './reply.js';
import { queryValue } from './query.js';
import { MalformedPathError, matchRoute, routes, unmatchedRoute, type RouteMatch } from './router.js';

export { DEFAULT_LIMITS };

/** Options of {@link createListener}. */
export interface ListenerOptions {
  /** Mount the surface under this path prefix (e.g. `/aisle`); other paths go to `next()` or get 404. */
  prefix?: string;
  /** Tokens that open the admin API. */
  adminTokens?: readonly string[];
  /** A pino logger for request logs (one line per request, with the request id); `false` or absent = no logs. */
  logger?: Logger | false;
  /** Metrics registry wrapper; absent = a fresh one; `false` = no metrics (`/metrics` answers 404). */
  metrics?: HttpMetrics | false;
  /** Limits; see {@link DEFAULT_LIMITS}. */
  limits?: Partial<ListenerLimits>;
  /** The built-in dashboard at `GET /` (default on; `false` turns it off, as `dashboard: false` in the config file). */
  dashboard?: boolean | DashboardOptions;
  /** Readiness beyond "not shutting down" (e.g. the demo still loading). Default: always ready. */
  isReady?: () => boolean;
}

/** The `next` callback of Express/Connect. */
export type NextFunction = (err?: unknown) => void;

/** A request listener with the handles a server needs. */
export interface AisleListener {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  readonly engine: Engine;
  readonly metrics: HttpMetrics | undefined;
  readonly tokens: TokenIndex;
  /** Marks the listener as shutting down: `/readyz` answers 503 and responses carry `Connection: close`. */
  beginShutdown(): void;
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * Generated request ids: this process's random prefix and a count (`3f9c2a61d0e4-1a`). They need to be
 * unique across a shop's replicas and restarts, not unguessable; a UUID per request cost ~0.1 µs and
 * ~600 bytes of garbage on every request of the hot path (decision 0094).
 */
const REQUEST_ID_PREFIX = `${randomBytes(6).toString('hex')}-`;
let requestCount = 0;

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : REQUEST_ID_PREFIX + (++requestCount).toString(36);
}

function normalisePrefix(prefix: string | undefined): string {
  if (!prefix || prefix === '/') return '';
  const withSlash = prefix.startsWith('/') ? prefix : `/${prefix}`;
  return withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
}

/** Creates the request listener over `engine`. */
export function createListener(engine: Engine, options: ListenerOptions = {}): AisleListener {
  const prefix = normalisePrefix(options.prefix);
  const metrics = options.metrics === false ? undefined : options.metrics ?? new HttpMetrics();
  metrics?.trackEngine(engine);
  let openApiText: string | undefined;
  const state: ListenerState = {
    engine,
    tokens: new TokenIndex(engine, options.adminTokens ?? []),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    logger: options.logger || undefined,
    requestLoggers: new Map(),
    metrics,
    isReady: options.isReady ?? (() => true),
    closing: false,
    openApiText: () => (openApiText ??= JSON.stringify(buildOpenApi({ prefix }))),
  };
  const { handlerTimeoutMs } = state.limits;
  if (handlerTimeoutMs > 0) {
    state.deadlines = new Deadlines(handlerTimeoutMs, (ctx) => sendError(ctx, state, new HttpError('REQUEST_TIMEOUT', { ms: handlerTimeoutMs })));
  }
  if (options.dashboard !== false) {
    const dashboardOptions: DashboardOptions = typeof options.dashboard === 'object' ? options.dashboard : {};
    state.dashboard = { assets: new DashboardAssets(dashboardOptions.assetsDir ?? DEFAULT_DASHBOARD_DIR), options: dashboardOptions };
  }

  const websiteOf = (match: RouteMatch, query: string) => {
    // The key names the website of a search or a click: narrowed by the handler; see cors.ts.
    if (match.route === routes.search || match.route === routes.clicks) return engine.websites();
    if (match.route === routes.coupon) {
      const client = queryValue(query, 'client');
      return client ? websiteForClient(engine, client) : undefined;
    }
    return engine.website(match.params[0]!);
  };

  const listener = (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void => {
    const startedAt = performance.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q + 1);
    let match: RouteMatch | undefined;
    let matchError: unknown;
    if (prefix) {
      if (path === prefix) path = '/';
      else if (path.startsWith(`${prefix}/`)) path = path.slice(prefix.length);
      else path = '';
    }
    if (path) {
      try {
        match = matchRoute(path);
      } catch (err) {
        matchError = err;
      }
    }
    if (!match && !matchError && next) {
      next();
      return;
    }
    // A malformed segment of a path naming an endpoint answers in that endpoint's shape.
    const route = match?.route ?? (matchError instanceof MalformedPathError ? matchError.route : unmatchedRoute);
    const ctx: RequestContext = {
      req, res, route, params: match?.params ?? [], query, queryParams: undefined,
      requestId: requestIdOf(req), startedAt, done: false,
      deadlineAt: undefined, deadlinePrev: undefined, deadlineNext: undefined,
    };
    if (!match) {
      sendError(ctx, state, matchError ?? new HttpError('PATH_NOT_FOUND', { path: path || url }));
      return;
    }
    try {
      dispatch(ctx, match);
    } catch (err) {
      // Nothing before the handler is expected to throw; if it does, the caller still gets an answer.
      sendError(ctx, state, err);
    }
  };

  const dispatch = (ctx: RequestContext, match: RouteMatch): void => {
    const { req } = ctx;
    const { route } = match;
    const method = req.method ?? 'GET';
    if (route.cors) ctx.headers = corsHeaders(req, websiteOf(match, ctx.query), method === 'OPTIONS');
    if (method === 'OPTIONS') {
      send(ctx, state, 204, undefined, '', { allow: route.allow });
      return;
    }
    const operation = route.operations.get(method);
    if (!operation) {
      sendError(ctx, state, new HttpError('METHOD_NOT_ALLOWED', { method, route: route.template, allow: route.allow }, { headers: { allow: route.allow } }));
      return;
    }
    ctx.operation = operation;
    if (route.timed) state.deadlines?.arm(ctx);
    operation.handler(ctx, state).catch((err: unknown) => sendError(ctx, state, err));
  };

  return Object.assign(listener, {
    engine,
    metrics,
    tokens: state.tokens,
    beginShutdown(): void {
      state.closing = true;
    },
  });
}
