/** fast-check arbitraries of small catalogs and search requests built from their words. */
import fc from 'fast-check';
import type { Product, SearchRequest, SortFieldSpec } from '../../types.js';

export const WORDS = ['Red', 'red', 'Café', 'cafe', 'shirt', 'shirts', 'blue', 'Ångström', 'über', 'phone', 'iphone',
  'smartphone', 'television', 'televisions', 'tv', 'Shoes', 'shoe', 'garden', 'gardening', 'x'];
export const BRANDS = ['Acme', 'acme', 'Zeta', 'Ålpha', 'Beta', 'β'];
export const TAGS = ['new', 'sale', 'eco', 'Eco', ''];

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 3 });
// Present about one time in five: several rare scope keys still combine now and then.
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const priceArb = fc.oneof(
  fc.integer({ min: -5, max: 50 }),
  fc.constantFrom(0, -0, 12.5, 1e300, -1e300, 0.1, -1e21, 2.5e-7),
  fc.constantFrom('12.50', '7', ' 3 ', '1e2'),
);

const productBody = fc.record({
  title: maybe(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '))),
  brand: maybe(fc.oneof(fc.constantFrom(...BRANDS), fc.constant(null))),
  tags: maybe(fc.array(fc.constantFrom(...TAGS), { maxLength: 3 })),
  price: maybe(priceArb),
  rating: maybe(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(null))),
  color: maybe(fc.oneof(fc.constantFrom('Red', 'blue', 'Blue', 'grün'), fc.integer({ min: 1, max: 3 }))),
  stock: maybe(fc.constantFrom('1', '2', '10', '-1')),
  // Numbers in some docs, text in others, and arrays: a one-element array of a number's text has no
  // number though its code reads as one; several values make the column multi-valued.
  size: rarely(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom<unknown>('42', 'XL', 2.25, -1e21, ' 3 ', ['7'], ['3'], [1, 2], true))),
});

/** Catalogs of 0..n products with unique refIds and optional fields. */
export function catalogArb(maxProducts = 100): fc.Arbitrary<Product[]> {
  // Small catalogs find edge cases; bigger ones (more than 32 products) split into several pool ranges.
  const bodies = fc.oneof(fc.array(productBody, { maxLength: maxProducts }), fc.array(productBody, { minLength: Math.min(40, maxProducts), maxLength: maxProducts }));
  return bodies.map((bodies) => bodies.map((b, i) => {
    const p: Product = { refId: `p${i}` };
    for (const [k, v] of Object.entries(b)) if (v !== undefined) p[k] = v;
    return p;
  }));
}

const typo = (w: string): string => (w.length > 5 ? w.slice(0, 2) + w[3] + w[2] + w.slice(4) : w);

const queryArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('  ', '!!', '-') },
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }).map((w) => w.join(' ')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...WORDS), fc.integer({ min: 1, max: 4 })).map(([w, n]) => w.slice(0, n)) },
  { weight: 1, arbitrary: fc.constantFrom(...WORDS).map(typo) },
  { weight: 1, arbitrary: fc.constant('zzzz') },
);

/** `{exists: true|false}`, on any field. */
export const existsArb = fc.boolean().map((exists) => ({ exists }));

/** `{all, any?, not?}` over `values`. */
function everyArb(values: readonly string[]): fc.Arbitrary<{ all: string[]; any?: string[]; not?: string[] }> {
  return fc.record({ all: fc.subarray([...values], { maxLength: 2 }), any: maybe(fc.subarray([...values], { minLength: 1, maxLength: 2 })), not: maybe(fc.subarray([...values], { maxLength: 1 })) })
    .map(({ all, any, not }) => ({ all, ...(any !== undefined && { any }), ...(not !== undefined && { not }) }));
}

/** The record without its undefined fields (the absent values of fc.record's optional ones). */
function withoutUndefined<V>(record: Record<string, V | undefined>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, V] => entry[1] !== undefined));
}

const scopeArb = fc.record({
  brand: rarely(fc.oneof(fc.subarray(BRANDS), fc.subarray(BRANDS).map((not) => ({ not })), existsArb)),
  // Multi-valued: a list (any), or {all, any?, not?} (every value of all).
  tags: rarely(fc.oneof(fc.subarray(TAGS), everyArb(TAGS))),
  price: rarely(fc.record({ min: maybe(fc.integer({ min: -5, max: 50 })), max: maybe(fc.integer({ min: -5, max: 60 })), not: rarely(fc.array(fc.constantFrom(7, 12.5, 0), { maxLength: 2 })) })
    .map(withoutUndefined)),
  stock: rarely(fc.record({ min: fc.integer({ min: -1, max: 5 }) })),
  color: rarely(fc.subarray(['Red', 'blue', '2'])),
  size: rarely(fc.oneof(fc.record({ min: fc.integer({ min: -3, max: 3 }) }), fc.subarray(['3', '7', 'XL']), existsArb)),
  rating: rarely(existsArb),
  title: rarely(existsArb),
  nope: rarely(fc.oneof(fc.constantFrom(['a'], { min: 1 }, { not: ['a'] }), existsArb)),
}).map(withoutUndefined);

