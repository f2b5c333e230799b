/**
 * The image vector column (`image_vector`): the vectors of the docs having one, one row each in doc
 * order, and per doc its row (-1: none). Docs without a vector take 4 bytes instead of a row (64 bytes
 * at dimension 16: 30% of the generated catalog's docs have none). Both arrays are growable: appends
 * extend them in place (`extendShared`).
 * @module
 */
import type { Product } from '../types.js';
import { STEP, type Steps } from './build-catalog-state.js';
import type { VectorColumn } from './catalog-index.js';
import { IMAGE_VECTOR_FIELD } from './field-values.js';
import { extendShared, growableArray } from './shared-arrays.js';

/** Doc `doc`'s vector, as a view of the column, or undefined when it has none. */
export function vectorOf(vectors: VectorColumn, doc: number): Float32Array | undefined {
  const row = vectors.rowOf[doc];
  return row < 0 ? undefined : vectors.data.subarray(row * vectors.dimension, (row + 1) * vectors.dimension);
}

/** The vector a product gives the column: an array of `dimension` finite numbers, else none. */
function vectorValue(product: Product, dimension: number): number[] | undefined {
  const v = product[IMAGE_VECTOR_FIELD];
  return Array.isArray(v) && v.length === dimension && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : undefined;
}

/** The dimension of the first non-empty vector of `products` (0: none). */
export function vectorDimensionOf(products: readonly Product[]): number {
  for (const p of products) {
    const v = p[IMAGE_VECTOR_FIELD];
    if (Array.isArray(v) && v.length > 0) return v.length;
  }
  return 0;
}

/**
 * `base` (of docs `0 .. n`; absent: none of them has a vector) with the vectors of `added`, docs
 * `n ..`, in steps: a build passes every product with no base, an append its new ones. Undefined when
 * no doc has a dimension yet.
 */
export function* appendVectorsSteps(base: VectorColumn | undefined, added: readonly Product[], n: number): Steps<VectorColumn | undefined> {
  const dimension = base?.dimension ?? vectorDimensionOf(added);
  if (dimension === 0) return undefined;
  const N = n + added.length;
  let rows = base ? base.data.length / dimension : 0;
  let newRows = 0;
  for (const p of added) if (vectorValue(p, dimension)) newRows++;
  const data = base ? extendShared(base.data, (rows + newRows) * dimension) : growableArray(Float32Array, newRows * dimension);
  const rowOf = base ? extendShared(base.rowOf, N) : growableArray(Int32Array, N);
  rowOf.fill(-1, base ? n : 0);
  for (let j = 0; j < added.length; j++) {
    if ((j & (STEP - 1)) === STEP - 1) yield;
    const v = vectorValue(added[j], dimension);
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
