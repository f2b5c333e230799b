/**
 * Builds one immutable catalog version from the products in doc order: columns chosen from the
 * values seen, the full-text index (`full-text/build-full-text.ts`), everything hot on
 * SharedArrayBuffers.
 *
 * The build is a generator ({@link buildCatalogSteps}) that yields every {@link STEP} units of work
 * (docs, dictionary values or postings) so a caller can run it in time slices and let the event loop
 * serve searches in between (see `time-slices.ts`); {@link buildCatalogState} runs it in one go.
 * @module
 */
import type { Product } from '../../types.js';
import { extendShared, growableArray } from '../columns/shared-arrays.js';
import { isDimensionSetting, vectorsSteps, vectorValue } from '../columns/vector-column.js';
import { newRevisions, ProductStore, type StoreColumns } from '../columns/product-store.js';
import { RefIdDocs } from '../columns/refid-docs.js';
import { Dictionary } from '../columns/dictionary.js';
import type { CatalogState, FieldIndex, FieldKind, TextColumn, ValueCounts, VectorColumn } from '../catalog-index.js';
import { IMAGE_VECTOR_FIELD, isNumericField, isPresent, numericValue, RecentKeys, ownValueReader, scalarText, textValues } from '../field-values.js';
import { emptySingleCodes } from '../columns/text-column.js';
import { numericColumnOf } from '../columns/numeric-column.js';
import { buildFullText } from '../full-text/build-full-text.js';
import { runSteps, STEP, type Steps } from '../steps.js';
import { FieldScratch } from './field-scratch.js';

/** Options of {@link buildCatalogState}. */
export interface BuildOptions {
  catalogId: string;
  version: number;
  /** A field given weight 0 here is left out of the full-text index. */
  fieldWeights?: Record<string, number>;
  /**
   * The products' revisions (see product-store.ts), when built from an array and they have some; new
   * ones otherwise. Products given as {@link BuildProducts} bring theirs.
   */
  revisions?: Float64Array;
}

const STEP_MASK = STEP - 1;
/** Docs between two yields of a pass reading each doc's value of a field (a product's, or a store's). */
const READ_MASK = 1023;
/**
 * The products a build reads, in doc order: a plain array ({@link productArray}: loads, rebuilds) or the
 * live products of a version read from its store field by field (a merge: `liveBuildProducts` in
 * tombstones.ts), so that a merge holds no decoded copy of the catalog.
 */
export interface BuildProducts {
  /** Number of products. */
  readonly length: number;
  /** Product `i`'s keys in order (`Object.keys`). Read-only: may be shared between products. */
  keysOf(i: number): readonly string[];
  /** A reader of key `key`'s value per product: the product's own value, undefined when it has none. */
  valuesOf(key: string): (i: number) => unknown;
  /**
   * A reader of key `key`'s numeric value per product, as a numeric column takes it: `numericValue` of
   * a present value (`isPresent`: NaN when it is no number), undefined when it has none.
   */
  numbersOf(key: string): (i: number) => number | undefined;
  /**
   * Key `key`'s text values as the codes of a text column built from the same values (a merge reads
   * those of the version it merges): no value is read or hashed per product, each distinct code is
   * numbered once. Undefined when there is no such column (the values are read: {@link valuesOf}).
   */
  textCodesOf?(key: string): TextCodes | undefined;
  /**
   * Product `i`'s image vector as the column stores it (`dimension` finite numbers, float32 precision
   * enough), or undefined when it gives none of that dimension.
   */
  vectorOf(i: number, dimension: number): ArrayLike<number> | undefined;
  /** The product store of these products over the columns built from them, in steps. */
  storeSteps(columns: StoreColumns): Steps<ProductStore>;
}

/** Per product, its distinct text values of a field in the order given, as codes of `dictionary`. */
export interface TextCodes {
  readonly dictionary: Dictionary;
  /** Number of product `i`'s codes. */
  count(i: number): number;
  /** Product `i`'s code `k` (< `count(i)`). */
  codeAt(i: number, k: number): number;
}

