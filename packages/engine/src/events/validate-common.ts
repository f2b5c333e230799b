/**
 * Building blocks of event-body errors: the collector keyed by property path that purchase and view
 * bodies (checked against the contract's schemas, event-body.ts) report into, and the field checks the
 * coupon-issue call still uses (camelCase as in the spec, PascalCase accepted too; strings, decimals).
 * @module
 */
import type { ProblemDetails } from '../types.js';
import { ValidationError } from '../errors.js';
import { HTTP_STATUS_INFO, pascal, problemDetails as statusProblem, problemTypeFor } from '../contract/errors.js';

/** The `type` of validation problem details (as in the spec's sample). */
export const VALIDATION_PROBLEM_TYPE = problemTypeFor(400);
/** The `title` of validation problem details. */
export const VALIDATION_PROBLEM_TITLE = HTTP_STATUS_INFO[400]!.title;
/** At most this many error paths are listed; beyond, the key `$` says the list was cut. */
export const MAX_LISTED_ERRORS = 200;
export { MAX_ID_LENGTH, MAX_URL_LENGTH, MAX_DECIMAL } from '../contract/limits.js';
import { DECIMAL_STRING_PATTERN, MAX_ID_LENGTH, MAX_DECIMAL } from '../contract/limits.js';
import { EVENT_FORMATS, parseIsoDateTime } from '../contract/formats.js';

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

/** A field read from a body object: its value (undefined when absent or null) and the key it was sent under. */
export interface FieldValue {
  value: unknown;
  /** The key as sent (camelCase or PascalCase); the camelCase name when absent. */
  sentAs: string;
}

/** Reads `name` (camelCase) or its PascalCase form; own properties only; `null` counts as absent. */
export function field(obj: Record<string, unknown>, name: string): FieldValue {
  if (Object.hasOwn(obj, name) && obj[name] !== null) return { value: obj[name], sentAs: name };
  const p = pascal(name);
  if (Object.hasOwn(obj, p) && obj[p] !== null) return { value: obj[p], sentAs: p };
  return { value: undefined, sentAs: name };
}

const isCleanText = EVENT_FORMATS['clean-text'].validate;
const DECIMAL_STRING = new RegExp(DECIMAL_STRING_PATTERN);

export { parseIsoDateTime };

/** Checks of one object's fields, reporting under `prefix` + PascalCase field name. */
export class FieldChecker {
  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly prefix: string,
    private readonly errors: ErrorCollector,
    /** Top-level objects report the key as sent; nested ones in PascalCase. */
    private readonly topLevel = false,
  ) {}

  /** The error path of a field. */
  path(name: string, sentAs?: string): string {
    const key = this.topLevel ? (sentAs ?? name) : pascal(name);
    return this.prefix === '' ? key : `${this.prefix}.${key}`;
  }

  private required(name: string, f: FieldValue): void {
    this.errors.add(this.path(name, f.sentAs), `The ${pascal(name)} field is required.`);
  }

  /** A string; required ones must not be empty or blank. */
  string(name: string, opts: { required?: boolean; max?: number } = {}): string | undefined {
    const f = field(this.obj, name);
    const max = opts.max ?? MAX_ID_LENGTH;
    if (f.value === undefined) {
      if (opts.required) this.required(name, f);
      return undefined;
    }
    const p = this.path(name, f.sentAs);
    if (typeof f.value !== 'string') {
      this.errors.add(p, `The ${pascal(name)} field must be a string.`);
      return undefined;
    }
    if (f.value.trim() === '') {
      if (opts.required) this.required(name, f);
      else this.errors.add(p, `The ${pascal(name)} field must not be empty when present.`);
      return undefined;
    }
    if (f.value.length > max) {
      this.errors.add(p, `The ${pascal(name)} field must be at most ${max} characters long.`);
      return undefined;
    }
    if (!isCleanText(f.value)) {
      this.errors.add(p, `The ${pascal(name)} field must not contain NUL characters or unpaired surrogates.`);
      return undefined;
    }
    return f.value;
  }

  /** A decimal: a JSON number or a decimal string such as "12.50", within [min, max]. */
  decimal(name: string, opts: { required?: boolean; min: number; max?: number }): number | undefined {
    const f = field(this.obj, name);
    if (f.value === undefined || f.value === '') {
      if (opts.required) this.required(name, f);
      else if (f.value === '') this.errors.add(this.path(name, f.sentAs), `The ${pascal(name)} field must be a decimal number when present.`);
      return undefined;
    }
    const max = opts.max ?? MAX_DECIMAL;
    let n: number | undefined;
    if (typeof f.value === 'number') n = f.value;
    else if (typeof f.value === 'string' && f.value.length <= 40 && DECIMAL_STRING.test(f.value)) n = Number(f.value);
    if (n === undefined || !Number.isFinite(n) || n < opts.min || n > max) {
      this.errors.add(this.path(name, f.sentAs), `The ${pascal(name)} field must be a decimal number from ${opts.min} to ${max}.`);
      return undefined;
    }
    return n === 0 ? 0 : n; // no -0
  }
}
