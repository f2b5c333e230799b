/**
 * The per-request context handed to handlers, and the listener-wide state they share.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine, SearchKeyInfo } from '@aisle/engine';
import type { ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import type { TokenIndex } from './auth.js';
import type { BodyLimits } from './body.js';
import type { DashboardAssets, DashboardOptions } from './dashboard.js';
import type { DeadlineLinks, Deadlines } from './deadlines.js';
import type { OperationDeclaration } from './endpoints.js';
import type { ErrorShape } from './errors.js';
import type { HttpMetrics } from './metrics.js';
import type { QueryParams } from './query.js';

/** Limits applied by the listener; every one is configurable. */
export interface ListenerLimits extends BodyLimits {
  /** Maximum body size of the admin product upload, in bytes (default in limits.ts; the upload is streamed, not held). */
  adminMaxBytes: number;
  /**
   * Maximum number of entries of an array query parameter (the cart's `items`). Defaults to the engine's
   * `MAX_CART_ITEMS`, which a larger value cannot raise (the engine refuses past it); a smaller one lowers it.
   */
  maxQueryItems: number;
  /** Time after which a request still waiting for the engine is answered 503 (default 30 s; 0 = off). */
  handlerTimeoutMs: number;
}

/** State shared by all requests of one listener. */
export interface ListenerState {
  engine: Engine;
  tokens: TokenIndex;
  limits: ListenerLimits;
  logger?: Logger;
  /**
   * The request log's child of `logger` per method, then route template, made at its first line: pino
   * serialises a child's bound fields once, so a line writes only its own (see reply.ts).
   */
  requestLoggers: Map<string, Map<string, Logger>>;
  metrics?: HttpMetrics;
  /** The handler timeout's deadlines (`handlerTimeoutMs`; absent when it is 0, off). */
  deadlines?: Deadlines<RequestContext>;
  isReady: () => boolean;
  closing: boolean;
  openApiText: () => string;
  /** The built-in dashboard, unless turned off. */
  dashboard?: { assets: DashboardAssets; options: DashboardOptions };
}

/** A handler of one route. */
export type Handler = (ctx: RequestContext, state: ListenerState) => Promise<void>;

/** A response serialiser: the JSON text of a response body. */
export type Serializer = (doc: unknown) => string;

/**
 * One operation as the listener runs it, derived from its declaration (endpoints.ts): the handler with
 * what was compiled for it.
 */
export interface Operation {
  readonly declaration: OperationDeclaration;
  readonly handler: Handler;
  /** Serialisers of the declared JSON responses, by status. */
  readonly serializers: ReadonlyMap<number, Serializer>;
  /** The body validator, when the declaration has the adapter validate the body. */
  readonly validator?: ValidateFunction;
}

/** One route of the surface: an endpoint declaration with its operations ready to run. */
export interface Route {
  /** Route template, used as the metrics label and in logs (`/1.0/ClientRecom/{website_id}/Cart`). */
  template: string;
  /** The operations by method, HEAD included when the endpoint answers it (as its GET, without a body). */
  operations: ReadonlyMap<string, Operation>;
  /** The `Allow` header value (methods plus HEAD when allowed, plus OPTIONS). */
  allow: string;
  /** Error shape of the endpoint. */
  shape: ErrorShape;
  /** Browser-called: CORS headers per the website's settings. */
  cors: boolean;
  /** Subject to `handlerTimeoutMs` (not the product upload, whose duration grows with the feed). */
  timed: boolean;
}

/** One request being handled (linked into the handler timeout's list while it waits: deadlines.ts). */
export interface RequestContext extends DeadlineLinks<RequestContext> {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  /** The operation being run (undefined while the request is answered before one is chosen: 404, 405, OPTIONS). */
  operation?: Operation;
  /** The website the caller's token opens (auth kinds `website`, `search` and `admin`), set before the handler runs. */
  websiteId?: string;
  /** The browser search key of a search, when the caller used one (it may force a scope). */
  searchKey?: SearchKeyInfo;
  /** Path parameters, percent-decoded, in template order (shared by the requests of one path). */
  params: readonly string[];
  /** The raw query string (without `?`). */
  query: string;
  /** The query parameters decoded by the operation's declared query schema (set before the handler runs; see query.ts). */
  queryParams?: QueryParams;
  requestId: string;
  /** performance.now() at arrival, ms (a number: no BigInt made per request). */
  startedAt: number;
  /** Set once a response has been sent (later sends are ignored). */
  done: boolean;
  /** Extra headers for every response of this request (CORS). */
  headers?: Record<string, string>;
}
