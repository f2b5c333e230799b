/**
 * Builds one immutable catalog version from the products in doc order: columns chosen from the
 * values seen, the inverted index for full text, everything hot on SharedArrayBuffers.
 *
 * The build is a generator ({@link buildCatalogSteps}) that yields every {@link STEP} units of work
 * (docs, dictionary values or postings) so a caller can run it in time slices and let the event loop
 * serve searches in between (see `time-slices.ts`); {@link buildCatalogState} runs it in one go.
 * @module
 */
import type { Product } from '../../types.js';
import { lengthAt, newFieldLengths } from '../full-text/field-lengths.js';
import { NormKeyBuilder, postKeysArray } from '../full-text/norm-keys.js';
import { extendShared, growableArray, PagedBuilder, sharedArray } from '../columns/shared-arrays.js';
import { isDimensionSetting, vectorsSteps, vectorValue } from '../columns/vector-column.js';
import { newRevisions, ProductStore, type StoreColumns } from '../columns/product-store.js';
import { StringMap } from '../columns/string-map.js';
import { RefIdDocs } from '../columns/refid-docs.js';
import { Dictionary } from '../columns/dictionary.js';
import { charMask, type CatalogState, type FieldIndex, type FieldKind, type FullTextIndex, type TextColumn, type ValueCounts, type VectorColumn } from '../catalog-index.js';
import { DEFAULT_FIELD_WEIGHTS, IMAGE_VECTOR_FIELD, isNumericField, isPresent, NOT_FULL_TEXT_FIELDS, numericValue, ownValueReader, textValues } from '../field-values.js';
import { tokenize } from '../full-text/tokenizer.js';
import { keepValueWords, type TokenizedField } from '../full-text/value-words.js';
import { codeAt, codeCount, emptySingleCodes } from '../columns/text-column.js';
import { numericColumnOf } from '../columns/numeric-column.js';

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

/** Full-text field numbers are stored in a Uint8Array: fields beyond this many are not full-text indexed. */
export const MAX_FULL_TEXT_FIELDS = 255;
/**
 * Work units (docs, values, postings) between two yields of a build: small enough that a yield point
 * comes every fraction of a millisecond on any loop of the build, so a time-sliced driver can keep
 * its slices short; a yield that does not pause costs ~0.1 µs.
 */
export const STEP = 4096;
const STEP_MASK = STEP - 1;
/**
 * Work units a token (tokenised, or read and written as a posting entry) counts for against
 * {@link STEP}: it costs tens of times a doc's slot in a column pass.
 */
