/**
 * Every error of aisle, in one table: a stable code, its HTTP status, and either the subject a field
 * error's message starts with (`<subject>: <path> <problem>`, see {@link fieldError}) or a message
 * template with `{name}` placeholders (see {@link messageOf}; the adapter's `HttpError` is built from
 * one). The engine's own errors come first; the request-level errors the HTTP adapter raises (query
 * strings, bodies, tokens, routing) are declared here too, so that every error either package raises
 * has its code, status and wording in one place (fastify's `lib/errors.js`). The body an error takes on the wire (`{type:-1,…}` or
 * RFC 7807) is the endpoint's choice; contract/errors.ts formats both.
 * @module
 */
import type { ProblemDetails } from './types.js';

/** Error codes of aisle; the adapter maps each to its endpoint's documented error shape. */
export const ErrorCodes = {
  /** A search request violates the request table (message names the field). */
  SEARCH_BAD_REQUEST: { status: 400, subject: 'search request' },
  /** Unknown website id (the template is the adapter's wording for the website of an admin path). */
  WEBSITE_NOT_FOUND: { status: 404, message: 'unknown website "{websiteId}"' },
  /** The client shortcode does not belong to the website. */
  CLIENT_NOT_FOUND: { status: 404 },
  /** Bad recommendation or bundle parameters. */
  RECOMMEND_BAD_PARAMS: { status: 400, subject: '' },
  /** Unknown recommendation method segment (the template is the adapter's wording for a path naming none). */
  UNKNOWN_METHOD: { status: 404, message: 'unknown recommendation method "{method}"' },
  /** A purchase or view body failed validation; `problem` carries the problem details. */
  EVENT_VALIDATION_FAILED: { status: 400 },
  /** Coupon call without code or client. */
  COUPON_BAD_REQUEST: { status: 400 },
  /** Unknown coupon code (or unknown client). */
  COUPON_NOT_FOUND: { status: 404 },
  /** The coupon was already marked as used. */
  COUPON_ALREADY_USED: { status: 409 },
  /**
   * A purchase replays an orderId the website already holds with other content: nothing of the request
   * was stored; `problem` names each such order under its `events[i].OrderId` path.
   */
  ORDER_CONFLICT: { status: 409 },
  /**
   * A click names a clickId the website already holds with other content: nothing of the request was
   * stored; `problem` names each such click under its `events[i].ClickId` path.
   */
  CLICK_CONFLICT: { status: 409 },
  /**
   * An admin issue names a code the website already holds with another customer or discount: nothing of
   * the issue was stored; `problem` names each such code under its `coupons[i].Code` path.
   */
  COUPON_CONFLICT: { status: 409 },
  /** A product feed, product batch or bulk delete is malformed (a field error names the field). */
  CATALOG_BAD_INPUT: { status: 400, subject: 'catalog' },
  /** A snapshot file is missing, truncated or of another format version. */
  SNAPSHOT_INVALID: { status: 500 },
  /**
   * A settings change pins field types that stored products do not fit (`settings.fields`): nothing
   * changed; `problem` lists up to 100 of the products.
   */
  FIELD_TYPES_CONFLICT: { status: 409 },
  /** Website settings sent at run time are invalid (message names the key, as for the config file). */
  SETTINGS_INVALID: { status: 400, subject: '' },
  /**
   * A settings write made on condition (HTTP `If-Match`) that the settings are still at a version they
   * are no longer at: another writer changed them since they were read; nothing was written.
   */
  SETTINGS_VERSION_MISMATCH: {
    status: 412,
    message: 'the settings of website "{websiteId}" changed since they were read; nothing was written: read them again and reapply the change',
  },
  /**
   * A settings preview's body is invalid outside its settings (`search.size`, an unknown top-level key):
   * the message names the field. Its settings are refused as a PATCH refuses them (`SETTINGS_INVALID`).
   */
  PREVIEW_BAD_REQUEST: { status: 400, subject: 'settings preview' },
  /** The engine or website configuration is invalid (message names the key). */
  CONFIG_INVALID: { status: 500, subject: 'config' },
  /** Another live process has the data directory's catalogs open (message names its pid). */
  DATA_DIR_LOCKED: { status: 500 },
  /** A size or count limit was exceeded. */
  LIMIT_EXCEEDED: { status: 413 },
  /** The store failed; nothing was acknowledged. */
  STORE_FAILURE: { status: 503 },
  /** The engine is closed or closing. */
  ENGINE_CLOSED: { status: 503 },
  /** A search-key request is malformed (message names the field). */
  KEY_BAD_REQUEST: { status: 400, subject: 'search key' },
  /** No such search key for the website. */
  KEY_NOT_FOUND: { status: 404 },
  /** An experiment body is malformed or names what does not exist (message names the field). */
  EXPERIMENT_BAD_REQUEST: { status: 400, subject: 'experiment' },
  /** No experiment of this id in the website. */
  EXPERIMENT_NOT_FOUND: { status: 404, message: 'website "{websiteId}" has no experiment "{id}"' },
  /** The website already runs (or has scheduled) an experiment of this kind. */
  EXPERIMENT_CONFLICT: { status: 409, message: 'website "{websiteId}" already has a {kind} experiment that is not stopped ("{id}"); stop it first' },
  /** Only a stopped experiment can be deleted. */
  EXPERIMENT_RUNNING: { status: 409, message: 'experiment "{id}" is not stopped; stop it before deleting it' },

  // Request-level errors, raised by the HTTP adapter before or around an engine call.
  /** A scalar query parameter given twice. */
  QUERY_PARAM_REPEATED: { status: 400, message: 'query parameter {name} is given more than once' },
  /** A boolean query parameter that is not one of the accepted words. */
  QUERY_PARAM_NOT_BOOLEAN: { status: 400, message: 'query parameter {name} must be true, false, 1 or 0 (got "{value}")' },
  /** An integer query parameter that is not a decimal integer within its declared bounds. */
  QUERY_PARAM_NOT_INTEGER: { status: 400, message: 'query parameter {name} must be an integer from {min} to {max} (got "{value}")' },
  /** A query parameter outside its declared values. */
  QUERY_PARAM_NOT_ALLOWED_VALUE: { status: 400, message: 'query parameter {name} must be {choices}' },
  /** A parameter an operation with a closed query does not take (an admin report's misspelt `form`). */
  /** A required query parameter absent or empty. */
  QUERY_PARAM_REQUIRED: { status: 400, message: 'query parameter {name} is required' },
  /** An indexed array parameter whose index is not a number (`items[x]`). */
  QUERY_PARAM_BAD_INDEX: { status: 400, message: 'query parameter {name} is not of the form {array}[<index>]' },
  /** A declared query parameter whose name or value is not valid percent-encoding (`productRef=%E0%A4%A`). */
  QUERY_PARAM_MALFORMED: { status: 400, message: 'query parameter {name} is not valid percent-encoding' },
  /** An array query parameter with more entries than the listener accepts. */
  QUERY_PARAM_TOO_MANY: { status: 400, message: 'query parameter {name} has {count} entries; at most {max} are accepted' },
  /** A query parameter name the operation does not declare, in any case (names starting with `_` are the caller's own). */
  QUERY_PARAM_UNKNOWN: { status: 400, message: 'query parameter {name} is not taken here (it takes {accepted})' },
  /** A path that names an endpoint but has a segment that is not valid percent-encoding. */
  PATH_SEGMENT_MALFORMED: { status: 400, message: 'path segment "{segment}" is not valid percent-encoding' },
  /** No endpoint has this path. */
  PATH_NOT_FOUND: { status: 404, message: 'no such path: {path}' },
  /** The endpoint exists, but not with this HTTP method. */
  METHOD_NOT_ALLOWED: { status: 405, message: 'method {method} is not allowed on {route}; allowed: {allow}' },
  /** The request's Content-Type is not one the operation accepts (`got` is empty or ` (got <type>)`). */
  MEDIA_TYPE_UNSUPPORTED: { status: 415, message: 'Content-Type must be {accepted}{got}' },
  /** The request's Content-Encoding is not one the operation decodes (`send` says what to send instead). */
  CONTENT_ENCODING_UNSUPPORTED: { status: 415, message: 'Content-Encoding must be {accepted} (got {got}): send the body {send}' },
  /** A body read whole is larger than the listener's limit. */
  BODY_TOO_LARGE: { status: 413, message: 'request body exceeds the limit of {max} bytes' },
  /** A streamed product feed went past the upload limit; nothing of it was applied. */
  FEED_TOO_LARGE: { status: 413, message: 'request body exceeds the limit of {max} bytes; nothing was changed' },
  /** The body stream failed while it was read. */
  BODY_UNREADABLE: { status: 400, message: 'request body could not be read: {reason}' },
  /** The client went away before the body was complete. */
  BODY_ABORTED: { status: 400, message: 'request aborted by the client' },
  /** A body that is not JSON. */
  BODY_NOT_JSON: { status: 400, message: 'request body is not valid JSON: {reason}' },
  /** A JSON body without content. */
  BODY_EMPTY: { status: 400, message: 'request body is empty; a JSON document is required' },
  /** A JSON body nested deeper than the listener's limit. */
  BODY_TOO_DEEP: { status: 400, message: 'JSON nesting is deeper than {max} levels' },
  /** A JSON array of the body longer than the listener's limit (`at` is the path, or `the body`). */
  BODY_ARRAY_TOO_LONG: { status: 400, message: '{at} has {length} elements; at most {max} are accepted' },
  /** A body that fails its declared schema (`at` is the path and a space, or empty for the body as a whole). */
  BODY_INVALID: { status: 400, message: '{at}{problem}' },
  /** A product feed without content (with mode=replace it would empty the catalog). */
  FEED_EMPTY: { status: 400, message: 'request body is empty; send a JSON array or NDJSON of {what}' },
  /** A product feed sent as JSON that is not an array. */
  FEED_NOT_ARRAY: { status: 400, message: 'request body must be a JSON array of {what} (or NDJSON with Content-Type application/x-ndjson)' },
  /** No `Authorization: Bearer` header (`expected` names the kind of token). */
  TOKEN_MISSING: { status: 401, message: 'missing bearer token: send Authorization: Bearer <{expected}>' },
  /** A bearer token that opens nothing (unknown or revoked). */
  TOKEN_INVALID: { status: 401, message: 'invalid bearer token' },
  /** A search key past its `expiresAt` (told only to whoever presents the key itself). */
  KEY_EXPIRED: { status: 401, message: 'the search key expired at {expiresAt}' },
  /** A valid search key whose actions do not include the operation's (`actions` as a list). */
  KEY_ACTION_NOT_ALLOWED: { status: 401, message: 'the search key does not open "{action}" (its actions: {actions})' },
  /**
   * A live search key on an operation only the website's token opens (purchases, views): told to its
   * holder only, as `KEY_ACTION_NOT_ALLOWED` is, since "invalid" would send them looking for a typo.
   */
  KEY_NOT_ACCEPTED: { status: 401, message: 'a search key opens only search and clicks; this operation takes the website\'s bearer token' },
  /** A bearer token that is not an admin token on an admin path. */
  ADMIN_TOKEN_INVALID: { status: 401, message: 'invalid admin token' },
  /** A search body naming a website the bearer token does not open. */
  TOKEN_WRONG_WEBSITE: { status: 401, message: 'the bearer token does not open website_id "{websiteId}"' },
  /** No product with this refId in the website's catalog (`refId` is JSON-quoted). */
  PRODUCT_NOT_FOUND: { status: 404, message: 'no product with refId {refId} in website "{websiteId}"' },
  /** `/metrics` while metrics are turned off. */
  METRICS_DISABLED: { status: 404, message: 'metrics are disabled' },
  /** The dashboard while it is turned off. */
  DASHBOARD_DISABLED: { status: 404, message: 'the dashboard is turned off (dashboard: false)' },
  /** A dashboard file that does not exist. */
  DASHBOARD_FILE_NOT_FOUND: { status: 404, message: 'no such dashboard file: {name}' },
  /** The dashboard's page was never built. */
  DASHBOARD_NOT_BUILT: { status: 503, message: 'the dashboard is not built (no {path}): run "pnpm run build"' },
  /** The request was still waiting for the engine when the listener's handler timeout ran out. */
  REQUEST_TIMEOUT: { status: 503, message: 'the request did not complete within {ms} ms' },
} as const satisfies Record<string, { status: number; subject?: string; message?: string }>;

