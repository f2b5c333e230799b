/**
 * Catalog snapshots: one flatbuffers file (layout in catalog-snapshot.fbs) holding the products'
 * original JSON plus every built column and index array, so a restart neither re-parses the feed nor
 * re-tokenises. Written atomically (temporary file, then rename).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Builder, ByteBuffer } from 'flatbuffers';
import { AisleError } from '../errors.js';
import type { Product } from '../types.js';
import { Catalog, type CatalogOptions } from './catalog.js';
import { charMask, type CatalogState, type FieldIndex, type FieldKind, type ValueCounts } from './catalog-index.js';
import { StringMap } from './string-map.js';
import { runSteps, type Steps } from './build-catalog-state.js';
import { runInSlices } from './time-slices.js';
import { applyDeletes } from './tombstones.js';
import { ensureNumericOrdersSteps } from './text-column-lookups.js';
import type { StepTimer } from '../util/step-timer.js';

const FILE_IDENTIFIER = 'AISL';
const FORMAT_VERSION = 2;

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
}

function arraysOf(state: CatalogState): Map<string, AnyTypedArray> {
  const arrays = new Map<string, AnyTypedArray>();
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

/** Products encoded between two pauses of {@link encodeCatalogSnapshotSteps}. */
const PRODUCTS_PER_STEP = 2048;

/**
 * The encoding as steps (see `runInSlices`), so that writing the snapshot of a large catalog does not
 * hold the event loop for the whole encoding: it pauses after each column and every
 * {@link PRODUCTS_PER_STEP} products.
 */
function* encodeCatalogSnapshotSteps(state: CatalogState): Steps<Uint8Array> {
  const { index } = state;
  // Every numeric order is written (derived now, in steps, when no search has needed it yet): after a
  // restart, the first browse or range search does not sort a whole column in its request.
  yield* ensureNumericOrdersSteps(state);
  const meta: SnapshotMeta = {
    docCount: index.docCount,
    fields: index.fields.map((f) => ({ name: f.name, kind: f.kind, dictSize: f.text?.dictSize, hasText: !!f.text, hasNumeric: !!f.numeric, valueCounts: f.valueCounts })),
    dictionaries: state.dictionaries,
    vocabulary: state.vocabulary,
    fullText: { fieldIds: index.fullText.fieldIds, termCount: index.fullText.termCount, avgFieldLengths: index.fullText.avgFieldLengths },
    vectorDimension: state.vectors?.dimension ?? 0,
    deleted: index.deletedDocs && Array.from(index.deletedDocs),
  };
  const b = new Builder(1 << 16);
  const namedArrays: number[] = [];
  for (const [name, array] of arraysOf(state)) {
    const nameOffset = b.createString(name);
    const bytes = b.createByteVector(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    b.startObject(3);
    b.addFieldOffset(0, nameOffset, 0);
    b.addFieldInt8(1, elementType(array), 0);
    b.addFieldOffset(2, bytes, 0);
    namedArrays.push(b.endObject());
    yield;
  }
  const arraysVector = offsetVector(b, namedArrays);
  const productOffsets = new Array<number>(state.products.length);
  for (let i = 0; i < state.products.length; i++) {
    productOffsets[i] = b.createString(JSON.stringify(state.products[i]));
    if (i % PRODUCTS_PER_STEP === PRODUCTS_PER_STEP - 1) yield;
  }
  const productsVector = offsetVector(b, productOffsets);
  const metaOffset = b.createString(JSON.stringify(meta));
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

/**
 * Reads the snapshot bytes back into products and a catalog state builder; `timer` (optional) records
 * the time of each step.
 */
export function decodeCatalogSnapshot(bytes: Uint8Array, label = '(bytes)', timer?: StepTimer): { products: Product[]; makeState: (catalogId: string) => CatalogState } {
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
    if (version !== FORMAT_VERSION) invalid(label, `has format version ${version}, expected ${FORMAT_VERSION}`);
    const meta = JSON.parse(bb.__string(root + field(root, 1)) as string) as SnapshotMeta;
    const productsAt = root + field(root, 2);
    const productsStart = bb.__vector(productsAt);
    const productCount = bb.__vector_len(productsAt);
    if (productCount !== meta.docCount) invalid(label, 'has a product count that does not match its index');
    timer?.lap('meta');
    const products: Product[] = new Array(productCount);
    for (let i = 0; i < productCount; i++) products[i] = JSON.parse(bb.__string(productsStart + 4 * i) as string) as Product;
    timer?.lap('products');
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
    // Filled on first use or in the background (Catalog.completeInBackground): plain searches never read it.
    const docByRefId = StringMap.positions(products.length, (d) => products[d].refId);
    const fieldByName = new Map(fields.map((f, i) => [f.name, i]));
    timer?.lap('lookups');
    const makeState = (catalogId: string): CatalogState => {
      const state: CatalogState = {
        index: { catalogId, version: 1, docCount: n, fields, fullText, ordinal: arrays.has('ordinal') ? need('ordinal', Uint32Array, n) : undefined },
        products, docByRefId, fieldByName, dictionaries: meta.dictionaries, vocabulary: meta.vocabulary, termMasks, vectors,
      };
      // Tombstones are kept as the doc list; their statistics are derived again from those products.
      const withDeletes = meta.deleted && meta.deleted.length > 0 ? runSteps(applyDeletes(state, meta.deleted, 1)) : state;
      timer?.lap('tombstones');
      return withDeletes;
    };
    return { products, makeState };
  } catch (err) {
    if (err instanceof AisleError) throw err;
    return invalid(label, 'is corrupt', err);
  }
}

/**
 * Loads a catalog from a snapshot written by {@link saveCatalogSnapshot}. A missing, truncated or
 * foreign file throws `AisleError('SNAPSHOT_INVALID')`. `timer` (optional) records the time of each step.
 */
export async function loadCatalogSnapshot(filePath: string, options: CatalogOptions = {}, timer?: StepTimer): Promise<Catalog> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(filePath);
  } catch (err) {
    return invalid(filePath, 'cannot be read', err);
  }
  timer?.lap('read');
  const { products, makeState } = decodeCatalogSnapshot(bytes, filePath, timer);
  return Catalog.fromProducts(products, options, makeState);
}
