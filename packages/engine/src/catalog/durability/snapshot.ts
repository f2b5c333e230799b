/**
 * Catalog snapshots: one flatbuffers file (layout in catalog-snapshot.fbs) holding every built column
 * and index array and the product store's own parts (shapes, shape per doc, side store: see
 * product-store.ts), so a restart neither re-parses the feed, nor re-tokenises, nor parses a product.
 * Format 2 (each product's JSON beside the columns) still loads: its products are parsed once and kept
 * in the columns. Written atomically (temporary file, then rename).
 * @module
 */
import { Builder, ByteBuffer } from 'flatbuffers';
import { AisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { Catalog, type CatalogOptions } from '../catalog.js';
import { charMask, type CatalogState, type FieldIndex, type FieldKind, type FullTextIndex, type DocCodes, type VectorColumn, type PostingSegment, type SingleCodes, type ValueCounts } from '../catalog-index.js';
import { copySingleCodes, foldedInverted, singleCodesType } from '../columns/text-column.js';
import { sharedArray } from '../columns/shared-arrays.js';
import { docMajorLengths, lengthAt } from '../full-text/field-lengths.js';
import { flatPostingsSteps } from '../full-text/posting-tail.js';
import { RefIdDocs } from '../columns/refid-docs.js';
import { Dictionary } from '../columns/dictionary.js';
import { NormKeyBuilder, postKeysArray, type NormKeyTable, type PostKeys } from '../full-text/norm-keys.js';
import { vectorsFromDocRows } from '../columns/vector-column.js';
import { lengthNorm, storedFieldLength } from '../full-text/length-norms.js';
import { runSteps, type Steps } from '../steps.js';
import { runInSlices } from '../build/time-slices.js';
import { applyDeletes } from '../changes/tombstones.js';
import { newRevisions, ProductStore, type ShapeRecord } from '../columns/product-store.js';
import { ensureNumericOrdersSteps } from '../columns/text-column-lookups.js';
import { numericColumnOf, numericPerDocSteps } from '../columns/numeric-column.js';
import type { StepTimer } from '../../util/step-timer.js';
import { writeFileDurably, type DurableWriteOptions } from '../../util/durable-file.js';
import { byteVectorSteps, jsonStringArraySteps, sizedBuilder, utf8StringSteps, Utf8Chunks, vectorRoom } from './flat-vectors.js';
import { readSnapshotFile } from './snapshot-file.js';
import { buildCatalogState } from '../build/build-catalog-state.js';
import { analysedAlike, TEXT_ANALYSIS_VERSION } from '../full-text/tokenizer.js';
import { derivedHierarchies, hierarchyFromParts, hierarchyParts, keepHierarchy, type HierarchyParts, type HierarchyTree } from '../columns/hierarchy-column.js';
import type { HierarchySetting } from '../../contract/settings-schema.js';

const FILE_IDENTIFIER = 'AISL';
/**
 * 7: field lengths keep spare slots per doc (`ft.fieldLengths` holds `fullText.lengthStride` slots a
 * doc, the meta's; see field-lengths.ts), so a loaded catalog takes a new full-text field in place.
 * 6 (still read; its lengths have one slot per full-text field): the hierarchies derived on the version (`settings.hierarchies`: node values and settings in the
 * meta's `hierarchies`, node columns as `h<i>.*`), so a restart reads them instead of deriving them.
 * 5 (still read; its hierarchies are derived again): postings keep each entry's norm key (`ft.postKey`,
 * 16-bit while the keys fit; the keys' triples in `ft.keyFields`, `ft.keyTfs`, `ft.keyLengths`: norm-keys.ts) instead of its field and
 * normalised value (`ft.postFields`, `ft.postNorm` float32), field lengths are laid out doc by doc (`d * fields + f`), and image
 * vectors are kept for the docs having one (`vec.data` rows, `vec.rowOf` per doc) instead of a row per
 * doc and `vec.present`.
 * 4 (still read): the product store's own parts (shapes, shape per doc, side store) instead of each product's JSON,
 * so a load parses no product (files written with `ps.revisions` load too: the array is not read, a
 * loaded catalog's products get new revisions).
 * 3 (still read): single-valued text columns hold only their narrow `single` codes, field lengths are
 * 16-bit; each product as JSON.
 * 2 (still read): every text column had `offsets` and `codes`, `single` was 32-bit when present and
 * field lengths 32-bit; converted to the current layout on load.
 */
const FORMAT_VERSION = 7;
const READABLE_VERSIONS: readonly number[] = [2, 3, 4, 5, 6, FORMAT_VERSION];
/** The last format keeping normalised postings, field lengths field by field and a vector row per doc. */
const LAST_NORM_POSTINGS_FORMAT = 4;
/** The last format keeping each product's JSON (loading parses every product). */
const LAST_JSON_PRODUCTS_FORMAT = 3;

type AnyTypedArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
// Append only: a type's position is its code in the file.
const ELEMENT_TYPES = [undefined, Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array, Float64Array, Int8Array, Int16Array] as const;

function elementType(a: AnyTypedArray): number {
  const i = ELEMENT_TYPES.findIndex((c) => c !== undefined && a instanceof c);
  if (i < 1) throw new Error('unsupported array type');
  return i;
}

interface SnapshotMeta {
  docCount: number;
  fields: { name: string; kind: FieldKind; dictSize?: number; hasText: boolean; hasNumeric: boolean; valueCounts?: ValueCounts }[];
  dictionaries: (readonly string[])[];
  vocabulary: string[];
  /** `lengthStride` (format 7): slots per doc of `ft.fieldLengths`; absent, one per full-text field. */
  fullText: { fieldIds: number[]; termCount: number; avgFieldLengths: number[]; lengthStride?: number };
  vectorDimension: number;
  /** Tombstoned docs (see tombstones.ts), ascending; absent when none. */
  deleted?: number[];
  /** Format 4: the product store's shapes (its arrays are named `ps.*`). */
  productShapes?: ShapeRecord[];
  /** Format 6: the hierarchies derived on the version, their node columns named `h<i>.*` (see {@link HierarchyParts}). */
  hierarchies?: { setting: HierarchySetting; values: readonly string[] }[];
  /**
   * The change log's mark for the changes this snapshot holds (a data directory's log: the first
   * segment it does not hold; see `change-log.ts`), given back at load so a restart replays only the
   * changes after it. Absent in snapshots written before it existed or outside a change log.
   */
  logMark?: number;
  /**
   * The text analysis the vocabulary and postings were made with (`TEXT_ANALYSIS_VERSION`, tokenizer.ts);
   * absent in snapshots written before it was recorded: 1. A load under another one analyses the
   * products again (see {@link decodeCatalogSnapshot}).
   */
  textAnalysis?: number;
}

/** The arrays of a {@link HierarchyParts}, by their name in the file after `h<i>.`. */
const HIERARCHY_ARRAYS = ['offsets', 'codes', 'valueOffsets', 'valueDocs', 'deepest', 'parent'] as const;

/** What a snapshot's meta holds besides its long string arrays, which {@link metaJsonSteps} writes in pieces. */
type MetaHead = Omit<SnapshotMeta, 'dictionaries' | 'vocabulary'>;

/**
 * `JSON.stringify(meta)` as UTF-8 (to write with `utf8StringSteps`), in steps: at a million products
 * the dictionaries and the vocabulary hold millions of strings (one `JSON.stringify` of them all, and
 * the collection of its garbage, took one step of 300 ms), stringified a small piece at a time, each
 * read from its dictionary (no copy of a million values) and encoded at once (decision 0087). Keys in
 * another order than `JSON.stringify`'s: the reader parses the whole.
 */
function* metaJsonSteps(head: MetaHead, vocabulary: readonly string[], dictionaries: readonly Dictionary[]): Steps<Utf8Chunks> {
  const text = new Utf8Chunks();
  const json = JSON.stringify(head);
  text.add(json.slice(0, -1));
  text.add(',"vocabulary":');
  yield* jsonStringArraySteps(text, vocabulary.length, (i) => vocabulary[i]);
  text.add(',"dictionaries":[');
  for (const [i, dictionary] of dictionaries.entries()) {
    if (i > 0) text.add(',');
    yield* jsonStringArraySteps(text, dictionary.size, (code) => dictionary.at(code));
  }
  text.add(']}');
  return text;
}

/** The arrays a snapshot writes, by name; in steps (a field's per-doc numbers and folded inverted column are passes over its docs). */
function* arraysOfSteps(state: CatalogState, postings: PostingSegment, hierarchies: readonly HierarchyParts[]): Steps<Map<string, AnyTypedArray>> {
  const arrays = new Map<string, AnyTypedArray>();
  hierarchies.forEach((h, i) => { for (const name of HIERARCHY_ARRAYS) arrays.set(`h${i}.${name}`, h[name]); });
  for (const [i, f] of state.index.fields.entries()) {
    yield;
    if (f.text) {
      const t = f.text;
      if (t.single) arrays.set(`f${i}.single`, t.single);
      else arrays.set(`f${i}.offsets`, t.offsets).set(`f${i}.codes`, t.codes);
      // The inverted column as a one-go build lays it out (appended docs folded in): the format is unchanged.
      const inverted = foldedInverted(t);
      arrays.set(`f${i}.valueOffsets`, inverted.valueOffsets).set(`f${i}.valueDocs`, inverted.valueDocs);
      if (t.sortRank) arrays.set(`f${i}.sortRank`, t.sortRank);
    }
    // Stored per doc, as format 5 always did: the loader reads the numbers through the codes again.
    if (f.numeric) arrays.set(`f${i}.numeric`, yield* numericPerDocSteps(f, state.index.docCount));
    if (f.order) arrays.set(`f${i}.order`, f.order);
  }
  const ft = state.index.fullText;
  // An appended version's tail is stored merged into the main postings, as a one-go build lays them out.
  arrays.set('ft.termOffsets', postings.termOffsets).set('ft.postDocs', postings.postDocs)
    .set('ft.postKey', postings.postKey).set('ft.termDocFreq', ft.termDocFreq)
    .set('ft.keyFields', ft.normKeys.keyFields).set('ft.keyTfs', ft.normKeys.keyTfs).set('ft.keyLengths', ft.normKeys.keyLengths)
    .set('ft.fieldLengths', ft.fieldLengths.subarray(0, ft.lengthStride * state.index.docCount));
  if (state.vectors) arrays.set('vec.data', state.vectors.data).set('vec.rowOf', state.vectors.rowOf);
  if (state.index.ordinal) arrays.set('ordinal', state.index.ordinal);
  const store = state.store.parts();
  arrays.set('ps.shapeOf', store.shapeOf).set('ps.rawDocs', store.rawDocs)
    .set('ps.rawOffsets', store.rawOffsets).set('ps.rawBytes', store.rawBytes);
  return arrays;
}

/** Encodes a catalog version as snapshot bytes. */
export function encodeCatalogSnapshot(state: CatalogState, logMark?: number): Uint8Array {
  return runSteps(encodeCatalogSnapshotSteps(state, logMark));
}

/**
 * The encoding as steps (see `runInSlices`), so that writing the snapshot of a large catalog does not
 * hold the event loop for the whole encoding: it pauses after each array. Exported for the bench that
 * times each step (packages/bench/src/ab/snapshot-steps-ab.ts).
 */
export function* encodeCatalogSnapshotSteps(state: CatalogState, logMark?: number): Steps<Uint8Array> {
  const { index } = state;
  // Every numeric order is written (derived now, in steps, when no search has needed it yet): after a
  // restart, the first browse or range search does not sort a whole column in its request.
  yield* ensureNumericOrdersSteps(state);
  // The hierarchies searches derived or the engine derived before serving (one go at most once per version).
  const hierarchies = derivedHierarchies(state).map(({ setting, tree }) => ({ setting, parts: hierarchyParts(tree) }));
  const head: MetaHead = {
    docCount: index.docCount,
    fields: index.fields.map((f) => ({ name: f.name, kind: f.kind, dictSize: f.text?.dictSize, hasText: !!f.text, hasNumeric: !!f.numeric, valueCounts: f.valueCounts })),
    fullText: {
      fieldIds: index.fullText.fieldIds, termCount: index.fullText.termCount, avgFieldLengths: index.fullText.avgFieldLengths,
      lengthStride: index.fullText.lengthStride,
    },
    vectorDimension: state.vectors?.dimension ?? 0,
    deleted: index.deletedDocs && Array.from(index.deletedDocs),
    productShapes: state.store.parts().shapes,
    hierarchies: hierarchies.map(({ setting, parts }) => ({ setting, values: parts.values })),
    logMark,
    textAnalysis: TEXT_ANALYSIS_VERSION,
  };
  const postings = yield* flatPostingsSteps(index.fullText);
  const arrays = yield* arraysOfSteps(state, postings, hierarchies.map((h) => h.parts));
  const metaJson = yield* metaJsonSteps(head, state.vocabulary, state.dictionaries);
  // Sized for the whole file, so that it never grows (a copy of all written so far, in one step) and
  // each array is copied in steps (flat-vectors.ts). Tables, their vtables and the root: 64 bytes each.
  let size = vectorRoom(metaJson.byteLength) + 1024;
  for (const [name, array] of arrays) size += vectorRoom(array.byteLength) + vectorRoom(Buffer.byteLength(name, 'utf8')) + 64;
  const b = sizedBuilder(size);
  const namedArrays: number[] = [];
  for (const [name, array] of arrays) {
    const nameOffset = b.createString(name);
    const bytes = yield* byteVectorSteps(b, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    b.startObject(3);
    b.addFieldOffset(0, nameOffset, 0);
    b.addFieldInt8(1, elementType(array), 0);
    b.addFieldOffset(2, bytes, 0);
    namedArrays.push(b.endObject());
    yield;
  }
  const arraysVector = offsetVector(b, namedArrays);
  const metaOffset = yield* utf8StringSteps(b, metaJson);
  // Slot 2 (each product's JSON, format 2) is left out: the product store's parts are arrays.
  b.startObject(4);
  b.addFieldInt32(0, FORMAT_VERSION, 0);
  b.addFieldOffset(1, metaOffset, 0);
  b.addFieldOffset(3, arraysVector, 0);
  b.finishSizePrefixed(b.endObject(), FILE_IDENTIFIER);
  return b.asUint8Array();
}

function offsetVector(b: Builder, offsets: number[]): number {
  b.startVector(4, offsets.length, 4);
  for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i]);
  return b.endVector();
}

