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
import { countWords } from '../full-text/tokenizer.js';
import { MAX_ID_LENGTH } from '../../contract/limits.js';
import { CLEAN_TEXT_EXPECTED, isStorableText } from '../../contract/formats.js';
import { AVAILABILITY_FIELD, IMAGE_VECTOR_FIELD, numericValue, RecentKeys } from '../field-values.js';
import { isFiniteNumberList } from '../columns/vector-column.js';

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
  // Every product stays addressable by URL (GET/DELETE …/products/{refId}): a longer refId would make
  // a request line past the listener's header limit (431), a product that could never be deleted.
  if (refId.length > MAX_ID_LENGTH && codePoints(refId) > MAX_ID_LENGTH) {
    return `product "${refId.slice(0, 77)}...": refId is longer than ${MAX_ID_LENGTH} characters`;
  }
  // Events name products by refId and refuse such text (a store cannot keep it), and no UTF-8 URL spells an
  // unpaired surrogate: loaded, the product could never be purchased, viewed, clicked, read or deleted by URL.
  if (!isStorableText(refId)) return `refId ${CLEAN_TEXT_EXPECTED} (events and URLs could not name the product)`;
  // The events' ids are not blank either (the purchase wire's "must not be blank").
  if (!/\S/.test(refId)) return 'refId is blank: events could not name the product';
  const problem = reservedFieldProblem(record as Record<string, unknown>) ?? limitProblem(record as Record<string, unknown>);
  return problem === undefined ? undefined : `product "${shortRefId(refId)}": ${problem}`;
}

/** A refId as a message names it: at most 80 characters. */
export function shortRefId(refId: string): string {
  return refId.length > 80 ? `${refId.slice(0, 77)}...` : refId;
}

/**
 * The reserved fields' values the engine reads with a meaning (docs/http-api.md, "PUT …/products"):
 * `availability` an integer (0 out of stock, −1 not tracked, more than 0 in stock; a numeric string
 * such as "3" reads as its number, as every numeric field does) and `image_vector` a list of finite
 * numbers. `null` is no value. Anything else was accepted before and read wrongly without a word: an
 * availability of "out of stock" is no number, so not 0, so in stock — `filterOutOfStock` and an
 * in-stock scope kept the product; a vector with a text component was dropped from visual similarity.
 */
function reservedFieldProblem(product: Record<string, unknown>): string | undefined {
  const availability = product[AVAILABILITY_FIELD];
  if (availability !== undefined && availability !== null && !Number.isInteger(numericValue(availability))) {
    return `field "${AVAILABILITY_FIELD}" must be an integer (0 out of stock, -1 not tracked, more than 0 in stock), not ${JSON.stringify(availability)?.slice(0, 80)}`;
  }
  const vector = product[IMAGE_VECTOR_FIELD];
  if (vector !== undefined && vector !== null && !(isFiniteNumberList(vector) && vector.length > 0)) {
    return `field "${IMAGE_VECTOR_FIELD}" must be a non-empty list of finite numbers`;
  }
  return undefined;
}

/** Characters of `text` as JSON Schema's maxLength counts them (code points). */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

// The walk's entries, shared by every check (it is synchronous and never re-entered): entry e holds a
// value, its depth, its parent entry (-1: the product) and its key or index there; `pending` lists the
// entries still to visit. A replace checks a million products: an object and a path string per field
// visited, and a RegExp and a match per word counted, were garbage whose collection (incremental
// marking driven by allocation) held the loop 100–190 ms at a time at 1M products. Paths are now
// spelled only for the field a problem names. Only strings and objects are entries: a number, boolean
// or null holds no characters and no fields of its own (its key or index is counted by its parent), and
// an entry per vector component boxed each number read from a double array (a heap number per
// component, 11M at 1M products with image vectors), and a closure per product was garbage too.
const entryValues: unknown[] = [];
const entryDepths: number[] = [];
const entryParents: number[] = [];
const entryKeys: (string | number)[] = [];
// A stack kept with its own top: setting a JS array's length to 0 drops its backing store, so each
// product's first push allocated a new one.
const pending: number[] = [];
let pendingTop = 0;
/** Entries of the walk so far. */
let entryCount = 0;
/** The keys of the recent products checked (shared by the next of the same shape). */
const productKeys = new RecentKeys();