const TOKEN_WORK = 16;
/** Docs between two yields of a pass reading each doc's value of a field (a product's, or a store's). */
const READ_MASK = 1023;
/** A build in steps: yields between units of work, returns its result. */
export type Steps<T> = Generator<void, T, void>;
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
  return {
    length: products.length,
    keysOf: (i) => Object.keys(products[i]),
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

/** BM25 length normalisation (the `b` parameter); `k1` is applied at query time. */
export const BM25_B = 0.75;
/** Term frequencies saturate here (postings store them in 16 bits while building). */
export const MAX_TF = 65535;
/**
 * Field lengths (tokens of a field in a doc) saturate here: `FullTextIndex.fieldLengths` holds them in
 * 16 bits. Longer fields (far beyond any product text; the product limits allow more only in arrays
 * of long values) count as this long for BM25F normalisation and the mean lengths alike.
 */
export const MAX_FIELD_LENGTH = 65535;

/** The length stored for a field of `tokens` tokens (saturated: see {@link MAX_FIELD_LENGTH}). */
export function storedFieldLength(tokens: number): number {
  return tokens < MAX_FIELD_LENGTH ? tokens : MAX_FIELD_LENGTH;
}

/** BM25F's length normalisation of a field `length` tokens long (see {@link postingNorm}). */
export function lengthNorm(length: number, avgLength: number): number {
  return 1 - BM25_B + (BM25_B * length) / avgLength;
}

/**
 * A posting's length-normalised term frequency, `tf / lengthNorm`, rounded to float32 (the precision
 * postings stored it in until snapshot format 5, so scores stay bit-identical to those builds). The one
 * definition searches score with, whatever built the postings (build, append, snapshot).
 */
export function postingNorm(tf: number, length: number, avgLength: number): number {
  return Math.fround(tf / lengthNorm(length, avgLength));
}

/** Tokens and docs having the field, per full-text field number (the inputs of the mean field lengths). */
export interface LengthTotals {
  readonly tokens: readonly number[];
  readonly docs: readonly number[];
}

/**
 * Length totals per full-text field of the first `docCount` docs of `fieldLengths` (see
 * field-lengths.ts), in steps. Sums of integers: exact in any order, so totals kept up to date by
 * appends and deletes give the same means as a pass over a one-go build.
 */
export function* lengthTotalsOf(fieldLengths: Uint16Array, fieldCount: number, docCount: number): Steps<LengthTotals> {
  const tokens = new Array<number>(fieldCount).fill(0);
  const docs = new Array<number>(fieldCount).fill(0);
  for (let d = 0; d < docCount; d++) {
    for (let f = 0; f < fieldCount; f++) {
      const len = lengthAt(fieldLengths, fieldCount, f, d);
      if (len > 0) { tokens[f] += len; docs[f]++; }
    }
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return { tokens, docs };
}

/** Mean field length per full-text field over the docs having it (1 when none has). */
export function meanLengths(totals: LengthTotals): number[] {
  return totals.tokens.map((sum, f) => (totals.docs[f] === 0 ? 1 : sum / totals.docs[f]));
}

// Length totals of every doc of a full-text index (deleted docs included), kept beside it: derived by
// the build and by appends, or by one pass over the lengths on first need (a loaded snapshot).
const lengthTotalsCache = new WeakMap<FullTextIndex, LengthTotals>();

/** Records the length totals of `fullText` (built or appended to: the caller has them). */
export function setLengthTotals(fullText: FullTextIndex, totals: LengthTotals): void {
  lengthTotalsCache.set(fullText, totals);
}

/** The length totals of every doc of `fullText` (`docCount` docs), in steps the first time. */
export function* lengthTotalsSteps(fullText: FullTextIndex, docCount: number): Steps<LengthTotals> {
  let totals = lengthTotalsCache.get(fullText);
  if (!totals) {
    totals = yield* lengthTotalsOf(fullText.fieldLengths, fullText.fieldIds.length, docCount);
    lengthTotalsCache.set(fullText, totals);
  }
  return totals;
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
  products: BuildProducts, name: string,
): Steps<{ column?: TextColumn; dictionary: Dictionary }> {
  const n = products.length;
  const valueOf = products.valuesOf(name);
  if (name === 'refId') {
    // refIds are unique and present: code = doc id, no hashing needed.
    const single = emptySingleCodes(n, n);
    const valueDocs = growableArray(Uint32Array, n);
    const valueOffsets = growableArray(Uint32Array, n + 1);
    const refIds = new Array<string>(n);
    for (let d = 0; d < n; d++) {
      single[d] = d; valueDocs[d] = d; valueOffsets[d + 1] = d + 1;
      refIds[d] = valueOf(d) as string;
      if ((d & STEP_MASK) === STEP_MASK) yield;
    }
    // Its value table is the catalog's refId → doc map (refid-docs.ts), built here in steps.
    const dictionary = Dictionary.of(refIds);
    yield* dictionary.indexSteps();
    return { column: n === 0 ? undefined : { single, dictSize: n, valueOffsets, valueDocs }, dictionary };
  }
  // Built in the multi-valued layout, kept in it only when some doc has several values.
  const offsets = new Uint32Array(n + 1);
  const tempCodes = new PagedBuilder(Uint32Array);
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
      // Scalars (the common case) take no array allocation; arrays go through textValues.
      if (typeof raw === 'string') tempCodes.push(codeFor(raw));
      else if (raw !== null && raw !== undefined && typeof raw !== 'object') {
        const vals = textValues(raw);
        if (vals.length === 1) tempCodes.push(codeFor(vals[0]));
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
  const codes = multi ? growableArray(Uint32Array, tempCodes.length) : new Uint32Array(tempCodes.length);
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
  const cursor = valueOffsets.slice(0, values.size);
  const valueDocs = growableArray(Uint32Array, codes.length);
  for (let d = 0; d < n; d++) {
    for (let i = offsets[d]; i < offsets[d + 1]; i++) valueDocs[cursor[codes[i]]++] = d;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  const dictSize = values.size;
  const dictionary = values.dictionary();
  // The offsets were built in an unshared array of exactly n + 1: extendShared copies them onto a growable buffer.
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
 * Per doc the numeric value of field `name` (NaN = none), transient: `numericColumnOf` keeps the
 * numbers per code once the text column is built. Undefined when no product has one.
 */
function* numbersPerDoc(products: BuildProducts, name: string): Steps<{ numeric?: Float64Array; valueCounts: ValueCounts }> {
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
    if (!numeric) numeric = new Float64Array(n).fill(NaN);
    numeric[d] = x;
  }
  return { numeric, valueCounts: { numbers, strays } };
}

/** The BM25F weight of field `name` given the catalog's weights (defaults otherwise). */
function fieldWeightOf(name: string, fieldWeights: Record<string, number> | undefined): number {
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

/** The kind a build gives a field from its value counts and whether it has a text column. Pure. */
export function fieldKindOf(counts: ValueCounts, hasText: boolean): FieldKind {
  return isNumericField(counts.numbers, counts.strays) ? 'numeric' : hasText ? 'text' : 'none';
}

function* buildFullText(
  products: BuildProducts, fields: FieldIndex[], dictionaries: readonly Dictionary[], fieldWeights: Record<string, number> | undefined,
): Steps<{ fullText: FullTextIndex; vocabulary: string[]; termMasks: Uint32Array }> {
  const n = products.length;
  const fieldIds: number[] = [];
  const weightOf = (f: FieldIndex): number => fieldWeightOf(f.name, fieldWeights);
  fields.forEach((f, i) => {
    if (isFullTextField(f, fieldIds.length, fieldWeights)) fieldIds.push(i);
  });
  // Each distinct value of a field is tokenised once (its dictionary entry), not once per product:
  // low-cardinality fields (brand, category) cost almost nothing. Per field: tokens of code c are
  // tokenIds[tokenOffsets[c] .. tokenOffsets[c+1]).
  const termIds = new StringMap<number>();
  const terms: string[] = [];
  const tokenized: TokenizedField[] = [];
  for (const fid of fieldIds) {
    const dictionary = dictionaries[fid];
    const tokenOffsets = new Uint32Array(dictionary.size + 1);
    const tokenIds = new PagedBuilder(Uint32Array);
    // Yields by tokens, not values: tokenising takes microseconds a value (a million titles), so a
    // step of STEP values held the loop for tens of milliseconds.
    let work = 0;
    for (let c = 0; c < dictionary.size; c++) {
      if (work >= STEP) { work = 0; yield; }
      for (const word of tokenize(dictionary.at(c))) {
        work += TOKEN_WORK;
        let tid = termIds.get(word);
        if (tid === undefined) {
          tid = terms.length;
          terms.push(word);
          termIds.set(word, tid);
        }
        tokenIds.push(tid);
      }
      tokenOffsets[c + 1] = tokenIds.length;
      work++;
    }
    const ids = new Uint32Array(tokenIds.length);
    yield* tokenIds.copyTo(ids);
    tokenized.push({ column: fields[fid].text!, weight: weightOf(fields[fid]), tokenOffsets, tokenIds: ids });
  }
  const fieldLengths = newFieldLengths(fieldIds.length, n);
  const stamp = new Int32Array(terms.length);
  const tf = new Uint32Array(terms.length);
  const eTerm = new PagedBuilder(Uint32Array);
  const eDoc = new PagedBuilder(Uint32Array);
  const eKey = new PagedBuilder(Uint32Array);
  const normKeys = new NormKeyBuilder();
  // The terms of the doc's field being read (a typed array and its count: no array resized per field).
  const touched = new Uint32Array(terms.length);
  let touchedCount = 0;
  let pass = 0;
  // Yields by work (tokens read, entries written), not docs: STEP docs of ~30 tokens each held the
  // loop for 40-70 ms at a million products.
  let docWork = 0;
  // Doc-major, then field: entries of a term come out sorted by doc then field, which scoring relies on.
  for (let d = 0; d < n; d++) {
    if (docWork >= STEP * TOKEN_WORK) { docWork = 0; yield; }
    docWork++;
    for (let f = 0; f < tokenized.length; f++) {
      const { column, tokenOffsets, tokenIds } = tokenized[f];
      const count = codeCount(column, d);
      if (count === 0) continue;
      pass++;
      let length = 0;
      for (let i = 0; i < count; i++) {
        const code = codeAt(column, d, i);
        for (let k = tokenOffsets[code]; k < tokenOffsets[code + 1]; k++) {
          const tid = tokenIds[k];
          length++;
          if (stamp[tid] !== pass) {
            stamp[tid] = pass;
            tf[tid] = 1;
            touched[touchedCount++] = tid;
          } else tf[tid]++;
        }
      }
      const stored = storedFieldLength(length);
      fieldLengths[d * fieldIds.length + f] = stored; // the layout of `lengthAt`
      for (let k = 0; k < touchedCount; k++) {
        const tid = touched[k];
        eTerm.push(tid);
        eDoc.push(d);
        eKey.push(normKeys.keyOf(f, Math.min(MAX_TF, tf[tid]), stored));
      }
      docWork += length + touchedCount * TOKEN_WORK;
      touchedCount = 0;
    }
  }
  const totals = yield* lengthTotalsOf(fieldLengths, fieldIds.length, n);
  const avgFieldLengths = meanLengths(totals);
  // The vocabulary is sorted so a prefix is a contiguous range of term ids (binary search).
  const vocabulary = yield* sortStrings(terms);
  const rank = new Uint32Array(terms.length);
  for (let id = 0; id < vocabulary.length; id++) {
    rank[termIds.get(vocabulary[id])!] = id;
    if ((id & STEP_MASK) === STEP_MASK) yield;
  }
  // Per doc, the words of its values are copied: a doc costs what a token pass does.
  yield* keepValueWords(tokenized, rank, vocabulary, STEP / TOKEN_WORK);
  const termMasks = new Uint32Array(terms.length);
  for (let t = 0; t < terms.length; t++) {
    termMasks[t] = charMask(vocabulary[t]);
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  const entries = eTerm.length;
  const termOffsets = sharedArray(Uint32Array, terms.length + 1);
  for (let i = 0; i < entries; i++) {
    termOffsets[rank[eTerm.get(i)] + 1]++;
    if ((i & STEP_MASK) === STEP_MASK) yield;
  }
  for (let t = 0; t < terms.length; t++) termOffsets[t + 1] += termOffsets[t];
  const cursor = termOffsets.slice(0, terms.length);
  const postDocs = sharedArray(Uint32Array, entries);
  // A norm key, not the normalised value: 2 bytes instead of a float32's 4, and searches normalise with
  // the live means (`normsOf`), which appends and deletes move.
  const postKey = postKeysArray(entries, normKeys.count);
  for (let i = 0; i < entries; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    const at = cursor[rank[eTerm.get(i)]]++;
    postDocs[at] = eDoc.get(i);
    postKey[at] = eKey.get(i);
  }
  const termDocFreq = sharedArray(Uint32Array, terms.length);
  let work = 0;
  for (let t = 0; t < terms.length; t++) {
    let df = 0;
    for (let i = termOffsets[t]; i < termOffsets[t + 1]; i++) if (i === termOffsets[t] || postDocs[i] !== postDocs[i - 1]) df++;
    termDocFreq[t] = df;
    work += 1 + termOffsets[t + 1] - termOffsets[t];
    if (work >= STEP) { work = 0; yield; }
  }
  const fullText: FullTextIndex = { fieldIds, termCount: terms.length, termOffsets, postDocs, postKey, normKeys: normKeys.table(), termDocFreq, fieldLengths, avgFieldLengths };
  setLengthTotals(fullText, totals);
  return { fullText, vocabulary, termMasks };
}

/**
 * The strings sorted in JS order (UTF-16 code units, as `Array.prototype.sort`), in steps: runs of
 * {@link STEP} sorted natively, then merged pairwise (a native sort of a large vocabulary takes
 * hundreds of milliseconds in one go).
 */
export function* sortStrings(values: readonly string[]): Steps<string[]> {
  const n = values.length;
  let a = values.slice();
  for (let lo = 0; lo < n; lo += STEP) {
    const run = a.slice(lo, lo + STEP).sort();
    for (let i = 0; i < run.length; i++) a[lo + i] = run[i];
    yield;
  }
  let b = new Array<string>(n);
  let work = 0;
  for (let width = STEP; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        b[k++] = a[j] < a[i] ? a[j++] : a[i++];
        if (++work === STEP) { work = 0; yield; }
      }
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    [a, b] = [b, a];
  }
  return a;
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

/** Runs steps to the end, synchronously. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
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
  for (const name of names) {
    const { numeric: perDoc, valueCounts } = yield* numbersPerDoc(products, name);
    const { column, dictionary } = name === IMAGE_VECTOR_FIELD ? { column: undefined, dictionary: Dictionary.empty() } : yield* buildTextColumn(products, name);
    const numeric = perDoc && (yield* numericColumnOf(perDoc, column, dictionary));
    const kind = fieldKindOf(valueCounts, column !== undefined);
    fields.push({ name, kind, text: column, numeric, valueCounts });
    dictionaries.push(dictionary);
  }
  const { fullText, vocabulary, termMasks } = yield* buildFullText(products, fields, dictionaries, options.fieldWeights);
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
