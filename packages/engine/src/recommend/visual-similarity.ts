/**
 * "Visually Similar": cosine similarity over the products' `image_vector` (an array of numbers).
 *
 * The index reads the vectors where the catalog keeps them: a catalog giving its image vector column
 * ({@link ProductList.imageVectors}) is read in place, each row with the inverse of its norm (a
 * normalised copy of the column held 43 MB at 1M products, as much as the column: decision 0088); a
 * list of product objects has its vectors packed into one
 * Float32Array of its own (rows of the dimension of the first vector met; vectors of another dimension
 * are ignored), read the same way. A row's score is its dot product with the query times its inverse
 * norm, over the query's norm: the cosine. The index is rebuilt when
 * `catalog.version` changes — in the request for a small catalog, otherwise in the background in
 * time slices ({@link BackgroundIndex}); a rebuild copies the rows of unchanged products (by revision).
 * Until it is swapped in, look-ups answer from the previous index with products the catalog no
 * longer has dropped (before the first index exists: nothing, so the cascade moves on).
 *
 * Below `annThreshold` vectors a look-up scans all rows (exact). From it on, the index also holds an
 * IVF (inverted file): `nlist ≈ √n` centroids trained by spherical k-means on a sample, each row
 * filed under its nearest centroid; a look-up scores the centroids, scans the rows of the best
 * `nprobe` lists (more when they hold fewer than `minCandidates` rows) and ranks them exactly.
 * A rebuild keeps the centroids (while the number of vectors stays within a factor 2 of the trained
 * size) and the list of every unchanged row, so only new or changed products are assigned.
 * Results are cached per seed and index. Products sharing the seed's `style_id` are excluded (they
 * are variants of the same thing). Looking up by style id uses the mean of that style's vectors as
 * the query. A product without a vector has no visual neighbours.
 * @module
 */
import type { CatalogView, Product, ProductList } from '../types.js';
import { BackgroundIndex, WIDE_STEP, compactRevisionsSteps, rowsByRevision, type BuildSteps, type RowRevisions } from './background-build.js';
import { Interner } from './interner.js';
import { isFiniteNumberList } from '../catalog/columns/vector-column.js';
import type { ScoredItem } from './popularity.js';

function styleOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Options of {@link VisualSimilarity}. */
export interface VisualSimilarityOptions {
  cacheSize?: number;
  /** Catalogs of at most this many live products are indexed in the request. Default 1000. */
  syncLimit?: number;
  /** Number of vectors from which the approximate (IVF) index is used. Default 20,000. */
  annThreshold?: number;
  /** Lists scanned per look-up at least. Default: max(8, ⌈nlist / 32⌉). */
  nprobe?: number;
  /** Rows scanned per look-up at least (more lists are probed until reached). Default 1,000. */
  minCandidates?: number;
}

/** The inverted file of an {@link VisualIndex}. */
interface Ivf {
  nlist: number;
  /** L2-normalised centroids, nlist × dim. */
  centroids: Float32Array;
  /** Number of rows the centroids were trained for. */
  trainedRows: number;
  /**
   * Rows of list l: listRows[listStart[l] .. listStart[l+1]). The list of each row is not kept (4 bytes
   * a row): a rebuild reading the lists of unchanged rows inverts these ({@link listOfRows}).
   */
  listStart: Int32Array;
  listRows: Int32Array;
}

/** The vectors' rows (and IVF) of one catalog version; immutable once built. */
export interface VisualIndex {
  readonly version: number;
  readonly dim: number;
  /** Vectors as given (float32), `dim` numbers a vector: the catalog's column, or the index's own copy. */
  readonly data: Float32Array;
  /** Per row, its vector's place in {@link data} (in vectors: `dim` numbers each). */
  readonly rowAt: Int32Array;
  /** Per row, the inverse of its vector's norm (what L2-normalises it). */
  readonly rowScale: Float32Array;
  readonly rowItem: Int32Array;
  /**
   * Style of each row as an id of {@link VisualSimilarity}'s style interner (-1: none). Ids, not
   * strings: at 200k products a string per row and a Map of row arrays per style held ~17 MB.
   */
  readonly rowStyle: Int32Array;
  /**
   * Row of each interned item id (-1 or beyond the end: no vector in this index). A typed array by item
   * id rather than a Map: at 1M products a Map<number, number> held ~35 MB, this 4 MB.
   */
  readonly rowOf: Int32Array;
  /** Rows of style s (by id): styleRows[styleStart[s] .. styleStart[s+1]) (styles interned later: beyond the end). */
  readonly styleStart: Int32Array;
  readonly styleRows: Int32Array;
  /** Revision of each row's product (see product-store.ts): a rebuild copies unchanged products' rows. */
  readonly rowRevisions: RowRevisions;
  readonly ivf: Ivf | undefined;
  readonly cache: Map<string, { limit: number; ranked: ScoredItem[] }>;
}

