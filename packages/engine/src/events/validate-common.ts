/**
 * Building blocks of event-body errors: the collector keyed by property path that purchase, view and
 * coupon-issue bodies (checked against the contract's schemas, event-body.ts) report into.
 * @module
 */
import type { ProblemDetails } from '../types.js';
import { ValidationError, messageOf } from '../errors.js';
import { HTTP_STATUS_INFO, pascal, problemDetails as statusProblem, problemTypeFor } from '../contract/errors.js';

/** The `type` of validation problem details (as in the spec's sample). */
export const VALIDATION_PROBLEM_TYPE = problemTypeFor(400);
/** The `title` of validation problem details. */
export const VALIDATION_PROBLEM_TITLE = HTTP_STATUS_INFO[400]!.title;
/** At most this many error paths are listed; beyond, the key `$` says the list was cut. */
export const MAX_LISTED_ERRORS = 200;
export { MAX_ID_LENGTH, MAX_URL_LENGTH, MAX_DECIMAL } from '../contract/limits.js';
import { parseIsoDateTime } from '../contract/formats.js';

/** Collects validation messages per path, in insertion order. */
export class ErrorCollector {
  readonly errors: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  private count = 0;
  private truncated = false;

  add(path: string, message: string): void {
    const list = this.errors[path];
    if (list !== undefined) {
      list.push(message);
      return;
    }
    if (this.count >= MAX_LISTED_ERRORS) {
      this.truncated = true;
      return;
    }
    this.count++;
    this.errors[path] = [message];
  }

  get hasErrors(): boolean {
    return this.count > 0;
  }

  /** Throws the {@link ValidationError} when anything was collected. */
  throwIfAny(): void {
    if (!this.hasErrors) return;
    const errors: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(this.errors)) errors[k] = v;
    if (this.truncated) (errors.$ ??= []).push(`More than ${MAX_LISTED_ERRORS} fields are invalid; only the first ${MAX_LISTED_ERRORS} are listed.`);
    throw new ValidationError(problemDetails(errors));
  }
}

/** Problem details of a validation failure, with a fresh trace id. */
export function problemDetails(errors: Record<string, string[]>): ProblemDetails {
  return statusProblem(400, errors);
}

/** A plain JSON object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { pascal };

export { parseIsoDateTime };

/**
 * The parameters of a library caller's report `range` that the report's (closed) query schema does not
 * declare, each worded as the HTTP adapter refuses it (`QUERY_PARAM_UNKNOWN`): a misspelt `form` answered
 * the report of all time. Pure.
 */
export function unknownReportParameters(range: object, schema: { properties: object }): Record<string, string[]> {
  const known = Object.keys(schema.properties);
  const errors: Record<string, string[]> = {};
  for (const name of Object.keys(range)) {
    if (!known.includes(name)) errors[name] = [messageOf('QUERY_PARAM_UNKNOWN', { name, accepted: known.join(', ') })];
  }
  return errors;
}