/** {@link encodeCatalogSnapshot} in time slices (a big catalog's encoding never blocks the event loop for long). */
export function encodeCatalogSnapshotInSlices(state: CatalogState, logMark?: number): Promise<Uint8Array> {
  return runInSlices(encodeCatalogSnapshotSteps(state, logMark));
}

/**
 * Writes the catalog's current version (taken when called) to `filePath` atomically and durably
 * (util/durable-file.ts): a crash leaves either the previous snapshot or this one, never a half-written
 * file, and once this resolves the change log it covers may be deleted. `keepPreviousAs`: where the
 * snapshot it replaces is kept (see `snapshot-generations.ts`).
 */
export async function saveCatalogSnapshot(catalog: Catalog, filePath: string, options: DurableWriteOptions = {}): Promise<void> {
  await writeFileDurably(filePath, await runInSlices(encodeCatalogSnapshotSteps(catalog.state)), options);
}

function invalid(filePath: string, problem: string, cause?: unknown): never {
  throw new AisleError('SNAPSHOT_INVALID', `snapshot ${filePath}: ${problem}`, { cause, details: { filePath } });
}

type Need = <T extends AnyTypedArray>(name: string, ctor: new (...args: never[]) => T, length?: number) => T;

/**
 * The field lengths of a snapshot of format `version`, doc by doc, `stride` slots a doc (formats up to
 * 6: one per field). Formats up to 4 stored them field by field; format 2 also in 32 bits (saturated to
 * 16 here).
 */
