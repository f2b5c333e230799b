/**
 * The adapter's errors, in one place: the engine's error codes mapped to HTTP statuses, and the
 * rendering of an error into the documented wire shape of each endpoint family.
 *
 * - `envelope` (search, recommendations, bundle, coupon, unmatched paths): `{type: -1, code: <status>, message}`.
 * - `problem` (purchases, views, admin): RFC 7807 problem details, `application/problem+json`,
 *   with `errors` keyed by property path (`$` for the request as a whole) and a `traceId`.
 * @module
 */
import { ErrorCodes, isAisleError, newTraceId, type ErrorCode, type ProblemDetails } from '@aisle/engine';

/**
 * The HTTP status of each engine error code, derived from the engine's own error table (each code is
 * declared once, with its status, in the engine's errors module).
 */
export const STATUS_BY_CODE: Record<ErrorCode, number> = Object.fromEntries(
  Object.entries(ErrorCodes).map(([code, { status }]) => [code, status]),
) as Record<ErrorCode, number>;

/** Which documented error shape an endpoint uses. */
export type ErrorShape = 'envelope' | 'problem';

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

/** Reason phrases and RFC 9110 section anchors of the statuses the adapter produces. */
const STATUS_INFO: Record<number, { title: string; section: string }> = {
  400: { title: 'One or more validation errors occurred.', section: '15.5.1' },
  401: { title: 'Unauthorized', section: '15.5.2' },
  403: { title: 'Forbidden', section: '15.5.4' },
  404: { title: 'Not Found', section: '15.5.5' },
  405: { title: 'Method Not Allowed', section: '15.5.6' },
  408: { title: 'Request Timeout', section: '15.5.9' },
  409: { title: 'Conflict', section: '15.5.10' },
  413: { title: 'Content Too Large', section: '15.5.14' },
  415: { title: 'Unsupported Media Type', section: '15.5.16' },
  500: { title: 'Internal Server Error', section: '15.6.1' },
  503: { title: 'Service Unavailable', section: '15.6.4' },
};

/** The RFC 9110 reference URL used as the problem `type` for a status. */
export function problemTypeFor(status: number): string {
  return `https://tools.ietf.org/html/rfc9110#section-${(STATUS_INFO[status] ?? STATUS_INFO[500]!).section}`;
}

/**
 * A property path in the problem-details form: the top-level property as sent, deeper properties in
 * PascalCase (`events[0].products` → `events[0].Products`), as the engine writes its validation errors.
 */
export function problemPath(path: string): string {
  const segments = path.split('.');
  return segments.map((seg, i) => (i === 0 ? seg : seg.charAt(0).toUpperCase() + seg.slice(1))).join('.');
}

/** Problem details for one message, keyed by `key`. */
export function problemFor(status: number, key: string, message: string, traceId: string = newTraceId()): ProblemDetails {
  return {
    type: problemTypeFor(status),
    title: (STATUS_INFO[status] ?? STATUS_INFO[500]!).title,
    status,
    errors: { [problemPath(key)]: [message] },
    traceId,
  };
}

/** An error reduced to what the wire needs. */
export interface WireError {
  status: number;
  message: string;
  /** Problem-details key (`$` unless an adapter check named a parameter). */
  key: string;
  /** Set for the engine's ValidationError: sent as is. */
  problem?: ProblemDetails;
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
