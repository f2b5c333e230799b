/**
 * Every error the engine raises, in one table: a stable code, its HTTP status, and for the errors
 * that name a field the subject their message starts with (`<subject>: <path> <problem>`, see
 * {@link fieldError}). The body an error takes on the wire (`{type:-1,…}` or RFC 7807) is the
 * endpoint's choice; contract/errors.ts formats both.
 * @module
 */
import type { ProblemDetails } from './types.js';

/** Error codes of the engine; the adapter maps each to its endpoint's documented error shape. */
export const ErrorCodes = {
  /** A search request violates the request table (message names the field). */
  SEARCH_BAD_REQUEST: { status: 400, subject: 'search request' },
  /** Unknown website id. */
  WEBSITE_NOT_FOUND: { status: 404 },
  /** The client shortcode does not belong to the website. */
  CLIENT_NOT_FOUND: { status: 404 },
  /** Bad recommendation or bundle parameters. */
  RECOMMEND_BAD_PARAMS: { status: 400, subject: '' },
  /** Unknown recommendation method segment. */
  UNKNOWN_METHOD: { status: 404 },
  /** A purchase or view body failed validation; `problem` carries the problem details. */
  EVENT_VALIDATION_FAILED: { status: 400 },
  /** Coupon call without code or client. */
  COUPON_BAD_REQUEST: { status: 400 },
  /** Unknown coupon code (or unknown client). */
  COUPON_NOT_FOUND: { status: 404 },
  /** The coupon was already marked as used. */
  COUPON_ALREADY_USED: { status: 409 },
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
} as const satisfies Record<string, { status: number; subject?: string }>;

/** One of the engine's error codes. */
export type ErrorCode = keyof typeof ErrorCodes;

/** The codes whose errors name a field (their table entry has a `subject`). */
export type FieldErrorCode = { [C in ErrorCode]: (typeof ErrorCodes)[C] extends { subject: string } ? C : never }[ErrorCode];

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
    super('EVENT_VALIDATION_FAILED', `${paths.length} validation error(s): ${paths.slice(0, 5).join(', ')}`, { problem });
    this.name = 'ValidationError';
  }
}

/**
 * The error of a bad field: message `<subject>: <path> <problem>` (just `<path> <problem>` when the
 * table's subject is empty) and `details.key` = the path, which the adapter uses as the problem key.
 */
export function fieldError(code: FieldErrorCode, path: string, problem: string): AisleError {
  const subject = ErrorCodes[code].subject;
  return new AisleError(code, `${subject ? `${subject}: ` : ''}${path} ${problem}`, { details: { key: path } });
}

/** True when `err` is an {@link AisleError} (also across realms / duplicated module copies). */
export function isAisleError(err: unknown): err is AisleError {
  return err instanceof AisleError || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AisleError');
}
