/**
 * What one product may hold, declared once. A product beyond a limit is a bad record (400
 * `CATALOG_BAD_INPUT` naming the product and the field; skipped and reported with `onError: 'skip'`):
 * no single product may make indexing, snapshots, the change log or a search response overflow the
 * stack or take unbounded time. The limits are far above what real product feeds hold (a long
 * description has a few thousand words; nested variants a handful of levels). Documented in
 * docs/http-api.md ("Product limits").
 *
 * The check walks the record with an explicit stack (never recursion) and stops at the first problem,
 * so a hostile record costs at most what its limits allow.
 * @module
 */
import { countWords } from './tokenizer.js';

/** Deepest nesting of objects and arrays in a product; the product object itself is level 1. */
export const MAX_PRODUCT_DEPTH = 16;
/** Most fields in one product, counting the keys of nested objects and the elements of arrays. */
export const MAX_PRODUCT_FIELDS = 2_000;
/** Most characters in one product, summed over its keys and string values. */
export const MAX_PRODUCT_CHARS = 2_000_000;
/** Most words (as the tokenizer counts them) in one string value. */
export const MAX_WORDS_PER_FIELD = 20_000;

/** Why a record is not a usable product (naming the field), or undefined when it is one. Pure. */
export function productProblem(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'not a JSON object';
  const refId = (record as { refId?: unknown }).refId;
  if (typeof refId !== 'string' || refId.length === 0) return 'missing or non-string refId';
  const problem = limitProblem(record as Record<string, unknown>);
  return problem === undefined ? undefined : `product "${refId.length > 80 ? `${refId.slice(0, 77)}...` : refId}": ${problem}`;
}

/** The first limit `product` exceeds, naming the field as a dotted path, or undefined. */
function limitProblem(product: Record<string, unknown>): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: product, path: '', depth: 1 }];
  let fields = 0;
  let chars = 0;
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      chars += value.length;
      if (chars > MAX_PRODUCT_CHARS) return `field "${path}": the product holds more than ${MAX_PRODUCT_CHARS} characters`;
      if (countWords(value, MAX_WORDS_PER_FIELD + 1) > MAX_WORDS_PER_FIELD) {
        return `field "${path}" has more than ${MAX_WORDS_PER_FIELD} words`;
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_PRODUCT_DEPTH) return `field "${path}" is nested deeper than ${MAX_PRODUCT_DEPTH} levels`;
    if (Array.isArray(value)) {
      fields += value.length;
      if (fields > MAX_PRODUCT_FIELDS) return `field "${path}": the product has more than ${MAX_PRODUCT_FIELDS} fields and array elements`;
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    fields += keys.length;
    if (fields > MAX_PRODUCT_FIELDS) return `field "${path || keys[0]}": the product has more than ${MAX_PRODUCT_FIELDS} fields and array elements`;
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      chars += key.length;
      stack.push({ value: (value as Record<string, unknown>)[key], path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return undefined;
}
