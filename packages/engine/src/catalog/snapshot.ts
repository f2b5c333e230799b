/**
 * Catalog snapshots: one flatbuffers file (layout in catalog-snapshot.fbs) holding the products'
 * stored JSON (the buffer, offsets and key lists of `stored-json.ts`, as they are in memory) plus every
 * built column and index array, so a restart neither parses a product nor re-tokenises: loading
 * copies arrays and parses the small metadata. Written atomically (temporary file, then rename).
 * Format 2 (each product's JSON text) is still read, for snapshots written before format 3.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Builder, ByteBuffer } from 'flatbuffers';
import { AisleError } from '../errors.js';
import type { Product } from '../types.js';
import { Catalog, type CatalogOptions } from './catalog.js';
import { charMask, type CatalogState, type FieldIndex, type FieldKind, type ValueCounts } from './catalog-index.js';
import { ProductStore } from './product-store.js';
import { StoredJson } from './stored-json.js';
import { StringMap } from './string-map.js';
import { REF_ID_FIELD } from './field-values.js';
import { runSteps, type Steps } from './build-catalog-state.js';
import { runInSlices } from './time-slices.js';
import { applyDeletes } from './tombstones.js';

const FILE_IDENTIFIER = 'AISL';
const FORMAT_VERSION = 3;
/** Format versions read: 2 kept each product as a JSON string (parsed and encoded again on load). */
const READABLE_VERSIONS: readonly number[] = [2, FORMAT_VERSION];

type AnyTypedArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
const ELEMENT_TYPES = [undefined, Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array, Float64Array] as const;

function elementType(a: AnyTypedArray): number {
  const i = ELEMENT_TYPES.findIndex((c) => c !== undefined && a instanceof c);
  if (i < 1) throw new Error('unsupported array type');
  return i;
}

interface SnapshotMeta {
  docCount: number;
  fields: { name: string; kind: FieldKind; dictSize?: number; hasText: boolean; hasNumeric: boolean; valueCounts?: ValueCounts }[];
  dictionaries: string[][];
  vocabulary: string[];
  fullText: { fieldIds: number[]; termCount: number; avgFieldLengths: number[] };
  vectorDimension: number;
  /** Tombstoned docs (see tombstones.ts), ascending; absent when none. */
  deleted?: number[];
  /** Format 3: the key lists of the stored JSON (`stored-json.ts`). */
  productShapes?: (readonly string[])[];
}

function arraysOf(state: CatalogState, products: StoredJson): Map<string, AnyTypedArray> {
  const arrays = new Map<string, AnyTypedArray>();
  const { bytes, offsets, shapeOf } = products.parts;
  arrays.set('products.bytes', bytes).set('products.offsets', offsets).set('products.shapeOf', shapeOf);
  state.index.fields.forEach((f, i) => {
    if (f.text) {
      const t = f.text;
      arrays.set(`f${i}.offsets`, t.offsets).set(`f${i}.codes`, t.codes).set(`f${i}.valueOffsets`, t.valueOffsets)
        .set(`f${i}.valueDocs`, t.valueDocs);
      if (t.sortRank) arrays.set(`f${i}.sortRank`, t.sortRank);
      if (t.single) arrays.set(`f${i}.single`, t.single);
    }
    if (f.numeric) arrays.set(`f${i}.numeric`, f.numeric);
    if (f.order) arrays.set(`f${i}.order`, f.order);
  });
  const ft = state.index.fullText;
  arrays.set('ft.termOffsets', ft.termOffsets).set('ft.postDocs', ft.postDocs).set('ft.postFields', ft.postFields)
    .set('ft.postNorm', ft.postNorm).set('ft.termDocFreq', ft.termDocFreq).set('ft.fieldLengths', ft.fieldLengths);
  if (state.vectors) arrays.set('vec.data', state.vectors.data).set('vec.present', state.vectors.present);
  if (state.index.ordinal) arrays.set('ordinal', state.index.ordinal);
  return arrays;
}

/** Encodes a catalog version as snapshot bytes. */
export function encodeCatalogSnapshot(state: CatalogState): Uint8Array {
  return runSteps(encodeCatalogSnapshotSteps(state));
}

/**
 * The encoding as steps (see `runInSlices`), so that writing the snapshot of a large catalog does not
 * hold the event loop for the whole encoding: it pauses after each array (and while re-encoding
 * products changed since the last build).
 */
