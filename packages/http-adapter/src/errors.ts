/**
 * The adapter's errors: its own {@link HttpError}, and any thrown value reduced to the facts the
 * engine contract's `formatError` writes in the documented wire shape of each endpoint family.
 *
 * - `envelope` (search, recommendations, bundle, coupon, unmatched paths): `{type: -1, code: <status>, message}`.
 * - `problem` (purchases, views, admin): RFC 7807 problem details, `application/problem+json`,
 *   with `errors` keyed by property path (`$` for the request as a whole) and a `traceId`.
 * @module
 */
import {
  ErrorCodes, isAisleError, problemFor, problemPath, problemTypeFor, type ErrorCode, type ErrorFacts, type ErrorShape,
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

/** An error raised by the adapter itself (bad query parameter, auth, limits, content type …). */
export class HttpError extends Error {
  readonly status: number;
  /** Property path for problem details (`$` = the request as a whole). */
  readonly key: string;
  /** Extra response headers (e.g. `Allow` on 405). */
  readonly headers?: Record<string, string>;

  constructor(status: number, message: string, options: { key?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.key = options.key ?? '$';
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

/** Maps any thrown value to a {@link WireError}. */
export function toWireError(err: unknown): WireError {
  if (err instanceof HttpError) return { status: err.status, message: err.message, key: err.key, headers: err.headers, internal: false };
  if (isAisleError(err)) {
    const status = STATUS_BY_CODE[err.code] ?? 500;
    const key = typeof err.details?.key === 'string' ? err.details.key : '$';
    return { status, message: err.message, key, problem: err.problem, internal: false };
  }
  return { status: 500, message: 'internal error', key: '$', internal: true };
}
