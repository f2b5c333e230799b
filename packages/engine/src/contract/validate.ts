/**
 * The contract's request validators: each schema of schemas.ts compiled once by ajv, and one way of
 * turning ajv's report into a message naming the offending path (`scope.price.min`, `sort_fields[0]`).
 * Callers choose the error a failure raises (search, bundle, key and settings bodies each have their
 * own error code), so the wording of a failure is the same everywhere.
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_FORMATS } from './formats.js';
import { inlineRefs, schemas, ScopeConditionSchema, type SchemaName } from './schemas.js';

/** Reports a problem at a path and throws (each caller says in which words and with which error code). */
export type FailAt = (path: string, problem: string) => never;

/**
 * One ajv instance for the whole contract. `strictNumbers` refuses NaN and ±Infinity where a number
 * is expected (a library caller can pass them; JSON cannot); `strict: false` lets the schemas carry
 * the documentation keywords OpenAPI reads; `verbose` gives an error its schema, whose description
 * words the message of a value that fits none of a union's forms.
 */
function contractAjv(allErrors: boolean): Ajv {
  const instance = new Ajv({ allErrors, strict: false, strictNumbers: true, verbose: true, discriminator: true });
  addFormats.default(instance, ['date-time']);
  for (const [name, format] of Object.entries(EVENT_FORMATS)) instance.addFormat(name, { type: 'string', validate: format.validate });
  return instance;
}

/**
 * Two instances: the first failure is enough for most bodies; event bodies list every failure at once
 * (their wire is RFC 7807 problem details keyed by path), so theirs run with `allErrors`.
 */
const instances = { first: { ajv: contractAjv(false), compiled: new Map<unknown, ValidateFunction>() }, all: { ajv: contractAjv(true), compiled: new Map<unknown, ValidateFunction>() } };

/** Options of {@link validatorFor}. */
export interface ValidatorOptions {
  /** Report every failure instead of stopping at the first (event bodies). */
  allErrors?: boolean;
}

/** The validator of a schema (a component name or a schema object), compiled on first use and kept. */
export function validatorFor(schema: SchemaName | object, options: ValidatorOptions = {}): ValidateFunction {
  const { ajv, compiled } = options.allErrors ? instances.all : instances.first;
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(inlineRefs(typeof schema === 'string' ? schemas[schema] : schema));
    compiled.set(schema, v);
  }
  return v;
}

function formatPath(instancePath: string, root: string): string {
  const path = instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), root);
  return path;
}

/** How each JSON type is asked for in a message. */
const TYPE_WORDS: Record<string, string> = {
  string: 'must be a string', number: 'must be a number', integer: 'must be an integer', boolean: 'must be true or false',
  object: 'must be an object', array: 'must be an array', null: 'must be null',
};

const limit = (e: ErrorObject): number => (e.params as { limit: number }).limit;

const join = (base: string, key: string): string => (base ? `${base}.${key}` : key);

/**
 * A bound on an object's keys in words: "exactly" only where the schema pins the count (a sort key's
 * one field), else the bound as it is (`recommendations: {}` must have at least one key, not exactly one).
 */
function keyCountMessage(e: ErrorObject, bound: 'at least' | 'at most'): string {
  const schema = e.parentSchema as { minProperties?: number; maxProperties?: number } | undefined;
  const keys = limit(e) === 1 ? 'one key' : `${limit(e)} keys`;
  return schema?.minProperties === schema?.maxProperties ? `must have exactly ${keys}` : `must have ${bound} ${keys}`;
}