function fieldLengthsOf(version: number, need: Need, fields: number, stride: number, docCount: number): Uint16Array {
  if (version > LAST_NORM_POSTINGS_FORMAT) return need('ft.fieldLengths', Uint16Array, stride * docCount);
  const length = fields * docCount;
  let rows: Uint16Array;
  if (version === 2) {
    const wide = need('ft.fieldLengths', Uint32Array, length);
    rows = new Uint16Array(length);
    for (let i = 0; i < length; i++) rows[i] = storedFieldLength(wide[i]);
  } else rows = need('ft.fieldLengths', Uint16Array, length);
  return docMajorLengths(rows, fields, docCount);
}

/**
 * The norm keys of a snapshot of format `version` and their table. Formats up to 4 stored
 * `tf / lengthNorm` as float32, normalised with the means they kept (`avgFieldLengths`): the term
 * frequency (an integer below 65,536) is recovered exactly from it, the length read from the doc's.
 */
function postingKeysOf(
  version: number, need: Need, wideKeys: boolean, postDocs: Uint32Array, fieldLengths: Uint16Array, lengthStride: number, avgFieldLengths: readonly number[],
): { postKey: PostKeys; normKeys: NormKeyTable } {
  const fields = avgFieldLengths.length;
  if (version > LAST_NORM_POSTINGS_FORMAT) {
    const keyFields = need('ft.keyFields', Uint8Array);
    const normKeys = { keyFields, keyTfs: need('ft.keyTfs', Uint16Array, keyFields.length), keyLengths: need('ft.keyLengths', Uint16Array, keyFields.length) };
    // 16-bit while the keys fit in them, else 32-bit (postKeysArray).
    const keys: PostKeys = wideKeys ? need('ft.postKey', Uint32Array, postDocs.length) : need('ft.postKey', Uint16Array, postDocs.length);
    if (keyFields.some((f) => f >= fields) || keys.some((k) => k >= keyFields.length)) throw new Error('norm keys out of range');
    return { postKey: keys, normKeys };
  }
  const postNorm = need('ft.postNorm', Float32Array, postDocs.length);
  const postFields = need('ft.postFields', Uint8Array, postDocs.length);
  const builder = new NormKeyBuilder();
  const keys: number[] = new Array<number>(postDocs.length);
  for (let i = 0; i < postDocs.length; i++) {
    const f = postFields[i];
    const length = lengthAt(fieldLengths, lengthStride, f, postDocs[i]);
    keys[i] = builder.keyOf(f, Math.round(postNorm[i] * lengthNorm(length, avgFieldLengths[f])), length);
  }
  const postKey = postKeysArray(keys.length, builder.count);
  postKey.set(keys);
  return { postKey, normKeys: builder.table() };
}