/** Makes `value` an entry to visit when it is a string or an object (see above). */
function addEntry(value: unknown, depth: number, parent: number, key: string | number): void {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) return;
  const e = entryCount++;
  entryValues[e] = value;
  entryDepths[e] = depth;
  entryParents[e] = parent;
  entryKeys[e] = key;
  pending[pendingTop++] = e;
}

/**
 * Whether every element of `values` (whose first is a number) is a number: a loop of its own, so its
 * element reads see number arrays only and keep their values unboxed (an image vector's components
 * read where string arrays are read too were a heap number each).
 */
function allNumbers(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== 'number') return false;
  return true;
}

/** The dotted path of entry `e` (`a.b[2].c`; '' for the product itself). */
function pathOf(e: number): string {
  const parts: (string | number)[] = [];
  for (let x = e; entryParents[x] >= 0; x = entryParents[x]) parts.push(entryKeys[x]);
  let path = '';
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i];
    path = typeof part === 'number' ? `${path}[${part}]` : path ? `${path}.${part}` : part;
  }
  return path;
}

/** The first limit `product` exceeds, naming the field as a dotted path, or undefined. */
function limitProblem(product: Record<string, unknown>): string | undefined {
  entryCount = 0;
  pendingTop = 0;
  addEntry(product, 1, -1, '');
  try {
    let fields = 0;
    let chars = 0;
    while (pendingTop > 0) {
      const e = pending[--pendingTop]!;
      const value = entryValues[e];
      const depth = entryDepths[e];
      if (typeof value === 'string') {
        chars += value.length;
        if (chars > MAX_PRODUCT_CHARS) return `field "${pathOf(e)}": the product holds more than ${MAX_PRODUCT_CHARS} characters`;
        // A word is at least one character: a shorter string cannot exceed the limit (no count).
        if (value.length > MAX_WORDS_PER_FIELD && countWords(value, MAX_WORDS_PER_FIELD + 1) > MAX_WORDS_PER_FIELD) {
          return `field "${pathOf(e)}" has more than ${MAX_WORDS_PER_FIELD} words`;
        }
        continue;
      }
      if (typeof value !== 'object' || value === null) continue;
      if (depth > MAX_PRODUCT_DEPTH) return `field "${pathOf(e)}" is nested deeper than ${MAX_PRODUCT_DEPTH} levels`;
      if (Array.isArray(value)) {
        fields += value.length;
        if (fields > MAX_PRODUCT_FIELDS) return `field "${pathOf(e)}": the product has more than ${MAX_PRODUCT_FIELDS} fields and array elements`;
        // Numbers hold no characters nor fields of their own: an array of them (a vector) has no entry.
        if (typeof value[0] === 'number' && allNumbers(value)) continue;
        for (let i = value.length - 1; i >= 0; i--) {
          // Tested here, before the call: a number of a double array passed on would be boxed.
          const element: unknown = value[i];
          if (typeof element === 'string' || (typeof element === 'object' && element !== null)) addEntry(element, depth + 1, e, i);
        }
        continue;
      }
      // A product's keys: an array of a recent product's when they are the same (`RecentKeys`).
      const keys = depth === 1 ? productKeys.of(value) : Object.keys(value);
      fields += keys.length;
      if (fields > MAX_PRODUCT_FIELDS) {
        // At the top level no field is at fault (naming its first key, `refId`, sent feeds hunting there).
        const at = pathOf(e);
        return at === ''
          ? `the product has more than ${MAX_PRODUCT_FIELDS} fields and array elements (${keys.length} keys at its top level)`
          : `field "${at}": the product has more than ${MAX_PRODUCT_FIELDS} fields and array elements`;
      }
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        chars += key.length;
        addEntry((value as Record<string, unknown>)[key], depth + 1, e, key);
      }
    }
    return undefined;
  } finally {
    // The entries hold no product past its check.
    entryValues.fill(undefined, 0, entryCount);
  }
}