/** The products of an array as a build reads them, with their revisions (new ones when not given). */
export function productArray(products: readonly Product[], revisions?: Float64Array): BuildProducts {
  const vectors = ownValueReader(IMAGE_VECTOR_FIELD);
  // Products of one shape share their keys' array (no array per product, and the field-name pass skips
  // keys it saw).
  const recentKeys = new RecentKeys();
  return {
    length: products.length,
    keysOf: (i) => recentKeys.of(products[i]),
    valuesOf: (key) => {
      const read = ownValueReader(key);
      return (i) => read(products[i]);
    },
    numbersOf: (key) => {
      const read = ownValueReader(key);
      return (i) => {
        const v = read(products[i]);
        return isPresent(v) ? numericValue(v) : undefined;
      };
    },
    vectorOf: (i, dimension) => vectorValue(vectors(products[i]), dimension),
    storeSteps: (columns) => ProductStore.build(products, revisions ?? newRevisions(products.length), columns),
  };
}

function* fieldNamesOf(products: BuildProducts): Steps<string[]> {
  const seen = new Set<string>();
  let last: readonly string[] | undefined;
  for (let d = 0; d < products.length; d++) {
    const keys = products.keysOf(d);
    // Docs of one shape share their keys (a store's products): seen already.
    if (keys !== last) for (const k of keys) seen.add(k);
    last = keys;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return [...seen];
}

function* buildTextColumn(
  products: BuildProducts, name: string, scratch: FieldScratch,
): Steps<{ column?: TextColumn; dictionary: Dictionary }> {
  const n = products.length;
  const valueOf = products.valuesOf(name);
  if (name === 'refId') {
    // refIds are unique and present: code = doc id, no hashing needed.
    const single = emptySingleCodes(n, n);
    const valueDocs = growableArray(Uint32Array, n);
    const valueOffsets = growableArray(Uint32Array, n + 1);
    // Pushed, not `new Array(n)` filled: an array made a million long starts as a dictionary and, filled,
    // has no room left; the first append's push then copied it whole (50 ms at 1M, and the garbage).
    // Pushed, it keeps the room its last growth gave.
    const refIds: string[] = [];
    for (let d = 0; d < n; d++) {
      single[d] = d; valueDocs[d] = d; valueOffsets[d + 1] = d + 1;
      refIds.push(valueOf(d) as string);
      if ((d & STEP_MASK) === STEP_MASK) yield;
    }
    // Its value table is the catalog's refId → doc map (refid-docs.ts), built here in steps.
    const dictionary = Dictionary.of(refIds);
    yield* dictionary.indexSteps();
    return { column: n === 0 ? undefined : { single, dictSize: n, valueOffsets, valueDocs }, dictionary };
  }
  // Built in the multi-valued layout, kept in it only when some doc has several values.
  const offsets = scratch.offsets();
  const tempCodes = scratch.codeBuilder();
  // The dictionary's own value table numbers the values: it is kept with the version, so no scope or
  // append derives a lookup later.
  const values = Dictionary.empty().writer();
  const codeFor = (v: string): number => values.codeFor(v);
  let codesBefore = 0;
  const coded = products.textCodesOf?.(name);
  // Codes of the column read (a merge's source) → codes numbered here, -1 until first seen: the values
  // are numbered in the order a build from the values would number them.
  const codeOfSource = coded ? new Int32Array(coded.dictionary.size).fill(-1) : undefined;
  // Distinct per doc: a multi-valued field counts a value once per product.
  const pushDistinct = (code: number, from: number): void => {
    for (let i = from; i < tempCodes.length; i++) if (tempCodes.get(i) === code) return;
    tempCodes.push(code);
  };
  for (let d = 0; d < n; d++) {
    const start = tempCodes.length;
    if (coded) {
      for (let k = 0, count = coded.count(d); k < count; k++) {
        const from = coded.codeAt(d, k);
        let code = codeOfSource![from];
        if (code < 0) codeOfSource![from] = code = codeFor(coded.dictionary.at(from));
        if (k === 0) tempCodes.push(code);
        else pushDistinct(code, start);
      }
    } else {
      const raw = valueOf(d);
      // Scalars (the common case) take no array allocation (a number's did, per doc of every numeric
      // field: most of a build's garbage after the products' own); arrays go through textValues.
      if (typeof raw === 'string') tempCodes.push(codeFor(raw));
      else if (raw !== null && raw !== undefined && typeof raw !== 'object') {
        const text = scalarText(raw);
        if (text !== undefined) tempCodes.push(codeFor(text));
      } else if (Array.isArray(raw)) for (const v of textValues(raw)) pushDistinct(codeFor(v), start);
    }
    offsets[d + 1] = tempCodes.length;
    // A value read and numbered costs a few microseconds (a store's value read, a hash probe).
    if ((d & READ_MASK) === READ_MASK) yield;
    // Room in the value table for the next docs' values (as many as the last docs had), made in steps:
    // a growth inside codeFor would rehash every value in one go.
    if ((d & STEP_MASK) === STEP_MASK) {
      yield* values.reserveSteps(Math.max(STEP, tempCodes.length - codesBefore));
      codesBefore = tempCodes.length;
    }
  }
  if (values.size === 0) return { dictionary: Dictionary.empty() };
  // Codes stay in first-seen order: no sort at build time. Lookups by value and text-sort ranks
  // are derived lazily, only for fields a request scopes or sorts on (see text-column-lookups.ts).
  const multi = yield* anyDocWithSeveral(offsets);
  // A single-valued column keeps one narrow code per doc: the flat codes are only scaffolding then.
  const codes = multi ? growableArray(Uint32Array, tempCodes.length) : scratch.flatCodes(tempCodes.length);
  yield* tempCodes.copyTo(codes);
  const valueOffsets = growableArray(Uint32Array, values.size + 1);
  for (let i = 0; i < codes.length; i++) {
    valueOffsets[codes[i] + 1]++;
    if ((i & STEP_MASK) === STEP_MASK) yield;
  }
  for (let c = 0; c < values.size; c++) {
    valueOffsets[c + 1] += valueOffsets[c];
    if ((c & STEP_MASK) === STEP_MASK) yield;
  }
  const cursor = scratch.cursors(values.size);
  cursor.set(valueOffsets.subarray(0, values.size));
  const valueDocs = growableArray(Uint32Array, codes.length);
  for (let d = 0; d < n; d++) {
    for (let i = offsets[d]; i < offsets[d + 1]; i++) valueDocs[cursor[codes[i]]++] = d;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  const dictSize = values.size;
  const dictionary = values.dictionary();
  // The offsets were built in the build's scratch array: extendShared copies them onto a growable buffer.
  if (multi) return { column: { offsets: extendShared(offsets, n + 1), codes, dictSize, valueOffsets, valueDocs }, dictionary };
  const single = emptySingleCodes(dictSize, n);
  for (let d = 0; d < n; d++) {
    if (offsets[d + 1] > offsets[d]) single[d] = codes[offsets[d]];
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return { column: { single, dictSize, valueOffsets, valueDocs }, dictionary };
}

/** Whether some doc has more than one code (the column then keeps the multi-valued layout). */
function* anyDocWithSeveral(offsets: Uint32Array): Steps<boolean> {
  for (let d = 0; d + 1 < offsets.length; d++) {
    if (offsets[d + 1] - offsets[d] > 1) return true;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return false;
}

/**
 * Per doc the numeric value of field `name` (NaN = none), transient (`scratch`'s array, valid until the
 * next field's): `numericColumnOf` keeps the numbers per code once the text column is built. Undefined
 * when no product has one.
 */
function* numbersPerDoc(products: BuildProducts, name: string, scratch: FieldScratch): Steps<{ numeric?: Float64Array; valueCounts: ValueCounts }> {
  const n = products.length;
  const numberOf = products.numbersOf(name);
  let numeric: Float64Array | undefined;
  let numbers = 0;
  let strays = 0;
  for (let d = 0; d < n; d++) {
    if ((d & READ_MASK) === READ_MASK) yield;
    const x = numberOf(d);
    if (x === undefined) continue;
    if (Number.isNaN(x)) { strays++; continue; }
    numbers++;
    numeric ??= scratch.numbers();
    numeric[d] = x;
  }
  return { numeric, valueCounts: { numbers, strays } };
}

/** The kind a build gives a field from its value counts and whether it has a text column. Pure. */
export function fieldKindOf(counts: ValueCounts, hasText: boolean): FieldKind {
  return isNumericField(counts.numbers, counts.strays) ? 'numeric' : hasText ? 'text' : 'none';
}

/** The image vector column of `products`: the dimension is that of the first non-empty vector value. */
function* buildVectorsSteps(products: BuildProducts): Steps<VectorColumn | undefined> {
  const valueOf = products.valuesOf(IMAGE_VECTOR_FIELD);
  let dimension = 0;
  for (let d = 0; d < products.length && dimension === 0; d++) {
    const v = valueOf(d);
    if (isDimensionSetting(v)) dimension = v.length;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return yield* vectorsSteps(undefined, 0, products.length, dimension, (d) => products.vectorOf(d, dimension));
}

/**
 * Builds a catalog version from products in doc order (refIds already unique), in one go. Pure apart
 * from allocating SharedArrayBuffers.
 */
export function buildCatalogState(products: Product[], options: BuildOptions): CatalogState {
  return runSteps(buildCatalogSteps(products, options));
}

/**
 * {@link buildCatalogState} as steps: yields every {@link STEP} units of work. Nothing is shared with
 * the caller until it returns, so abandoning it midway leaves nothing behind.
 */
export function* buildCatalogSteps(given: Product[] | BuildProducts, options: BuildOptions): Steps<CatalogState> {
  const products = Array.isArray(given) ? productArray(given, options.revisions) : given;
  const names = yield* fieldNamesOf(products);
  const fields: FieldIndex[] = [];
  const dictionaries: Dictionary[] = [];
  const scratch = new FieldScratch(products.length);
  for (const name of names) {
    const { numeric: perDoc, valueCounts } = yield* numbersPerDoc(products, name, scratch);
    const { column, dictionary } = name === IMAGE_VECTOR_FIELD ? { column: undefined, dictionary: Dictionary.empty() } : yield* buildTextColumn(products, name, scratch);
    const numeric = perDoc && (yield* numericColumnOf(perDoc, column, dictionary));
    const kind = fieldKindOf(valueCounts, column !== undefined);
    fields.push({ name, kind, text: column, numeric, valueCounts });
    dictionaries.push(dictionary);
  }
  const { fullText, vocabulary, termMasks } = yield* buildFullText(products.length, fields, dictionaries, options.fieldWeights);
  const refIdField = names.indexOf('refId');
  const docByRefId = new RefIdDocs(refIdField < 0 ? Dictionary.empty() : dictionaries[refIdField], undefined, products.length);
  const vectors = yield* buildVectorsSteps(products);
  const fieldByName = new Map(names.map((name, i) => [name, i]));
  // The products are kept in the columns just built (and dropped by the caller): see product-store.ts.
  const store = yield* products.storeSteps({ fields, fieldByName, dictionaries, vectors });
  return {
    index: { catalogId: options.catalogId, version: options.version, docCount: products.length, fields, fullText },
    store,
    docByRefId,
    fieldByName,
    dictionaries,
    vocabulary,
    termMasks,
    vectors,
  };
}