/** The image vectors of a snapshot of format `version` (up to 4: a row per doc and a presence byte). */
function vectorsOf(version: number, need: Need, dimension: number, docCount: number): VectorColumn {
  if (version <= LAST_NORM_POSTINGS_FORMAT) {
    return vectorsFromDocRows(dimension, need('vec.data', Float32Array, docCount * dimension), need('vec.present', Uint8Array, docCount));
  }
  const data = need('vec.data', Float32Array);
  const rowOf = need('vec.rowOf', Int32Array, docCount);
  const rows = data.length / dimension;
  if (!Number.isInteger(rows) || rowOf.some((row) => row < -1 || row >= rows)) throw new Error('vector rows out of range');
  return { dimension, data, rowOf };
}

/** A decoded snapshot: its state (made for a catalog id) and the change log's mark it was written with. */
export interface DecodedSnapshot {
  makeState: (catalogId: string) => CatalogState;
  /**
   * The state as stored, never analysed again: for a reader that needs only its products (a replica
   * reloading a pruned log replays them as a replace, whose build analyses them anew in steps). Under
   * another text analysis `makeState` builds the whole index at once — seconds at 1M on the loop — only
   * for the products to be taken out of it.
   */
  makeStoredState: (catalogId: string) => CatalogState;
  /** See {@link SnapshotMeta.logMark}; undefined when the snapshot has none. */
  logMark?: number;
}

