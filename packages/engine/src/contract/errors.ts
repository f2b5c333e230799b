/**
 * The error half of the wire contract: the two documented error bodies and the one formatter that
 * writes either of them.
 *
 * - `envelope` (search, recommendations, bundle, coupon, unmatched paths): `{type: -1, code: <status>, message}`.
 * - `problem` (purchases, views, admin): RFC 7807 problem details with `errors` keyed by property
 *   path, the top-level property as sent and deeper ones in PascalCase (`events[0].Products[0].RefId`),
 *   `$` for the request as a whole, and a W3C `traceId`.
 *
 * The status of each engine error code is declared once, in the engine's error table (errors.ts);
 * which of the two bodies an error takes is the endpoint's choice, so the formatter takes the shape.
 * @module
 */
import { newTraceId } from '../util/ids.js';
import type { ErrorEnvelope, ProblemDetails } from './schemas.js';

/** Which documented error body an endpoint uses. */
export type ErrorShape = 'envelope' | 'problem';

/** Reason phrases (titles) and RFC 9110 section anchors of the statuses aisle answers with. */
export const HTTP_STATUS_INFO: Readonly<Record<number, { title: string; section: string }>> = {
  400: { title: 'One or more validation errors occurred.', section: '15.5.1' },
  401: { title: 'Unauthorized', section: '15.5.2' },
  403: { title: 'Forbidden', section: '15.5.4' },
  404: { title: 'Not Found', section: '15.5.5' },
  405: { title: 'Method Not Allowed', section: '15.5.6' },
  408: { title: 'Request Timeout', section: '15.5.9' },
  409: { title: 'Conflict', section: '15.5.10' },
  412: { title: 'Precondition Failed', section: '15.5.13' },
  413: { title: 'Content Too Large', section: '15.5.14' },
  415: { title: 'Unsupported Media Type', section: '15.5.16' },
  500: { title: 'Internal Server Error', section: '15.6.1' },
  503: { title: 'Service Unavailable', section: '15.6.4' },
};

const infoOf = (status: number) => HTTP_STATUS_INFO[status] ?? HTTP_STATUS_INFO[500]!;

/** The RFC 9110 reference URL used as the problem `type` for a status. */
export function problemTypeFor(status: number): string {
  return `https://tools.ietf.org/html/rfc9110#section-${infoOf(status).section}`;
}

const pascalCache = new Map<string, string>();

/** `refId` → `RefId` (cached: the same few dozen field names are converted on every request). */
export function pascal(name: string): string {
  let p = pascalCache.get(name);
  if (p === undefined) {
    p = name.charAt(0).toUpperCase() + name.slice(1);
    if (pascalCache.size < 1000) pascalCache.set(name, p);
  }
  return p;
}

/**
 * A property path in the problem-details form: the top-level property as sent, deeper properties in
 * PascalCase (`events[0].products` → `events[0].Products`).
 */
export function problemPath(path: string): string {
  return path.split('.').map((seg, i) => (i === 0 ? seg : pascal(seg))).join('.');
}

/** Problem details of a status with messages already keyed by problem path, with a trace id (fresh by default). */
export function problemDetails(status: number, errors: Record<string, string[]>, traceId: string = newTraceId()): ProblemDetails {
  return { type: problemTypeFor(status), title: infoOf(status).title, status, errors, traceId };
}

/** Problem details for one message at one property path (`$` = the request as a whole). */
export function problemFor(status: number, key: string, message: string, traceId: string = newTraceId()): ProblemDetails {
  return problemDetails(status, { [problemPath(key)]: [message] }, traceId);
}

/** An error reduced to what either body needs. */
export interface ErrorFacts {
  status: number;
  message: string;
  /** Property path of the fault (`$` = the request as a whole). */
  key: string;
  /** Complete problem details (an event body's validation): sent as they are in the problem shape. */
  problem?: ProblemDetails;
}

/** The body of an error in an endpoint's shape: the one formatter of both documented error bodies. */
export function formatError(shape: 'problem', facts: ErrorFacts, traceId?: string): ProblemDetails;
export function formatError(shape: 'envelope', facts: ErrorFacts): ErrorEnvelope;
export function formatError(shape: ErrorShape, facts: ErrorFacts, traceId?: string): ProblemDetails | ErrorEnvelope;
export function formatError(shape: ErrorShape, facts: ErrorFacts, traceId?: string): ProblemDetails | ErrorEnvelope {
  if (shape === 'problem') return facts.problem ?? problemFor(facts.status, facts.key, facts.message, traceId);
  return { type: -1, code: facts.status, message: facts.message };
}