function* encodeCatalogSnapshotSteps(state: CatalogState): Steps<Uint8Array> {
  const { index } = state;
  // Docs changed by fast paths since the last build are kept as objects: encode them all again.
  const products = state.products.encodedOnly ?? (yield* StoredJson.buildSteps(yield* state.products.decodeAll()));
  const meta: SnapshotMeta = {
    docCount: index.docCount,
    fields: index.fields.map((f) => ({ name: f.name, kind: f.kind, dictSize: f.text?.dictSize, hasText: !!f.text, hasNumeric: !!f.numeric, valueCounts: f.valueCounts })),
    dictionaries: state.dictionaries,
    vocabulary: state.vocabulary,
    fullText: { fieldIds: index.fullText.fieldIds, termCount: index.fullText.termCount, avgFieldLengths: index.fullText.avgFieldLengths },
    vectorDimension: state.vectors?.dimension ?? 0,
    deleted: index.deletedDocs && Array.from(index.deletedDocs),
    productShapes: products.parts.shapes.map((s) => s.slice()),
  };
  const arrays = arraysOf(state, products);
  const metaText = JSON.stringify(meta);
  // Sized up front: the Builder grows by doubling and copying everything written so far.
  let size = 1024 + 2 * metaText.length;
  for (const [name, array] of arrays) size += array.byteLength + name.length + 64;
  const b = new Builder(size);
  const namedArrays: number[] = [];
  for (const [name, array] of arrays) {
    const nameOffset = b.createString(name);
    const bytes = alignedByteVector(b, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    b.startObject(3);
    b.addFieldOffset(0, nameOffset, 0);
    b.addFieldInt8(1, elementType(array), 0);
    b.addFieldOffset(2, bytes, 0);
    namedArrays.push(b.endObject());
    yield;
  }
  const arraysVector = offsetVector(b, namedArrays);
  // Format 3 keeps the products in `arrays` (stored JSON); the strings vector stays empty.
  const productsVector = offsetVector(b, []);
  const metaOffset = b.createString(metaText);
  b.startObject(4);
  b.addFieldInt32(0, FORMAT_VERSION, 0);
  b.addFieldOffset(1, metaOffset, 0);
  b.addFieldOffset(2, productsVector, 0);
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
export function encodeCatalogSnapshotInSlices(state: CatalogState): Promise<Uint8Array> {
  return runInSlices(encodeCatalogSnapshotSteps(state));
}

/**
 * Writes the catalog's current version (taken when called) to `filePath` atomically and durably: a
 * temporary file beside it, flushed to disk, renamed over the final name, then the directory flushed —
 * so a crash leaves either the previous snapshot or this one, never a half-written file, and once this
 * resolves the change log it covers may be deleted.
 */
export async function saveCatalogSnapshot(catalog: Catalog, filePath: string): Promise<void> {
  const bytes = await runInSlices(encodeCatalogSnapshotSteps(catalog.state));
  const temp = `${filePath}.${randomUUID()}.tmp`;
  try {
    const file = await open(temp, 'w');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, filePath);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  const dir = await open(path.dirname(filePath), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

function invalid(filePath: string, problem: string, cause?: unknown): never {
  throw new AisleError('SNAPSHOT_INVALID', `snapshot ${filePath}: ${problem}`, { cause, details: { filePath } });
}

/** Reads the snapshot bytes back into the products and a catalog state builder. */
export function decodeCatalogSnapshot(bytes: Uint8Array, label = '(bytes)'): { products: ProductStore; makeState: (catalogId: string) => CatalogState } {
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
    const meta = JSON.parse(utf8String(bytes, bb, root + field(root, 1))) as SnapshotMeta;
    const productsAt = root + field(root, 2);
    const productsStart = bb.__vector(productsAt);
    const productCount = bb.__vector_len(productsAt);
    // Format 2 only: each product's JSON text.
    const productTexts: Product[] = new Array(productCount);
    for (let i = 0; i < productCount; i++) productTexts[i] = JSON.parse(utf8String(bytes, bb, productsStart + 4 * i)) as Product;
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
      const View = ctor as unknown as new (buffer: ArrayBufferLike, offset: number, length: number) => AnyTypedArray;
      const at = bytes.byteOffset + start;
      if (bytes.buffer instanceof SharedArrayBuffer && at % ctor.BYTES_PER_ELEMENT === 0) {
        // Read straight onto a SharedArrayBuffer (loadCatalogSnapshot) and aligned (format 3): a view, no copy.
        arrays.set(name, new View(bytes.buffer, at, length / ctor.BYTES_PER_ELEMENT));
      } else {
        // Copied onto a SharedArrayBuffer (aligned, shareable with the search workers).
        const shared = new SharedArrayBuffer(Math.max(1, length));
        new Uint8Array(shared, 0, length).set(bytes.subarray(start, start + length));
        arrays.set(name, new View(shared, 0, length / ctor.BYTES_PER_ELEMENT));
      }
    }
    const need = <T extends AnyTypedArray>(name: string, ctor: new (...args: never[]) => T, length?: number): T => {
      const a = arrays.get(name);
      if (!(a instanceof ctor) || (length !== undefined && a.length !== length)) invalid(label, `lacks a valid array ${name}`);
      return a;
    };
    const n = meta.docCount;
    const fields: FieldIndex[] = meta.fields.map((f, i) => ({
      name: f.name,
      kind: f.kind,
      // Absent in snapshots written before the counts existed: appends then rebuild (see FieldIndex).
      valueCounts: f.valueCounts,
      numeric: f.hasNumeric ? need(`f${i}.numeric`, Float64Array, n) : undefined,
      order: arrays.has(`f${i}.order`) ? need(`f${i}.order`, Uint32Array) : undefined,
      text: f.hasText ? {
        offsets: need(`f${i}.offsets`, Uint32Array, n + 1), codes: need(`f${i}.codes`, Uint32Array), dictSize: f.dictSize!,
        valueOffsets: need(`f${i}.valueOffsets`, Uint32Array, f.dictSize! + 1), valueDocs: need(`f${i}.valueDocs`, Uint32Array),
        sortRank: arrays.has(`f${i}.sortRank`) ? need(`f${i}.sortRank`, Uint32Array, f.dictSize!) : undefined,
        single: arrays.has(`f${i}.single`) ? need(`f${i}.single`, Int32Array, n) : undefined,
      } : undefined,
    }));
    const ft = meta.fullText;
    const fullText = {
      fieldIds: ft.fieldIds, termCount: ft.termCount, avgFieldLengths: ft.avgFieldLengths,
      termOffsets: need('ft.termOffsets', Uint32Array, ft.termCount + 1), postDocs: need('ft.postDocs', Uint32Array),
      postFields: need('ft.postFields', Uint8Array), postNorm: need('ft.postNorm', Float32Array),
      termDocFreq: need('ft.termDocFreq', Uint32Array, ft.termCount), fieldLengths: need('ft.fieldLengths', Uint32Array, ft.fieldIds.length * n),
    };
    if (meta.vocabulary.length !== ft.termCount || meta.dictionaries.length !== fields.length) invalid(label, 'has an inconsistent index');
    if (meta.deleted?.some((d, i) => !Number.isInteger(d) || d < 0 || d >= n || (i > 0 && d <= meta.deleted![i - 1]))) invalid(label, 'has invalid tombstones');
    const vectors = meta.vectorDimension > 0
      ? { dimension: meta.vectorDimension, data: need('vec.data', Float32Array, n * meta.vectorDimension), present: need('vec.present', Uint8Array, n) }
      : undefined;
    const termMasks = Uint32Array.from(meta.vocabulary, charMask);
    const products = version === 2 ? ProductStore.encode(productTexts) : ProductStore.fromStoredJson(storedJson(arrays, meta, label));
    if (products.length !== n) invalid(label, 'has a product count that does not match its index');
    const fieldByName = new Map(fields.map((f, i) => [f.name, i]));
    const docByRefId = refIdMap(products, meta.dictionaries[fieldByName.get(REF_ID_FIELD) ?? -1]);
    const makeState = (catalogId: string): CatalogState => {
      const state: CatalogState = {
        index: { catalogId, version: 1, docCount: n, fields, fullText, ordinal: arrays.has('ordinal') ? need('ordinal', Uint32Array, n) : undefined },
        products, docByRefId, fieldByName, dictionaries: meta.dictionaries, vocabulary: meta.vocabulary, termMasks, vectors,
      };
      // Tombstones are kept as the doc list; their statistics are derived again from those products.
      return meta.deleted && meta.deleted.length > 0 ? runSteps(applyDeletes(state, meta.deleted, 1)) : state;
    };
    return { products, makeState };
  } catch (err) {
    if (err instanceof AisleError) throw err;
    return invalid(label, 'is corrupt', err);
  }
}

/**
 * Loads a catalog from a snapshot written by {@link saveCatalogSnapshot}. A missing, truncated or
 * foreign file throws `AisleError('SNAPSHOT_INVALID')`.
 */
export async function loadCatalogSnapshot(filePath: string, options: CatalogOptions = {}): Promise<Catalog> {
  let bytes: Uint8Array;
  try {
    bytes = await readOntoSharedMemory(filePath);
  } catch (err) {
    return invalid(filePath, 'cannot be read', err);
  }
  return Catalog.fromState(options, decodeCatalogSnapshot(bytes, filePath).makeState);
}

/** The products' stored JSON of a format 3 snapshot (its arrays as they were in memory). */
function storedJson(arrays: ReadonlyMap<string, AnyTypedArray>, meta: SnapshotMeta, label: string): StoredJson {
  const bytes = arrays.get('products.bytes');
  const offsets = arrays.get('products.offsets');
  const shapeOf = arrays.get('products.shapeOf');
  if (!(bytes instanceof Uint8Array) || !(offsets instanceof Uint32Array || offsets instanceof Float64Array) || !(shapeOf instanceof Uint32Array) || !meta.productShapes) {
    return invalid(label, 'lacks the products\' stored JSON');
  }
  try {
    return StoredJson.fromParts({ bytes, offsets, shapeOf, shapes: meta.productShapes });
  } catch (err) {
    return invalid(label, 'has malformed products', err);
  }
}

/**
 * refId → doc. The refId column's dictionary is the docs' refIds in doc order (see buildTextColumn),
 * so no product is decoded; without it (an empty catalog) the products are read.
 */
function refIdMap(products: ProductStore, refIds: readonly string[] | undefined): StringMap<number> {
  const docs = new StringMap<number>();
  if (refIds !== undefined && refIds.length === products.length) for (let d = 0; d < refIds.length; d++) docs.set(refIds[d], d);
  else products.forEach((p, d) => docs.set(p.refId, d));
  return docs;
}

const utf8 = new TextDecoder();

/**
 * The string whose offset is at `at`, decoded natively (the flatbuffers runtime's `__string` decodes
 * UTF-8 one byte at a time in JavaScript: seconds for the megabytes of dictionaries in the metadata).
 */
function utf8String(bytes: Uint8Array, bb: ByteBuffer, at: number): string {
  const start = at + bb.readInt32(at);
  const length = bb.readInt32(start);
  if (start + 4 + length > bytes.length) throw new Error('string out of bounds');
  return utf8.decode(bytes.subarray(start + 4, start + 4 + length));
}

/** Alignment of every array's bytes in the file (the widest element, Float64). */
const ARRAY_ALIGNMENT = 8;

/**
 * `createByteVector` with the bytes aligned to {@link ARRAY_ALIGNMENT} in the finished buffer (the
 * runtime's own aligns to 1), so a loader can view them in place as typed arrays. Reaches into the
 * Builder's `space` and `bb` exactly as `createByteVector` does (flatbuffers 25.x).
 */
function alignedByteVector(b: Builder, bytes: Uint8Array): number {
  b.startVector(1, bytes.length, ARRAY_ALIGNMENT);
  const inner = b as unknown as { space: number; bb: ByteBuffer };
  inner.space -= bytes.length;
  inner.bb.setPosition(inner.space);
  inner.bb.bytes().set(bytes, inner.space);
  return b.endVector();
}

/**
 * The file's bytes on one SharedArrayBuffer: its aligned arrays become the catalog's columns as views,
 * with no copy (the metadata's few percent of the file stay in that buffer while any column of the
 * loaded version is in use).
 */
async function readOntoSharedMemory(filePath: string): Promise<Uint8Array> {
  const file = await open(filePath, 'r');
  try {
    const { size } = await file.stat();
    const bytes = new Uint8Array(new SharedArrayBuffer(Math.max(1, size)), 0, size);
    for (let at = 0; at < size;) {
      const { bytesRead } = await file.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`file ended at ${at} of ${size} bytes`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await file.close();
  }
}