const CHUNK = 256;

/** Deterministic pseudo-random numbers (k-means seeding). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let d0 = 0;
  let d1 = 0;
  let d2 = 0;
  let d3 = 0;
  let d = 0;
  for (; d + 3 < dim; d += 4) {
    d0 += a[ao + d]! * b[bo + d]!;
    d1 += a[ao + d + 1]! * b[bo + d + 1]!;
    d2 += a[ao + d + 2]! * b[bo + d + 2]!;
    d3 += a[ao + d + 3]! * b[bo + d + 3]!;
  }
  for (; d < dim; d++) d0 += a[ao + d]! * b[bo + d]!;
  return d0 + d1 + d2 + d3;
}

/**
 * Index of the centroid with the largest dot product with the vector at `at` of `data` (its cosine's
 * order: a vector's norm scales every centroid's product alike).
 */
function nearest(centroids: Float32Array, nlist: number, data: Float32Array, at: number, dim: number): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < nlist; c++) {
    const s = dot(centroids, c * dim, data, at, dim);
    if (s > bestScore) {
      bestScore = s;
      best = c;
    }
  }
  return best;
}

/** The inverse of the norm of the `dim` numbers at `at` of `data`; 0 when they have none to divide by (all zero, or too large). */
function inverseNorm(data: Float32Array, at: number, dim: number): number {
  let n = 0;
  for (let d = 0; d < dim; d++) n += data[at + d]! * data[at + d]!;
  n = Math.sqrt(n);
  return n > 0 && n < Infinity ? 1 / n : 0;
}

/** Row `row`'s vector in `ix`, as given (a view). */
function rowVector(ix: VisualIndex, row: number): Float32Array {
  const at = ix.rowAt[row]! * ix.dim;
  return ix.data.subarray(at, at + ix.dim);
}

/** Row of interned item `item` in `ix`, or undefined (no vector, or interned after the index was built). */
function rowOfItem(ix: VisualIndex, item: number): number | undefined {
  const row = item >= 0 && item < ix.rowOf.length ? ix.rowOf[item]! : -1;
  return row < 0 ? undefined : row;
}

/** Top-k by score in a binary min-heap over typed arrays. */
class TopK {
  readonly score: Float64Array;
  readonly row: Int32Array;
  size = 0;
  constructor(readonly k: number) {
    this.score = new Float64Array(k);
    this.row = new Int32Array(k);
  }
  offer(score: number, r: number): void {
    const hs = this.score;
    const hr = this.row;
    const keep = this.k;
    if (this.size < keep) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (hs[parent]! <= score) break;
        hs[i] = hs[parent]!;
        hr[i] = hr[parent]!;
        i = parent;
      }
      hs[i] = score;
      hr[i] = r;
    } else if (score > hs[0]!) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= keep) break;
        const right = left + 1;
        const child = right < keep && hs[right]! < hs[left]! ? right : left;
        if (hs[child]! >= score) break;
        hs[i] = hs[child]!;
        hr[i] = hr[child]!;
        i = child;
      }
      hs[i] = score;
      hr[i] = r;
    }
  }
}

/** "Visually Similar" over the catalog: a {@link VisualIndex} kept up to date off the request path. */
export class VisualSimilarity {
  /** The index kept up to date with the catalog (refresh, status, whenReady). */
  readonly index: BackgroundIndex<VisualIndex>;
  readonly cacheSize: number;
  readonly annThreshold: number;
  private readonly nprobe: number | undefined;
  private readonly minCandidates: number;
  /** Style ids (`style_id` values), kept across rebuilds so that copied rows keep theirs; only grows, as the item interner. */
  private readonly styles = new Interner();

