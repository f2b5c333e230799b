/**
 * The image vector column (`image_vector`): the vectors of the docs having one, one row each in doc
 * order, and per doc its row (-1: none). Docs without a vector take 4 bytes instead of a row (64 bytes
 * at dimension 16: 30% of the generated catalog's docs have none). Both arrays are growable: appends
 * extend them in place (`extendShared`).
 * @module
 */
import type { Product } from '../../types.js';
import type { Steps } from '../steps.js';
import type { VectorColumn } from '../catalog-index.js';
import { IMAGE_VECTOR_FIELD } from '../field-values.js';
import { extendShared, growableArray } from './shared-arrays.js';

/** Doc `doc`'s vector, as a view of the column, or undefined when it has none. */
export function vectorOf(vectors: VectorColumn, doc: number): Float32Array | undefined {
  const row = vectors.rowOf[doc];
  return row < 0 ? undefined : vectors.data.subarray(row * vectors.dimension, (row + 1) * vectors.dimension);
}

/**
 * Whether `value` is an array of finite numbers (empty included): what an image vector is made of, for
 * the load's check of the reserved field, the column and the visual index alike. A loop of its own, whose
 * element reads see number arrays and keep their values unboxed.
 */
export function isFiniteNumberList(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const x: unknown = value[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return false;
  }
  return true;
}

/** The vector a product gives the column: an array of `dimension` finite numbers, else none. */
export function vectorValue(value: unknown, dimension: number): number[] | undefined {
  return isFiniteNumberList(value) && value.length === dimension ? value : undefined;
}

/**
 * Why `vector` (a product's `image_vector`, already a non-empty list of finite numbers or absent) does not
 * fit a catalog whose image vectors have `dimension` numbers (0: none yet), or undefined. The one rule of
 * a catalog's dimension: visual similarity compares vectors of one length, and the column keeps only
 * those of its dimension, so a vector of another length was stored and left out without a word. A load
 * or patch checks each record with it (read-products.ts); the dimension is the catalog's live vectors',
 * else that of the request's first vector. Pure.
 */
export function vectorDimensionProblem(vector: unknown, dimension: number): string | undefined {
  if (dimension === 0 || !Array.isArray(vector) || vector.length === dimension) return undefined;
  return `field "${IMAGE_VECTOR_FIELD}" has ${vector.length} numbers, but the catalog's image vectors have ${dimension}`;
}

/** Whether `value` sets the column's dimension (the first non-empty vector value of a build's products does). */
export function isDimensionSetting(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0;
}

/** The dimension of the first non-empty vector of `products` (0: none). */
export function vectorDimensionOf(products: readonly Product[]): number {
  for (const p of products) {
    const v = p[IMAGE_VECTOR_FIELD];
    if (isDimensionSetting(v)) return v.length;
  }
  return 0;
}

/**
 * `base` (of docs `0 .. n`; absent: none of them has a vector) with the vectors of `added`, docs
 * `n ..`, in steps: an append passes its new products. Undefined when no doc has a dimension yet.
 */
export function appendVectorsSteps(base: VectorColumn | undefined, added: readonly Product[], n: number): Steps<VectorColumn | undefined> {
  const dimension = base?.dimension ?? vectorDimensionOf(added);
  return vectorsSteps(base, n, added.length, dimension, (j) => vectorValue(added[j][IMAGE_VECTOR_FIELD], dimension));
}

/**
 * Docs between two yields of {@link vectorsSteps}: a row read (a value's checks, or a store's shape
 * lookup and a view of the old column) and a row copied take a few microseconds; 4,096 of them held the
 * loop 36 ms in a merge at 1M.
 */
const ROWS_MASK = 1023;

/**
 * `base` (of docs `0 .. n`) with `count` docs more, doc `n + j` having the row `rowAt(j)` (an array of
 * `dimension` finite numbers, stored as float32s; undefined: none), in steps. A build passes no base.
 * Undefined when `dimension` is 0 (no doc has a vector).
 */
export function* vectorsSteps(
  base: VectorColumn | undefined, n: number, count: number, dimension: number, rowAt: (j: number) => ArrayLike<number> | undefined,
): Steps<VectorColumn | undefined> {
  if (dimension === 0) return undefined;
  const N = n + count;
  let rows = base ? base.data.length / dimension : 0;
  let newRows = 0;
  for (let j = 0; j < count; j++) {
    if (rowAt(j)) newRows++;
    if ((j & ROWS_MASK) === ROWS_MASK) yield;
  }
  const data = base ? extendShared(base.data, (rows + newRows) * dimension) : growableArray(Float32Array, newRows * dimension);
  const rowOf = base ? extendShared(base.rowOf, N) : growableArray(Int32Array, N);
  rowOf.fill(-1, base ? n : 0);
  for (let j = 0; j < count; j++) {
    if ((j & ROWS_MASK) === ROWS_MASK) yield;
    const v = rowAt(j);
    if (!v) continue;
    data.set(v, rows * dimension);
    rowOf[n + j] = rows++;
  }
  return { dimension, data, rowOf };
}

/** Vectors stored one row per doc with a presence byte each (snapshot formats up to 4) as a column. */
export function vectorsFromDocRows(dimension: number, docRows: Float32Array, present: Uint8Array): VectorColumn {
  const n = present.length;
  let rows = 0;
  for (let d = 0; d < n; d++) if (present[d] === 1) rows++;
  const data = growableArray(Float32Array, rows * dimension);
  const rowOf = growableArray(Int32Array, n);
  for (let d = 0, row = 0; d < n; d++) {
    if (present[d] !== 1) { rowOf[d] = -1; continue; }
    data.set(docRows.subarray(d * dimension, (d + 1) * dimension), row * dimension);
    rowOf[d] = row++;
  }
  return { dimension, data, rowOf };
}