const sortArb: fc.Arbitrary<SortFieldSpec[]> = fc.array(
  fc.tuple(fc.constantFrom('price', 'brand', 'title', 'color', 'rating', 'stock', 'size', 'nope'), fc.constantFrom('asc', 'desc'), fc.constantFrom('number', 'text'))
    .map(([field, order, type]) => ({ [field]: { order, type } }) as SortFieldSpec),
  { maxLength: 3 },
);

/** Strictly ascending bounds: integers around the generated prices, now and then a fraction. */
const boundsArb = fc.uniqueArray(fc.oneof(fc.integer({ min: -5, max: 60 }), fc.constantFrom(12.5, 0.1, -0.5)), { minLength: 1, maxLength: 5 })
  .map((bounds) => bounds.sort((a, b) => a - b));

const bucketsArb = fc.record({
  price: maybe(boundsArb), rating: rarely(boundsArb), stock: rarely(boundsArb), size: rarely(boundsArb), nope: rarely(boundsArb), brand: rarely(boundsArb),
}).map(withoutUndefined);

/** Random requests over the generated catalogs' fields. */
export const requestArb: fc.Arbitrary<SearchRequest> = fc.record({
  q: queryArb,
  start: fc.integer({ min: 0, max: 12 }),
  size: fc.integer({ min: 0, max: 12 }),
  scope: maybe(scopeArb),
  aggregations: maybe(fc.subarray(['brand', 'tags', 'color', 'title', 'price', 'size', 'nope'])),
  range_fields: maybe(fc.oneof({ weight: 5, arbitrary: fc.subarray(['price', 'rating', 'stock', 'size', 'nope']) }, { weight: 1, arbitrary: fc.constant(['brand'] as string[]) })),
  sort_fields: maybe(sortArb),
  range_buckets: maybe(bucketsArb),
}).map((r) => {
  const request: SearchRequest = { website_id: 'w', client: 'c', q: r.q, start: r.start, size: r.size };
  if (r.scope) request.scope = r.scope as SearchRequest['scope'];
  if (r.aggregations) request.aggregations = r.aggregations;
  if (r.range_fields) request.range_fields = r.range_fields;
  if (r.sort_fields) request.sort_fields = r.sort_fields;
  if (r.range_buckets) request.range_buckets = r.range_buckets;
  return request;
});

/**
 * Fields no product of {@link catalogArb} has, each present or not: a change giving a product one adds a
 * field to the catalog. Text (words of the other fields), numeric (now and then a stray word), multi-valued,
 * and valueless (null, an empty list or an object: kind none).
 */
export const freshFieldsArb: fc.Arbitrary<Record<string, unknown>> = fc.record({
  fresh_text: maybe(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '))),
  fresh_num: maybe(fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 9 }) }, { weight: 1, arbitrary: fc.constantFrom('4.5', 'n/a') })),
  fresh_list: maybe(fc.array(fc.constantFrom(...TAGS), { maxLength: 2 })),
  fresh_none: rarely(fc.constantFrom<unknown>(null, [], {})),
}).map(withoutUndefined);

/** Random requests over the fields of {@link freshFieldsArb}: scopes, facets, ranges and sorts on them. */
export const freshRequestArb: fc.Arbitrary<SearchRequest> = fc.record({
  q: fc.oneof(fc.constant(''), fc.constantFrom(...WORDS)),
  scope: maybe(fc.oneof(
    fc.record({ fresh_text: fc.subarray(['red', 'Red shirt', 'x', 'tv']) }),
    fc.record({ fresh_num: fc.record({ min: fc.integer({ min: 0, max: 9 }) }) }),
    fc.record({ fresh_list: fc.subarray(TAGS) }),
    fc.record({ fresh_none: fc.constant(['a']) }),
    fc.record({ fresh_num: existsArb }),
  )),
  sort: maybe(fc.tuple(fc.constantFrom('fresh_num', 'fresh_text', 'fresh_list'), fc.constantFrom('asc', 'desc'), fc.constantFrom('number', 'text'))),
}).map((r) => {
  const request: SearchRequest = {
    website_id: 'w', client: 'c', q: r.q, start: 0, size: 20,
    aggregations: ['fresh_text', 'fresh_num', 'fresh_list', 'fresh_none'], range_fields: ['fresh_num'],
  };
  if (r.scope) request.scope = r.scope as SearchRequest['scope'];
  if (r.sort) request.sort_fields = [{ [r.sort[0]]: { order: r.sort[1], type: r.sort[2] } } as SortFieldSpec];
  return request;
});