  constructor(private readonly catalog: CatalogView, private readonly items: Interner, options: VisualSimilarityOptions = {}) {
    this.cacheSize = options.cacheSize ?? 10_000;
    this.annThreshold = options.annThreshold ?? 20_000;
    this.nprobe = options.nprobe;
    this.minCandidates = options.minCandidates ?? 1000;
    this.index = new BackgroundIndex(
      catalog, (previous, products, version) => this.build(previous, products, version), options.syncLimit ?? 1000, undefined,
      // Price and stock updates (value patches) leave vectors and styles as they were: same index.
      (previous, version) => (catalog.valuesOnlyChangedSince?.(previous.version, (f) => f === 'image_vector' || f === 'style_id') ? { ...previous, version } : undefined),
    );
  }

  /** Resolves when the index reflects the current catalog version (test hook; starts the build if needed). */
  whenReady(): Promise<void> {
    return this.index.whenReady();
  }

  /** Whether look-ups answer from an index of the current catalog version. */
  get upToDate(): boolean {
    return this.index.upToDate;
  }

  /** Whether the current index answers approximately (IVF). */
  get approximate(): boolean {
    return this.index.get()?.ivf !== undefined;
  }

  /** Neighbours of a product (interned id); empty when it has no vector. */
  byProduct(seed: number, limit: number): ScoredItem[] {
    const ix = this.index.get();
    const row = ix === undefined ? undefined : rowOfItem(ix, seed);
    if (ix === undefined || row === undefined) return [];
    return this.live(ix, this.query(ix, `p:${seed}`, rowVector(ix, row), ix.rowStyle[row]!, seed, limit, false));
  }

  /** Exact neighbours of a product, scanning every vector (the reference of the recall measurement). */
  exactByProduct(seed: number, limit: number): ScoredItem[] {
    const ix = this.index.get();
    const row = ix === undefined ? undefined : rowOfItem(ix, seed);
    if (ix === undefined || row === undefined) return [];
    return this.live(ix, this.query(ix, `x:${seed}`, rowVector(ix, row), ix.rowStyle[row]!, seed, limit, true));
  }

  /** Neighbours of a style (mean of its products' vectors); the style's own products are excluded. */
  byStyle(styleId: string, limit: number): ScoredItem[] {
    const ix = this.index.get();
    const style = this.styles.lookup(styleId);
    if (ix === undefined || style < 0 || style + 1 >= ix.styleStart.length) return [];
    const from = ix.styleStart[style]!;
    const to = ix.styleStart[style + 1]!;
    if (from === to) return [];
    const q = new Float32Array(ix.dim);
    for (let k = from; k < to; k++) {
      const r = ix.styleRows[k]!;
      const at = ix.rowAt[r]! * ix.dim;
      const scale = ix.rowScale[r]!;
      for (let d = 0; d < ix.dim; d++) q[d]! += ix.data[at + d]! * scale;
    }
    return this.live(ix, this.query(ix, `s:${styleId}`, q, style, -1, limit, false));
  }

  /** The style id of a product (interned id), if any. */
  styleOfItem(item: number): string | undefined {
    const ix = this.index.get();
    const row = ix === undefined ? undefined : rowOfItem(ix, item);
    if (ix !== undefined && row !== undefined) return ix.rowStyle[row]! < 0 ? undefined : this.styles.name(ix.rowStyle[row]!);
    return styleOf(this.catalog.getProduct(this.items.name(item))?.style_id);
  }

  /** Results of a previous index are filtered against the live catalog (deleted products never appear). */
  private live(ix: VisualIndex, ranked: ScoredItem[]): ScoredItem[] {
    if (ix.version === this.catalog.version) return ranked;
    return ranked.filter((r) => this.catalog.has(this.items.name(r.item)));
  }

