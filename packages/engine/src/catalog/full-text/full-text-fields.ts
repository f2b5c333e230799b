/**
 * Which fields the full-text index covers and with what BM25F weight: one rule for a build and for a
 * field an append adds.
 * @module
 */
import type { FieldIndex } from '../catalog-index.js';
import { DEFAULT_FIELD_WEIGHTS, NOT_FULL_TEXT_FIELDS } from '../field-values.js';

/** Full-text field numbers are stored in a Uint8Array: fields beyond this many are not full-text indexed. */
export const MAX_FULL_TEXT_FIELDS = 255;

/** The BM25F weight of field `name` given the catalog's weights (defaults otherwise). */
export function fieldWeightOf(name: string, fieldWeights: Record<string, number> | undefined): number {
  return fieldWeights?.[name] ?? DEFAULT_FIELD_WEIGHTS[name] ?? 1;
}

/**
 * Whether `field` gets the next full-text field number, `fullTextFields` being already numbered (fields
 * are numbered in field order): a text field of positive weight, not an identifier, within
 * {@link MAX_FULL_TEXT_FIELDS}. One rule for the build and for a field an append adds. Pure.
 */
export function isFullTextField(field: Pick<FieldIndex, 'name' | 'kind'>, fullTextFields: number, fieldWeights: Record<string, number> | undefined): boolean {
  return field.kind === 'text' && fieldWeightOf(field.name, fieldWeights) > 0 && !NOT_FULL_TEXT_FIELDS.has(field.name) && fullTextFields < MAX_FULL_TEXT_FIELDS;
}

