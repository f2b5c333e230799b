/**
 * An event body checked against its contract schema, in three explicit steps: key normalisation (a pure
 * transformation: PascalCase names to the spec's camelCase, `null` dropped as absent), the schema check
 * (the contract's compiled `allErrors` validator: every failure at once), and the problem-details
 * error listing each offending path (top-level key as sent, deeper ones in PascalCase). Value
 * normalisation (GUID case, decimal strings, event times) is the caller's pure step after the check.
 * @module
 */
import { inlineRefs, schemas, type JsonSchema, type SchemaName } from '../contract/schemas.js';
import { describeAjvErrors, validatorFor } from '../contract/validate.js';
import { problemPath } from '../contract/errors.js';
import { ErrorCollector, isRecord, pascal } from './validate-common.js';

/** A body with camelCase keys, and the key each top-level field was sent under. */
export interface CamelCased {
  value: Record<string, unknown>;
  /** camelCase name → key as sent, for top-level fields sent in PascalCase. */
  sentAs: ReadonlyMap<string, string>;
}

// Keys already in camelCase (the common case) are returned as they are, without a new string.
const camel = (key: string): string => {
  const c = key.charCodeAt(0);
  if (c >= 65 && c <= 90) return String.fromCharCode(c + 32) + key.slice(1);
  return c < 128 ? key : key.charAt(0).toLowerCase() + key.slice(1);
};

function camelCaseValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseValue);
  if (isRecord(value)) return camelCaseObject(value, undefined);
  return value;
}

/**
 * A copy of an object with PascalCase keys renamed to camelCase, at every depth. `null` counts as absent;
 * the camelCase spelling wins when both are sent (with a value). Own properties only.
 */
function camelCaseObject(obj: Record<string, unknown>, sentAs: Map<string, string> | undefined): Record<string, unknown> {
  // No prototype: a `__proto__` key sent in JSON stays an unknown field instead of becoming a prototype.
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === null) continue;
    const name = camel(key);
    if (name !== key && Object.hasOwn(obj, name) && obj[name] !== null) continue; // the camelCase spelling wins
    out[name] = camelCaseValue(v);
    if (name !== key) sentAs?.set(name, key);
  }
  return out;
}

/** Key normalisation of an event body (pure). */
export function camelCaseKeys(body: Record<string, unknown>): CamelCased {
  const sentAs = new Map<string, string>();
  return { value: camelCaseObject(body, sentAs), sentAs };
}

/** A schema path (`events[0].products[1].refId`) in problem form with the top-level key as sent. */
function wirePath(path: string, sentAs: ReadonlyMap<string, string>): string {
  const top = /^[^.[]+/.exec(path)?.[0];
  const sent = top === undefined ? undefined : sentAs.get(top);
  return problemPath(sent === undefined ? path : sent + path.slice(top!.length));
}

/** "The RefId field is required.", "The Events entry must be an object.": the last property of the path names the subject. */
function sentence(path: string, message: string): string {
  const field = /(?:^|\.)([^.[\]]+)$/.exec(path)?.[1];
  if (field !== undefined) return `The ${pascal(field)} field ${message}.`;
  const array = /([^.[\]]+)(?:\[\d+\])+$/.exec(path)?.[1];
  return `The ${array === undefined ? 'value' : `${pascal(array)} entry`} ${message}.`;
}

/**
 * Normalises the keys of an event body and checks it against its contract schema; returns the
 * camelCase body and the collector holding every schema failure, so the caller adds its own checks
 * (those needing more than the schema) before `errors.throwIfAny()`. A body that is not an object
 * fails at once under `$`.
 */
export function checkEventBody(schema: SchemaName, body: unknown): { value: Record<string, unknown>; errors: ErrorCollector; sentAs: ReadonlyMap<string, string> } {
  const errors = new ErrorCollector();
  if (!isRecord(body)) {
    errors.add('$', 'The request body must be a JSON object.');
    errors.throwIfAny();
  }
  const { value, sentAs } = camelCaseKeys(body as Record<string, unknown>);
  const validate = validatorFor(schema, { allErrors: true });
  if (!validate(value)) {
    for (const { path, message } of describeAjvErrors(validate.errors)) errors.add(wirePath(path, sentAs), sentence(path, message));
  }
  return { value, errors, sentAs };
}

/** Value normalisation of one schema node, compiled once per schema (a walk of the schema per body cost ~15 % of a purchase's validation). */
type Normaliser = (value: unknown) => unknown;

function compileNormaliser(schema: JsonSchema): Normaliser {
  const guid = schema.format === 'guid';
  const decimal = Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some((form) => form.format === 'decimal');
  const items = schema.items === undefined ? undefined : compileNormaliser(schema.items as JsonSchema);
  const properties = isRecord(schema.properties)
    ? Object.entries(schema.properties).map(([name, sub]) => [name, compileNormaliser(sub as JsonSchema)] as const)
    : undefined;
  return (value) => {
    if (typeof value === 'string') {
      if (guid) return value.toLowerCase();
      if (!decimal) return value;
      const n = Number(value);
      return n === 0 ? 0 : n; // no -0
    }
    if (typeof value === 'number') return value === 0 ? 0 : value;
    if (Array.isArray(value)) return items === undefined ? value : value.map((v) => items(v));
    if (properties !== undefined && isRecord(value)) {
      const out: Record<string, unknown> = {};
      for (const [name, normalise] of properties) {
        const v = value[name];
        if (v !== undefined) out[name] = normalise(v);
      }
      return out;
    }
    return value;
  };
}

const normalisers = new Map<SchemaName, Normaliser>();

/**
 * Value normalisation of a body that passed its schema (pure): only the schema's properties are kept,
 * `guid` strings are lower-cased and decimal strings become numbers (never -0).
 */
export function normaliseValues<T>(schema: SchemaName, value: Record<string, unknown>): T {
  let normalise = normalisers.get(schema);
  if (normalise === undefined) normalisers.set(schema, (normalise = compileNormaliser(inlineRefs(schemas[schema]))));
  return normalise(value) as T;
}