/**
 * Reads the snapshot bytes back into a catalog state builder; `timer` (optional) records the time of
 * each step.
 */
export function decodeCatalogSnapshot(bytes: Uint8Array, label = '(bytes)', timer?: StepTimer): DecodedSnapshot {
  if (bytes.length < 12) invalid(label, 'is too short to be a snapshot');
  const sizePrefix = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (sizePrefix + 4 !== bytes.length) invalid(label, `is truncated or has trailing bytes (expected ${sizePrefix + 4} bytes, found ${bytes.length})`);
  const bb = new ByteBuffer(bytes);
  bb.setPosition(4);
  if (!bb.__has_identifier(FILE_IDENTIFIER)) invalid(label, 'is not an aisle catalog snapshot');
  try {
    const root = bb.readInt32(bb.position()) + bb.position();
    const field = (table: number, slot: number): number => bb.__offset(table, 4 + 2 * slot);
    const version = field(root, 0) ? bb.readUint32(root + field(root, 0)) : 0;
    if (!READABLE_VERSIONS.includes(version)) invalid(label, `has format version ${version}, expected ${READABLE_VERSIONS.join(' or ')}`);
    const meta = JSON.parse(bb.__string(root + field(root, 1)) as string) as SnapshotMeta;
    timer?.lap('meta');
    let products: Product[] | undefined;
    if (version <= LAST_JSON_PRODUCTS_FORMAT) {
      const productsAt = root + field(root, 2);
      const productsStart = bb.__vector(productsAt);
      const productCount = bb.__vector_len(productsAt);
      if (productCount !== meta.docCount) invalid(label, 'has a product count that does not match its index');
      products = new Array<Product>(productCount);
      for (let i = 0; i < productCount; i++) products[i] = JSON.parse(bb.__string(productsStart + 4 * i) as string) as Product;
      timer?.lap('products');
    }
    const arraysAt = root + field(root, 3);
    const arraysStart = bb.__vector(arraysAt);
    const arrays = new Map<string, AnyTypedArray>();
    for (let i = 0, n = bb.__vector_len(arraysAt); i < n; i++) {
      const table = bb.__indirect(arraysStart + 4 * i);
      const name = bb.__string(table + field(table, 0)) as string;
      const ctor = ELEMENT_TYPES[bb.readUint8(table + field(table, 1))];
      const dataAt = table + field(table, 2);
      const start = bb.__vector(dataAt);
      const length = bb.__vector_len(dataAt);
      if (!ctor || length % ctor.BYTES_PER_ELEMENT !== 0 || start + length > bytes.length) invalid(label, `has a malformed array ${name}`);
      // Copied onto a SharedArrayBuffer (aligned, shareable with the search workers).
      const shared = new SharedArrayBuffer(Math.max(1, length));
      new Uint8Array(shared, 0, length).set(bytes.subarray(start, start + length));
      const View = ctor as unknown as new (buffer: ArrayBufferLike, offset: number, length: number) => AnyTypedArray;
      arrays.set(name, new View(shared, 0, length / ctor.BYTES_PER_ELEMENT));
    }
    timer?.lap('arrays');
    const need: Need = <T extends AnyTypedArray>(name: string, ctor: new (...args: never[]) => T, length?: number): T => {
      const a = arrays.get(name);
      if (!(a instanceof ctor) || (length !== undefined && a.length !== length)) invalid(label, `lacks a valid array ${name}`);
      return a;
    };
    const n = meta.docCount;
    // A doc's codes: `single` (as wide as the dictionary needs) or offsets/codes. Format 2 kept both
    // for single-valued columns, `single` in 32 bits: narrowed here.
    const codesOf = (i: number, dictSize: number): DocCodes => {
      const single = arrays.get(`f${i}.single`);
      if (!single) return { offsets: need(`f${i}.offsets`, Uint32Array, n + 1), codes: need(`f${i}.codes`, Uint32Array) };
      if (version === 2) return { single: copySingleCodes(need(`f${i}.single`, Int32Array, n), dictSize, n) };
      const Width = singleCodesType(dictSize);
      return { single: need(`f${i}.single`, Width as new (...args: never[]) => SingleCodes, n) };
    };
    const fields: FieldIndex[] = meta.fields.map((f, i) => ({
      name: f.name,
      kind: f.kind,
      // Absent in snapshots written before the counts existed: appends then rebuild (see FieldIndex).
      valueCounts: f.valueCounts,
      // Per doc in the file; kept per code (numeric-column.ts) once the dictionaries are read, below.
      numeric: undefined,
      order: arrays.has(`f${i}.order`) ? need(`f${i}.order`, Uint32Array) : undefined,
      text: f.hasText ? {
        ...codesOf(i, f.dictSize!), dictSize: f.dictSize!,
        valueOffsets: need(`f${i}.valueOffsets`, Uint32Array, f.dictSize! + 1), valueDocs: need(`f${i}.valueDocs`, Uint32Array),
        sortRank: arrays.has(`f${i}.sortRank`) ? need(`f${i}.sortRank`, Uint32Array, f.dictSize!) : undefined,
      } : undefined,
    }));
    const ft = meta.fullText;
    if (ft.avgFieldLengths.length !== ft.fieldIds.length) invalid(label, 'has an inconsistent index');
    const postDocs = need('ft.postDocs', Uint32Array);
    // Spare slots are written as they are (zero): a new field takes one after the load as before it.
    const lengthStride = ft.lengthStride ?? ft.fieldIds.length;
    if (!Number.isInteger(lengthStride) || lengthStride < ft.fieldIds.length) invalid(label, 'has an inconsistent index');
    const fieldLengths = fieldLengthsOf(version, need, ft.fieldIds.length, lengthStride, n);
    const fullText: FullTextIndex = {
      fieldIds: ft.fieldIds, termCount: ft.termCount, avgFieldLengths: ft.avgFieldLengths,
      termOffsets: need('ft.termOffsets', Uint32Array, ft.termCount + 1), postDocs,
      ...postingKeysOf(version, need, arrays.get('ft.postKey') instanceof Uint32Array, postDocs, fieldLengths, lengthStride, ft.avgFieldLengths),
      termDocFreq: need('ft.termDocFreq', Uint32Array, ft.termCount), fieldLengths, lengthStride,
    };
    if (meta.vocabulary.length !== ft.termCount || meta.dictionaries.length !== fields.length) invalid(label, 'has an inconsistent index');
    if (meta.deleted?.some((d, i) => !Number.isInteger(d) || d < 0 || d >= n || (i > 0 && d <= meta.deleted![i - 1]))) invalid(label, 'has invalid tombstones');
    const vectors = meta.vectorDimension > 0 ? vectorsOf(version, need, meta.vectorDimension, n) : undefined;
    const termMasks = Uint32Array.from(meta.vocabulary, charMask);
    const fieldByName = new Map(fields.map((f, i) => [f.name, i]));
    // Looked up by value (all but refId's, see buildTextColumn); their value tables are built on first use
    // or in the background (Catalog.completeInBackground), off the path of the first searches.
    meta.fields.forEach((f, i) => {
      if (!f.hasNumeric) return;
      const values = meta.dictionaries[i];
      fields[i].numeric = runSteps(numericColumnOf(need(`f${i}.numeric`, Float64Array, n), fields[i].text, { at: (c) => values[c] }));
      arrays.delete(`f${i}.numeric`); // the per-doc copy is not kept
    });
    timer?.lap('numbers');
    const dictionaries = meta.dictionaries.map((values) => Dictionary.of(values));
    const columns = { fields, fieldByName, dictionaries, vectors };
    let store: ProductStore;
    if (products) {
      // Formats 2 and 3: the products are parsed once and kept in the loaded columns, with fresh revisions.
      store = runSteps(ProductStore.build(products, newRevisions(n), columns));
    } else {
      if (!meta.productShapes) invalid(label, 'lacks its product shapes');
      try {
        store = ProductStore.fromParts({
          shapes: meta.productShapes, shapeOf: need('ps.shapeOf', Uint16Array, n),
          rawDocs: need('ps.rawDocs', Uint32Array), rawOffsets: need('ps.rawOffsets', Float64Array), rawBytes: need('ps.rawBytes', Uint8Array),
        }, columns);
      } catch (err) {
        if (err instanceof AisleError) throw err;
        return invalid(label, 'has an inconsistent product store', err);
      }
    }
    timer?.lap('store');
    // Its table is built on first use or in the background (Catalog.completeInBackground): plain searches never read it.
    const docByRefId = new RefIdDocs(refIdsByDoc(store, fieldByName.get('refId'), dictionaries, fields), undefined, n);
    timer?.lap('lookups');
    // Format 6: the hierarchies as they were derived (checked here, so a damaged one is SNAPSHOT_INVALID).
    const hierarchies: { setting: HierarchySetting; tree: HierarchyTree }[] = (meta.hierarchies ?? []).map(({ setting, values }, i) => {
      const part = <T extends AnyTypedArray>(name: (typeof HIERARCHY_ARRAYS)[number], ctor: new (...args: never[]) => T): T => need(`h${i}.${name}`, ctor);
      return {
        setting,
        tree: hierarchyFromParts({
          values, offsets: part('offsets', Uint32Array), codes: part('codes', Uint32Array), valueOffsets: part('valueOffsets', Uint32Array),
          valueDocs: part('valueDocs', Uint32Array), deepest: part('deepest', Int32Array), parent: part('parent', Int32Array),
        }, n),
      };
    });
    timer?.lap('hierarchies');
    // Words made by another text analysis would not be those a query makes now (a query "air" would
    // not find "Nike™Air", stored as "niketmair"): when a full-text value reads differently now, the
    // products are analysed again, once, at load — a one-go build of the live products, with the same
    // full-text fields; the next snapshot records the current analysis. Doc ids are renumbered without
    // the tombstoned docs; hierarchies are derived again.
    const analysis = meta.textAnalysis ?? 1;
    const reanalyse = analysis !== TEXT_ANALYSIS_VERSION
      && meta.fullText.fieldIds.some((fid) => !(meta.dictionaries[fid] ?? []).every((value) => analysedAlike(value, analysis)));
    const makeStoredState = (catalogId: string): CatalogState => {
      const state: CatalogState = {
        index: { catalogId, version: 1, docCount: n, fields, fullText, ordinal: arrays.has('ordinal') ? need('ordinal', Uint32Array, n) : undefined },
        store, docByRefId, fieldByName, dictionaries, vocabulary: meta.vocabulary, termMasks, vectors,
      };
      // Kept before the tombstones, which carry them to the version they make (derived-carry.ts).
      for (const { setting, tree } of hierarchies) keepHierarchy(state, setting, tree);
      // Tombstones are kept as the doc list; their statistics are derived again from those products.
      const withDeletes = meta.deleted && meta.deleted.length > 0 ? runSteps(applyDeletes(state, meta.deleted, 1)) : state;
      timer?.lap('tombstones');
      return withDeletes;
    };
    const makeState = (catalogId: string): CatalogState => (reanalyse ? reanalysedState(catalogId, store, meta, fields) : makeStoredState(catalogId));
    if (meta.logMark !== undefined && !(Number.isSafeInteger(meta.logMark) && meta.logMark >= 0)) invalid(label, 'has an invalid change log mark');
    return { makeState, makeStoredState, logMark: meta.logMark };
  } catch (err) {
    if (err instanceof AisleError) throw err;
    return invalid(label, 'is corrupt', err);
  }
}

