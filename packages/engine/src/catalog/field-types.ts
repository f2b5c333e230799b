/**
 * Pinned field types (`settings.fields`): which values fit a pinned type, and the first value of a
 * product that does not. A product with a value that does not fit is a bad record of its load or patch,
 * so a feed glitch (a price of "N/A") can never turn a pinned field into another kind. Fields not
 * pinned keep the kind the catalog infers from their values (field-values.ts). Pure functions.
 * @module
 */
import { numericValue } from './field-values.js';
import type { FIELD_TYPES } from '../contract/settings-schema.js';

/** One pinnable field type (the contract's `FIELD_TYPES`). */
export type FieldType = (typeof FIELD_TYPES)[number];

/** `settings.fields`: per field name, its pinned type. */
export type FieldTypes = Readonly<Record<string, { readonly type: FieldType }>>;

/** A value of a product that does not fit its field's pinned type: the per-record error of a load, patch or settings change. */
export interface FieldMismatch {
  refId: string;
  field: string;
  value: unknown;
  message: string;
}

/** A number, or a string spelling one (`"12.50"`), as every numeric read of the catalog takes it. */
function isNumberLike(value: unknown): boolean {
  return (typeof value === 'number' || typeof value === 'string') && !Number.isNaN(numericValue(value));
}

/** A string, or a finite number (kept as its text, as facets and text scopes read it). */
function isTextLike(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

const SCALAR_FITS: Readonly<Record<'text' | 'number' | 'boolean', (value: unknown) => boolean>> = {
  text: isTextLike,
  number: isNumberLike,
  boolean: (value) => typeof value === 'boolean',
};

/**
 * Whether `value` fits `type`: `null` and absent always do (no value); a list type takes an array of
 * its element type or a single such value (a one-element list).
 */
export function valueFits(type: FieldType, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (type === 'text[]' || type === 'number[]') {
    const element = SCALAR_FITS[type === 'text[]' ? 'text' : 'number'];
    return Array.isArray(value) ? value.every(element) : element(value);
  }
  return SCALAR_FITS[type](value);
}

/** The sentence a mismatch carries: what the field expects. */
function expected(type: FieldType): string {
  switch (type) {
    case 'number': return 'a number or a numeric string';
    case 'text': return 'a string or a number';
    case 'boolean': return 'true or false';
    case 'text[]': return 'a list of strings or numbers, or one of them';
    case 'number[]': return 'a list of numbers or numeric strings, or one of them';
  }
}

/** The first pinned field (in `types`' key order) whose value in `product` does not fit, or undefined. Pure. */
export function firstMismatch(product: Readonly<Record<string, unknown>>, types: FieldTypes): FieldMismatch | undefined {
  for (const field of Object.keys(types)) {
    const value = Object.prototype.hasOwnProperty.call(product, field) ? product[field] : undefined;
    const { type } = types[field]!;
    if (!valueFits(type, value)) {
      return { refId: String(product.refId), field, value, message: `field "${field}" is pinned to type ${type} and takes ${expected(type)}` };
    }
  }
  return undefined;
}

/**
 * The kind a pinned type gives its field for scopes, ranges and sorts, whatever its values look like:
 * `number` is numeric; every other type is text (a `text` field of numeric-looking SKUs stays text; list
 * types are multi-valued, and numeric columns hold one value per product). Undefined: not pinned.
 */
export function pinnedKind(types: FieldTypes | undefined, field: string): 'numeric' | 'text' | undefined {
  const pinned = types !== undefined && Object.prototype.hasOwnProperty.call(types, field) ? types[field]!.type : undefined;
  if (pinned === undefined) return undefined;
  return pinned === 'number' ? 'numeric' : 'text';
}
