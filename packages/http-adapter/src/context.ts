/**
 * The per-request context handed to handlers, and the listener-wide state they share.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine } from '@aisle/engine';
import type { Logger } from 'pino';
import type { TokenIndex } from './auth.js';
import type { BodyLimits } from './body.js';
import type { DashboardAssets, DashboardOptions } from './dashboard.js';
import type { ErrorShape } from './errors.js';
import type { HttpMetrics } from './metrics.js';

/** Limits applied by the listener; every one is configurable. */
export interface ListenerLimits extends BodyLimits {
  /** Maximum body size of the admin product upload, in bytes (default 1 GiB; the upload is streamed, not held). */
  adminMaxBytes: number;
  /** Maximum number of `items` entries in a recommendation query (default 100). */
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
  metrics?: HttpMetrics;
  isReady: () => boolean;
  closing: boolean;
  openApiText: () => string;
  /** The built-in dashboard, unless turned off. */
  dashboard?: { assets: DashboardAssets; options: DashboardOptions };
}

/** A handler of one route. */
export type Handler = (ctx: RequestContext, state: ListenerState) => Promise<void>;

/** One route of the surface. */
export interface Route {
  /** Route template, used as the metrics label and in logs (`/1.0/ClientRecom/{website_id}/Cart`). */
  template: string;
  /** Allowed methods (HEAD is implied by a GET that changes nothing; OPTIONS is always answered). */
  methods: readonly string[];
  /** The `Allow` header value (methods plus HEAD when allowed, plus OPTIONS). */
  allow: string;
  /** HEAD is answered like GET (without a body): every GET except one that changes state. */
  allowsHead: boolean;
  /** Error shape of the endpoint. */
  shape: ErrorShape;
  /** Browser-called: CORS headers per the website's settings. */
  cors: boolean;
  /** Subject to `handlerTimeoutMs` (not the product upload, whose duration grows with the feed). */
  timed: boolean;
  handler: Handler;
}

/** One request being handled. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  /** Path parameters, percent-decoded, in template order. */
  params: string[];
  /** The raw query string (without `?`). */
  query: string;
  requestId: string;
  /** process.hrtime.bigint() at arrival. */
  startedAt: bigint;
  /** Set once a response has been sent (later sends are ignored). */
  done: boolean;
  /** Extra headers for every response of this request (CORS). */
  headers?: Record<string, string>;
  timer?: NodeJS.Timeout;
}