/**
 * A snapshot's live products built again under the current text analysis, as one version: every text
 * field the snapshot left out of the full-text index is left out again (weight 0 at build).
 */
function reanalysedState(catalogId: string, store: ProductStore, meta: SnapshotMeta, fields: readonly FieldIndex[]): CatalogState {
  const deleted = new Set(meta.deleted ?? []);
  const products: Product[] = [];
  for (let d = 0; d < store.length; d++) if (!deleted.has(d)) products.push(store.decode(d));
  const indexed = new Set(meta.fullText.fieldIds);
  const leftOut = fields.filter((f, i) => f.text !== undefined && !indexed.has(i)).map((f) => [f.name, 0] as const);
  return buildCatalogState(products, { catalogId, version: 1, fieldWeights: Object.fromEntries(leftOut) });
}

/**
 * The refIds by doc, what refId → doc reads (refid-docs.ts). Every build path gives the refId column
 * code = doc (see buildTextColumn), so it is the refId dictionary; a file where it is not is read from
 * the products. A later doc of the same refId (a replaced product appended again) wins; its tombstoned
 * predecessor is dropped by applyDeletes.
 */
function refIdsByDoc(store: ProductStore, refIdField: number | undefined, dictionaries: readonly Dictionary[], fields: readonly FieldIndex[]): Dictionary {
  const n = store.length;
  const text = refIdField === undefined ? undefined : fields[refIdField].text;
  const byDoc = text?.dictSize === n && text.single !== undefined && text.single.every((c, d) => c === d);
  return byDoc ? dictionaries[refIdField!] : Dictionary.of(Array.from({ length: n }, (_, d) => store.decode(d).refId));
}

/**
 * Loads a catalog from a snapshot written by {@link saveCatalogSnapshot}. A missing, truncated or
 * foreign file throws `AisleError('SNAPSHOT_INVALID')`. `timer` (optional) records the time of each step.
 */
export async function loadCatalogSnapshot(filePath: string, options: CatalogOptions = {}, timer?: StepTimer): Promise<Catalog> {
  return (await loadCatalogSnapshotMarked(filePath, options, timer)).catalog;
}

/** {@link loadCatalogSnapshot} with the change log's mark the snapshot was written with (undefined: none). */
export async function loadCatalogSnapshotMarked(filePath: string, options: CatalogOptions = {}, timer?: StepTimer): Promise<{ catalog: Catalog; logMark?: number }> {
  const bytes = await readSnapshotFile(filePath);
  timer?.lap('read');
  const decoded = decodeCatalogSnapshot(bytes, filePath, timer);
  return { catalog: Catalog.fromState(options, decoded.makeState), logMark: decoded.logMark };
}