  /** `style`: the style id whose rows are left out (-1: none). */
  private query(ix: VisualIndex, key: string, q: Float32Array, style: number, self: number, limit: number, exact: boolean): ScoredItem[] {
    const cached = ix.cache.get(key);
    if (cached && cached.limit >= limit) return cached.ranked.slice(0, limit);
    const dim = ix.dim;
    let qn = 0;
    for (let d = 0; d < dim; d++) qn += q[d]! * q[d]!;
    qn = Math.sqrt(qn);
    if (qn === 0) return [];
    const keep = Math.max(limit, 100);
    const top = new TopK(keep);
    const { data, rowAt, rowScale, rowItem, rowStyle } = ix;
    const scan = (r: number): void => {
      if (rowItem[r] === self || (style >= 0 && rowStyle[r] === style)) return;
      top.offer((dot(q, 0, data, rowAt[r]! * dim, dim) * rowScale[r]!) / qn, r);
    };
    const ivf = exact ? undefined : ix.ivf;
    if (ivf === undefined) {
      for (let r = 0, rows = rowItem.length; r < rows; r++) scan(r);
    } else {
      // Score the centroids, then scan the best lists.
      const order = Array.from({ length: ivf.nlist }, (_, c) => c);
      const cs = new Float64Array(ivf.nlist);
      for (let c = 0; c < ivf.nlist; c++) cs[c] = dot(ivf.centroids, c * dim, q, 0, dim);
      order.sort((a, b) => cs[b]! - cs[a]!);
      const nprobe = this.nprobe ?? Math.max(8, Math.ceil(ivf.nlist / 32));
      const minCandidates = Math.max(this.minCandidates, 2 * keep);
      let scanned = 0;
      for (let k = 0; k < ivf.nlist && (k < nprobe || scanned < minCandidates); k++) {
        const l = order[k]!;
        for (let p = ivf.listStart[l]!, end = ivf.listStart[l + 1]!; p < end; p++) scan(ivf.listRows[p]!);
        scanned += ivf.listStart[l + 1]! - ivf.listStart[l]!;
      }
    }
    const ranked: ScoredItem[] = [];
    for (let i = 0; i < top.size; i++) ranked.push({ item: rowItem[top.row[i]!]!, score: top.score[i]! });
    ranked.sort((x, y) => y.score - x.score || x.item - y.item);
    if (ix.cache.size >= this.cacheSize) ix.cache.clear();
    ix.cache.set(key, { limit: keep, ranked });
    return ranked.slice(0, limit);
  }

