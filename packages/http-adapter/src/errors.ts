/**
 * The adapter's errors: its own {@link HttpError} (a coded error of the one error table), and any
 * thrown value reduced to the facts the engine contract's `formatError` writes in the documented wire
 * shape of each endpoint family. This is the one place where codes become statuses and wire shapes.
 *
 * - `envelope` (search, recommendations, bundle, coupon, unmatched paths): `{type: -1, code: <status>, message}`.
 * - `problem` (purchases, views, admin): RFC 7807 problem details, `application/problem+json`,
 *   with `errors` keyed by property path (`$` for the request as a whole) and a `traceId`.
 * @module
 */
import {
  AisleError, ErrorCodes, isAisleError, messageOf, problemFor, problemPath, problemTypeFor,
  type ErrorCode, type ErrorFacts, type ErrorShape, type MessageValues, type TemplatedErrorCode,
} from '@aisle/engine';

/**
 * The HTTP status of each engine error code, derived from the engine's own error table (each code is
 * declared once, with its status, in the engine's errors module).
 */
export const STATUS_BY_CODE: Record<ErrorCode, number> = Object.fromEntries(
  Object.entries(ErrorCodes).map(([code, { status }]) => [code, status]),
) as Record<ErrorCode, number>;

/** Which documented error shape an endpoint uses (the engine contract's). */
export type { ErrorShape };

/**
 * An error raised by the adapter itself (bad query parameter, auth, limits, content type …): a coded
 * error of the one error table (the engine's `ErrorCodes`: code, status, message template), plus the
 * response headers a few of them need (`Allow` on 405, `Connection: close` after an unread upload).
 */
export class HttpError<C extends TemplatedErrorCode = TemplatedErrorCode> extends AisleError {
  /** Extra response headers. */
  readonly headers?: Record<string, string>;

  /** `values` fill the code's message template (checked at compile time); `options.key` is the property path at fault (`$` by default). */
  constructor(code: C, values: MessageValues<C>, options: { key?: string; headers?: Record<string, string> } = {}) {
    super(code, messageOf(code, values), options.key === undefined ? undefined : { details: { key: options.key } });
    this.headers = options.headers;
  }
}

/** The problem-details helpers are the engine contract's: one formatter for both error bodies. */
export { problemFor, problemPath, problemTypeFor };

/** An error reduced to what the wire needs: the facts the engine's `formatError` writes, plus headers. */
export interface WireError extends ErrorFacts {
  headers?: Record<string, string>;
  /** True for unexpected (non-engine, non-adapter) errors: their message is never shown to the caller. */
  internal: boolean;
}

/**
 * The challenge a 401 carries (RFC 9110 §15.5.2: a 401 MUST send `WWW-Authenticate`; they were sent
 * without one): the Bearer scheme (RFC 6750 §3), with `error="invalid_token"` when a token was
 * presented and refused, and `insufficient_scope` for a browser key lacking the action.
 */
function challengeOf(code: string): string {
  const scheme = 'Bearer realm="aisle"';
  if (code === 'TOKEN_MISSING') return scheme;
  return `${scheme}, error="${code === 'KEY_ACTION_NOT_ALLOWED' ? 'insufficient_scope' : 'invalid_token'}"`;
}

/** Maps any thrown value to a {@link WireError}. */
export function toWireError(err: unknown): WireError {
  if (isAisleError(err)) {
    const status = STATUS_BY_CODE[err.code] ?? 500;
    const key = typeof err.details?.key === 'string' ? err.details.key : '$';
    const own = err instanceof HttpError ? err.headers : undefined;
    const headers = status === 401 ? { ...own, 'www-authenticate': challengeOf(err.code) } : own;
    return { status, message: err.message, key, problem: err.problem, headers, internal: false };
  }
  return { status: 500, message: 'internal error', key: '$', internal: true };
}
