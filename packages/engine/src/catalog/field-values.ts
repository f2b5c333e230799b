/**
 * How a product's JSON value is read by the columns: its text values (facets, text scope, text sort,
 * full text), its numeric value (ranges, numeric scope, number sort). Pure functions; the catalog builder
 * and the tests' reference implementation both rely on these exact rules.
 * @module
 */

// A decimal number written as text, e.g. "12.50", "-3", ".5", "1e3" (surrounding spaces allowed).
const NUMERIC_STRING = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * The numeric value of a field value: a finite JSON number, or a string that spells one ("12.50");
 * otherwise NaN (missing). Arrays have no numeric value: numeric columns are single-valued.
 */
export function numericValue(value: unknown): number {
  // -0 reads as 0: ranges and sorts then never depend on which zero came first.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : NaN;
  if (typeof value === 'string' && NUMERIC_STRING.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n + 0 : NaN;
  }
  return NaN;
}

/** The text value of a scalar (see {@link textValues}); undefined for anything else. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/**
 * The text values of a field value, as facets and text scopes see them: a string as given, a number
 * as `String(n)`, a boolean as `"true"`/`"false"`; an array gives each of its scalar elements
 * (multi-valued field); null, objects and nested arrays give nothing.
 */
export function textValues(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const item of value) {
      const s = scalarText(item);
      if (s !== undefined) out.push(s);
    }
    return out;
  }
  const s = scalarText(value);
  return s === undefined ? [] : [s];
}

/**
 * Share of a field's present values that may be non-numeric ("N/A", "call us") while the field stays
 * numeric: those few values are missing for ranges, numeric scopes and number sorts (and reported in
 * the load summary), instead of turning the whole field into text and breaking every range filter.
 */
export const MAX_STRAY_NUMERIC_SHARE = 0.01;

/**
 * The field-kind decision: numeric when it has numbers, more numbers than other values, and at most
 * {@link MAX_STRAY_NUMERIC_SHARE} of its present values (at least one) are not numbers. Pure.
 */
export function isNumericField(numbers: number, strays: number): boolean {
  if (numbers === 0 || strays >= numbers) return false;
  return strays <= Math.max(1, Math.floor((numbers + strays) * MAX_STRAY_NUMERIC_SHARE));
}

/** True when a value counts as present for the field-kind decision (not null/undefined/object). */
export function isPresent(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return true;
  return typeof value !== 'object';
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The value `product` gives `key`, undefined when it has none of its own: `product[key]` would read
 * Object.prototype's members (`constructor`, `toString`, …) for a product without such a key, and a
 * build counted them as present values.
 */
export function ownValue(product: Readonly<Record<string, unknown>>, key: string): unknown {
  return hasOwn.call(product, key) ? product[key] : undefined;
}

/**
 * A reader of key `key`'s own value per product ({@link ownValue}), checking ownership only for keys
 * an object inherits (the common keys read as plain properties, at full speed).
 */
export function ownValueReader(key: string): (product: Readonly<Record<string, unknown>>) => unknown {
  return key in Object.prototype ? (product) => ownValue(product, key) : (product) => product[key];
}

/** Key lists a {@link RecentKeys} keeps. */
const RECENT_KEY_LISTS = 8;

/**
 * The keys of products read one after the other: `Object.keys(product)`, or an array of the same keys in
 * the same order handed out before, when one of the last {@link RECENT_KEY_LISTS} is (most recently used
 * first): then nothing is allocated (a `for…in` over an object of a known shape reads its shape's cached
 * key list). A replace reads the keys of a million products several times (the check of its limits, the
 * build's field names, the store's encoding), and an array of keys per product per read was garbage the
 * collector paid for (docs/benchmarks.md, "The full replace at 1M: what it allocates"). Products come in
 * a few shapes, interleaved: the generated catalog has 8, and 71 % of its products have other keys than
 * the one before, so the last list alone (as until 2026-11-30) saved few of those arrays. Inherited
 * enumerable keys make the walk differ (or end on a key not its own), so such objects take
 * `Object.keys`.
 */
export class RecentKeys {
  /** Most recently used first. */
  private readonly lists: (readonly string[])[] = [];

  /** `product`'s own enumerable keys, in order. Read-only: shared with other products of its shape. */
  of(product: object): readonly string[] {
    const lists = this.lists;
    for (let k = 0; k < lists.length; k++) {
      const keys = lists[k]!;
      if (!sameKeys(product, keys)) continue;
      for (let i = k; i > 0; i--) lists[i] = lists[i - 1]!;
      lists[0] = keys;
      return keys;
    }
    const keys = Object.keys(product);
    if (lists.length === RECENT_KEY_LISTS) lists.pop();
    lists.unshift(keys);
    return keys;
  }
}

/** Whether `product`'s own enumerable keys are `keys`, in order, and it inherits none. */
function sameKeys(product: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in product) {
    if (i >= keys.length || keys[i] !== key) return false;
    i++;
  }
  // `for…in` walks the own keys first: when the last one walked is own, every one is.
  return i === keys.length && (i === 0 || Object.hasOwn(product, keys[i - 1]!));
}

/** Field names never indexed for full text: identifiers and links whose words only bloat the vocabulary. */
export const NOT_FULL_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'refId', 'url', 'link', 'image', 'images', 'image_url', 'imageUrl', 'image_vector', 'style_id',
]);

/** The reserved field holding a product's stock: 0 out of stock, -1 not tracked, more than 0 in stock (an integer). */
export const AVAILABILITY_FIELD = 'availability';

/** Whether a product counts as in stock: its `availability` is not 0 (missing, -1 or positive count as in stock). */
export function availableProduct(product: Readonly<Record<string, unknown>>): boolean {
  return numericValue(product[AVAILABILITY_FIELD]) !== 0;
}

/** The reserved field holding a product's image embedding (a vector column, not text). */
export const IMAGE_VECTOR_FIELD = 'image_vector';

/** Default BM25F field weights; every other text field weighs 1. */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<string, number>> = { title: 3, brand: 2, search_category: 1.5 };