  /**
   * The rows of `products`' vectors (reusing the item, style and scale of unchanged products, by
   * revision), then the IVF when large enough. A new product is read once, for its vector (when the
   * catalog gives no column), refId and style, and not kept.
   */
  private *build(previous: VisualIndex | undefined, products: ProductList, version: number): BuildSteps<VisualIndex> {
    const column = products.imageVectors;
    // Dimension: the column's, else that of the first valid vector met (in catalog order, as before).
    let dim = column?.dimension ?? 0;
    const valid = (v: unknown): v is number[] => isFiniteNumberList(v) && v.length > 0 && (dim === 0 || v.length === dim);
    const oldRowOf = yield* rowsByRevision(previous?.rowRevisions);
    // Per row: its old row (-1: new), its revision, item, style, place and scale, all written as the
    // product is read. Typed arrays sized for every product (the rows with a vector fill their start):
    // JS arrays of a million numbers were collected after every rebuild, and a Map of a Float32Array
    // per new row (a million at a first build of 1M products) made collections of 100 ms and more after
    // the build, and its growth rehashed a million entries in one step (decisions/0074).
    const oldRows = new Int32Array(products.length);
    const revisionList = new Float64Array(products.length);
    const rowItems = new Int32Array(products.length);
    const rowStyles = new Int32Array(products.length);
    const rowAts = new Int32Array(products.length);
    const rowScales = new Float32Array(products.length);
    // Without a column, the rows' vectors: room for one per product, made once the dimension is known.
    // Its pages are mapped as the rows are written, a step's rows at a time. Grown by doubling, the
    // matrix was copied whole into each larger one, in one step: 32 MB into a fresh 64 MB at 1M
    // products, 571 ms sampled (120 ms on a CPU, the rest the wait for a core as its pages were mapped)
    // in a gap after a 1M load (docs/benchmarks.md). The pages of rows never written (products without
    // a vector) are never mapped.
    let own = new Float32Array(0);
    const room = (): Float32Array => {
      if (own.length === 0) own = new Float32Array(products.length * dim);
      return own;
    };
    let rows = 0;
    for (let i = 0; i < products.length; i++) {
      if (i % (CHUNK * 4) === CHUNK * 4 - 1) yield;
      // The column's row of the product (-1: none), or the next row of the own copy.
      const columnRow = column ? column.rowOf(i) : -1;
      if (column && columnRow < 0) continue;
      const revision = products.revision(i);
      const old = oldRowOf.get(revision);
      if (old !== undefined) {
        if (dim === 0) dim = previous!.dim;
        if (previous!.dim !== dim) continue;
        if (column) rowAts[rows] = columnRow;
        else {
          room().set(rowVector(previous!, old), rows * dim);
          rowAts[rows] = rows;
        }
        rowScales[rows] = previous!.rowScale[old]!;
        rowItems[rows] = previous!.rowItem[old]!;
        rowStyles[rows] = previous!.rowStyle[old]!;
        oldRows[rows] = old;
        revisionList[rows++] = revision;
        continue;
      }
      let at = columnRow;
      let p: Product | undefined;
      if (!column) {
        p = products.get(i);
        const v = p.image_vector;
        if (!valid(v)) continue;
        if (dim === 0) dim = v.length;
        // Stored as float32s, as the catalog's column stores them: both read the same numbers.
        room().set(v, rows * dim);
        at = rows;
      }
      // A zero vector holds no image to compare (its cosine with every image is 0): no row, as for no
      // vector. Kept, it was listed as "Visually Similar" to any product with fewer neighbours than asked.
      // (Components so large that the norm overflows cannot be normalised either.)
      const scale = inverseNorm(column ? column.data : own, at * dim, dim);
      if (scale === 0) continue;
      p ??= products.get(i);
      const style = styleOf(p.style_id);
      rowAts[rows] = at;
      rowScales[rows] = scale;
      rowItems[rows] = this.items.intern(p.refId);
      rowStyles[rows] = style === undefined ? -1 : this.styles.intern(style);
      oldRows[rows] = -1;
      revisionList[rows++] = revision;
    }
    const data = column ? column.data : yield* trimmed(own, rows * dim);
    const rowAt = rowAts.slice(0, rows);
    const rowScale = rowScales.slice(0, rows);
    const rowItem = rowItems.slice(0, rows);
    const rowStyle = rowStyles.slice(0, rows);
    const rowRevisions = yield* compactRevisionsSteps(revisionList.subarray(0, rows));
    // Sized after every row's item is interned (new rows intern theirs in the read loop above).
    const rowOf = new Int32Array(this.items.size).fill(-1);
    for (let r = 0; r < rows; r++) {
      rowOf[rowItem[r]!] = r;
      if ((r & WIDE_STEP) === WIDE_STEP) yield;
    }
    yield;
    // Rows of each style by counting sort (in row order within a style).
    const styleStart = new Int32Array(this.styles.size + 1);
    for (let r = 0; r < rows; r++) {
      if (rowStyle[r]! >= 0) styleStart[rowStyle[r]! + 1]!++;
      if ((r & WIDE_STEP) === WIDE_STEP) yield;
    }
    for (let st = 0; st < this.styles.size; st++) styleStart[st + 1]! += styleStart[st]!;
    const styleFill = styleStart.slice(0, this.styles.size);
    const styleRows = new Int32Array(styleStart[this.styles.size]!);
    for (let r = 0; r < rows; r++) {
      if (rowStyle[r]! >= 0) styleRows[styleFill[rowStyle[r]!]!++] = r;
      if ((r & WIDE_STEP) === WIDE_STEP) yield;
    }
    yield;
    let ivf: Ivf | undefined;
    if (rows >= this.annThreshold && rows > 0 && dim > 0) {
      const reuse = previous?.ivf !== undefined && previous.dim === dim && rows <= 2 * previous.ivf.trainedRows && rows * 2 >= previous.ivf.trainedRows;
      const centroids = reuse ? previous.ivf!.centroids : yield* trainCentroids(data, rowAt, rowScale, dim);
      const nlist = centroids.length / dim;
      const oldList = reuse ? yield* listOfRows(previous.ivf!, previous.rowItem.length) : undefined;
      const rowList = new Int32Array(rows);
      for (let r = 0; r < rows; r++) {
        if (r % 64 === 63) yield;
        const old = oldRows[r]!;
        rowList[r] = oldList !== undefined && old >= 0 ? oldList[old]! : nearest(centroids, nlist, data, rowAt[r]! * dim, dim);
      }
      const listStart = new Int32Array(nlist + 1);
      for (let r = 0; r < rows; r++) {
        listStart[rowList[r]! + 1]!++;
        if ((r & WIDE_STEP) === WIDE_STEP) yield;
      }
      for (let l = 0; l < nlist; l++) listStart[l + 1]! += listStart[l]!;
      const fill = listStart.slice(0, nlist);
      const listRows = new Int32Array(rows);
      for (let r = 0; r < rows; r++) {
        listRows[fill[rowList[r]!]!++] = r;
        if ((r & WIDE_STEP) === WIDE_STEP) yield;
      }
      ivf = { nlist, centroids, trainedRows: reuse ? previous.ivf!.trainedRows : rows, listStart, listRows };
    }
    return { version, dim, data, rowAt, rowScale, rowItem, rowStyle, rowOf, styleStart, styleRows, rowRevisions, ivf, cache: new Map() };
  }
}