function describeOne(e: ErrorObject, root: string): { path: string; message: string } {
  const at = formatPath(e.instancePath, root);
  switch (e.keyword) {
    case 'required':
      return { path: join(at, (e.params as { missingProperty: string }).missingProperty), message: 'is required' };
    case 'additionalProperties': {
      const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const list = known.length > 0 ? ` (known: ${known.join(', ')})` : '';
      return { path: join(at, (e.params as { additionalProperty: string }).additionalProperty), message: `is not a known key${list}` };
    }
    case 'discriminator': {
      const { tag } = e.params as { tag: string };
      const forms = ((e.parentSchema as { oneOf?: { properties?: Record<string, { const?: unknown }> }[] } | undefined)?.oneOf ?? [])
        .map((f) => JSON.stringify(f.properties?.[tag]?.const));
      return { path: join(at, tag), message: `must be one of ${forms.join(', ')}` };
    }
    case 'const':
      return { path: at, message: `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}` };
    case 'enum':
      return { path: at, message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` };
    case 'type': {
      const type = (e.params as { type: string }).type;
      return { path: at, message: TYPE_WORDS[type] ?? `must be ${type}` };
    }
    case 'format': {
      const format = (e.params as { format: string }).format;
      return { path: at, message: EVENT_FORMATS[format as keyof typeof EVENT_FORMATS]?.expected ?? e.message ?? `must be ${format}` };
    }
    case 'minLength':
      if ((e.parentSchema as { maxLength?: number } | undefined)?.maxLength === limit(e)) return { path: at, message: `must be exactly ${limit(e)} characters long` };
      return { path: at, message: limit(e) === 1 ? 'must be a non-empty string' : `must be at least ${limit(e)} characters long` };
    case 'maxLength':
      if ((e.parentSchema as { minLength?: number } | undefined)?.minLength === limit(e)) return { path: at, message: `must be exactly ${limit(e)} characters long` };
      return { path: at, message: `must be at most ${limit(e)} characters long` };
    case 'pattern':
      return { path: at, message: (e.params as { pattern: string }).pattern === '\\S' ? 'must not be blank' : `must match ${(e.params as { pattern: string }).pattern}` };
    case 'minimum':
      return { path: at, message: `must be at least ${limit(e)}` };
    case 'maximum':
      return { path: at, message: `must be at most ${limit(e)}` };
    case 'exclusiveMinimum':
      return { path: at, message: `must be greater than ${limit(e)}` };
    case 'minItems':
      return { path: at, message: `must have at least ${limit(e)} ${limit(e) === 1 ? 'entry' : 'entries'}` };
    case 'maxItems':
      return { path: at, message: `must have at most ${limit(e)} entries` };
    case 'maxProperties':
      return { path: at, message: keyCountMessage(e, 'at most') };
    case 'minProperties':
      return { path: at, message: keyCountMessage(e, 'at least') };
    default:
      return { path: at, message: e.message ?? 'is invalid' };
  }
}

const depth = (path: string): number => path.split(/[.[]/).length;

/**
 * The most useful of ajv's errors as `{path, message}`, the path in the dotted/indexed form of the wire
 * (prefixed by `root`; `self` names the value itself when it is at fault and `root` is empty). Within an `anyOf` (a scope condition), the branch that
 * got furthest into the value is the one the caller meant, so the deepest error wins (on a tie, a
 * known key's value of the wrong type before "not a known key" — a branch that knows the key was
 * meant —, else the first); when every branch failed at the value itself, the `anyOf` summary names the accepted forms.
 */
export function describeAjvError(errors: ErrorObject[] | null | undefined, root = '', self = '$'): { path: string; message: string } {
  if (!errors || errors.length === 0) return { path: root || self, message: 'is invalid' };
  const described = errors.map((e) => ({ e, ...describeOne(e, root) }));
  let best = described[0]!;
  for (const d of described) {
    const tie = depth(d.path) === depth(best.path);
    if (depth(d.path) > depth(best.path) || (tie && best.e.keyword === 'additionalProperties' && d.e.keyword === 'type')) best = d;
  }
  const anyOf = described.find((d) => d.e.keyword === 'anyOf');
  if (anyOf && depth(best.path) <= depth(anyOf.path) && best.e.keyword === 'type') {
    // Every form failed at the value itself: say which forms are accepted (the schema's words when it has them).
    const forms = (anyOf.e.parentSchema as { description?: string } | undefined)?.description;
    const alternatives = [...new Set(described.filter((d) => d !== anyOf && d.path === anyOf.path).map((d) => d.message))];
    return { path: anyOf.path || self, message: forms ? `must be ${forms}` : alternatives.join(', or ') };
  }
  return { path: best.path || self, message: best.message };
}

/**
 * Every failure of an `allErrors` validation, one `{path, message}` per offending path in the order ajv
 * met them (each path worded by {@link describeAjvError}, so a union speaks once).
 */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = '', self = '$'): { path: string; message: string }[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors ?? []) {
    if (e.keyword === 'if') continue; // a summary: the failures of its `then` are listed themselves
    const { path } = describeOne(e, root);
    const key = path || self;
    const group = byPath.get(key);
    if (group === undefined) byPath.set(key, [e]);
    else group.push(e);
  }
  return [...byPath.values()].map((group) => describeAjvError(group, root, self));
}

/** Where {@link checkAgainst} reports: paths are prefixed by `root`; `self` names a value at fault as a whole (when `root` is empty). */
export interface CheckAt {
  root?: string;
  self?: string;
}

/**
 * Validates `value` against `schema`; on failure calls `fail` with the offending path and the problem,
 * and does not return. Returns the value, typed by the caller.
 */
export function checkAgainst<T>(schema: SchemaName | object, value: unknown, fail: FailAt, at: CheckAt = {}): T {
  const validate = validatorFor(schema);
  if (!validate(value)) {
    const { path, message } = describeAjvError(validate.errors, at.root, at.self);
    fail(path, message);
  }
  return value as T;
}

/** The schema of one scope condition, for callers that check a scope object of their own (settings rules). */
export const scopeConditionSchema: object = ScopeConditionSchema;