/** One of the engine's error codes. */
export type ErrorCode = keyof typeof ErrorCodes;

/** The codes whose errors name a field (their table entry has a `subject`). */
export type FieldErrorCode = { [C in ErrorCode]: (typeof ErrorCodes)[C] extends { subject: string } ? C : never }[ErrorCode];

/** The codes whose errors are worded by a message template (their table entry has a `message`). */
export type TemplatedErrorCode = { [C in ErrorCode]: (typeof ErrorCodes)[C] extends { message: string } ? C : never }[ErrorCode];

/** The `{name}` placeholders of a message template, as a union of names. */
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** The values a templated code's message needs: one per placeholder of its template. */
export type MessageValues<C extends TemplatedErrorCode> = Record<Placeholders<(typeof ErrorCodes)[C]['message']>, string | number>;

/** The message of a templated code: its template with every `{name}` replaced by its value. */
export function messageOf<C extends TemplatedErrorCode>(code: C, values: MessageValues<C>): string {
  const template: string = ErrorCodes[code].message;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String((values as Record<string, string | number>)[name]));
}

/** The engine's error: a code from {@link ErrorCodes}, a status, a message, optional details. */
export class AisleError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Problem details for event validation failures. */
  readonly problem?: ProblemDetails;
  /** Extra structured details (e.g. the field at fault). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, extra?: { problem?: ProblemDetails; details?: Record<string, unknown>; cause?: unknown }) {
    super(message, extra?.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'AisleError';
    this.code = code;
    this.status = ErrorCodes[code].status;
    this.problem = extra?.problem;
    this.details = extra?.details;
  }
}

/** Raised by `recordPurchases` / `recordViews` for an invalid body; carries the problem details. */
export class ValidationError extends AisleError {
  declare readonly problem: ProblemDetails;
  constructor(problem: ProblemDetails) {
    const paths = Object.keys(problem.errors);
    // Each path with its first reason: a library caller reads the message, and "1 validation error(s): $"
    // said where but not what (the problem document carries them all).
    const reasons = paths.slice(0, 5).map((path) => `${path}: ${problem.errors[path]?.[0] ?? 'invalid'}`);
    super('EVENT_VALIDATION_FAILED', `${paths.length} validation error(s): ${reasons.join('; ')}`, { problem });
    this.name = 'ValidationError';
  }
}

/**
 * The error of a bad field: message `<subject>: <path> <problem>` (just `<path> <problem>` when the
 * table's subject is empty), `details.key` = the path, which the adapter uses as the problem key, and
 * `details.problem` = the problem's words (see {@link fieldErrorParts}).
 */
export function fieldError(code: FieldErrorCode, path: string, problem: string): AisleError {
  const subject = ErrorCodes[code].subject;
  return new AisleError(code, `${subject ? `${subject}: ` : ''}${path} ${problem}`, { details: { key: path, problem } });
}

/**
 * The path and the problem of a field error ({@link fieldError}; an error carrying its details on keeps
 * them), or undefined: for a caller that names the field under a path of its own (a preview's `search.`,
 * an experiment's `variants[1].`) without reading them back out of the message.
 */
export function fieldErrorParts(err: AisleError): { key: string; problem: string } | undefined {
  const details = err.details as { key?: unknown; problem?: unknown } | undefined;
  return typeof details?.key === 'string' && typeof details.problem === 'string' ? { key: details.key, problem: details.problem } : undefined;
}

/** True when `err` is an {@link AisleError} (also across realms / duplicated module copies). */
export function isAisleError(err: unknown): err is AisleError {
  return err instanceof AisleError || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AisleError');
}