/** `array`'s first `length` elements: `array` itself when that is all of it, else a copy made in steps. */
function* trimmed(array: Float32Array, length: number): Generator<void, Float32Array, void> {
  if (array.length === length) return array;
  const out = new Float32Array(length);
  for (let at = 0; at < length; at += WIDE_STEP * 16) {
    out.set(array.subarray(at, Math.min(length, at + WIDE_STEP * 16)), at);
    yield;
  }
  return out;
}

/** The list of each of the `rows` rows of an IVF (held for a rebuild only), in steps. */
function* listOfRows(ivf: Ivf, rows: number): Generator<void, Int32Array, void> {
  const out = new Int32Array(rows);
  for (let l = 0; l < ivf.nlist; l++) {
    for (let p = ivf.listStart[l]!, end = ivf.listStart[l + 1]!; p < end; p++) out[ivf.listRows[p]!] = l;
    if ((l & 63) === 63) yield;
  }
  return out;
}

/** Spherical k-means (`nlist ≈ √rows`) on a deterministic sample of at most 25 rows per centroid; 6 iterations. */
function* trainCentroids(data: Float32Array, rowAt: Int32Array, rowScale: Float32Array, dim: number): Generator<void, Float32Array, void> {
  const rows = rowAt.length;
  /** Row `r`'s vector, L2-normalised, into `target` from `to`. */
  const normalised = (r: number, target: Float32Array, to: number): void => {
    const at = rowAt[r]! * dim;
    for (let d = 0; d < dim; d++) target[to + d] = data[at + d]! * rowScale[r]!;
  };
  const nlist = Math.max(1, Math.min(4096, Math.round(Math.sqrt(rows)), rows));
  const random = lcg(0x9e3779b9);
  const sampleSize = Math.min(rows, nlist * 25);
  // Sample rows by a partial Fisher–Yates shuffle of the row indexes.
  const perm = new Int32Array(rows);
  for (let r = 0; r < rows; r++) perm[r] = r;
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(random() * (rows - i));
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  const sample = perm.subarray(0, sampleSize);
  const centroids = new Float32Array(nlist * dim);
  for (let c = 0; c < nlist; c++) normalised(sample[c]!, centroids, c * dim);
  const sums = new Float64Array(nlist * dim);
  const counts = new Int32Array(nlist);
  yield;
  for (let iter = 0; iter < 6; iter++) {
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < sampleSize; i++) {
      if (i % 64 === 63) yield;
      const r = sample[i]!;
      const at = rowAt[r]! * dim;
      const c = nearest(centroids, nlist, data, at, dim);
      counts[c]!++;
      for (let d = 0; d < dim; d++) sums[c * dim + d]! += data[at + d]! * rowScale[r]!;
    }
    for (let c = 0; c < nlist; c++) {
      if (counts[c] === 0) {
        // An empty list takes a random sample row.
        const r = sample[Math.floor(random() * sampleSize)]!;
        normalised(r, centroids, c * dim);
        continue;
      }
      let n = 0;
      for (let d = 0; d < dim; d++) n += sums[c * dim + d]! ** 2;
      n = Math.sqrt(n) || 1;
      for (let d = 0; d < dim; d++) centroids[c * dim + d] = sums[c * dim + d]! / n;
    }
  }
  return centroids;
}
