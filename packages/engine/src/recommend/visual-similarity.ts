/**
 * "Visually Similar": cosine similarity over the products' `image_vector` (an array of numbers).
 *
 * The vectors of the catalog are packed, L2-normalised, into one Float32Array (rows of the dimension
 * of the first vector met; vectors of another dimension are ignored) — built lazily and rebuilt when
 * `catalog.version` changes. A look-up scans all rows (exact, brute force) and is cached per seed.
 * Products sharing the seed's `style_id` are excluded (they are variants of the same thing).
 * Looking up by style id uses the mean of that style's vectors as the query.
 * A product without a vector has no visual neighbours.
 * @module
 */
import type { CatalogView } from '../types.js';
import type { Interner } from './interner.js';
import type { ScoredItem } from './popularity.js';

function styleOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The lazily built vector matrix of one catalog version. */
export class VisualSimilarity {
  private builtVersion = -1;
  private dim = 0;
  private matrix = new Float32Array(0);
  private rowItem = new Int32Array(0);
  private rowStyle: (string | undefined)[] = [];
  private rowOf = new Map<number, number>();
  private rowsOfStyle = new Map<string, number[]>();
  private readonly cache = new Map<string, { limit: number; ranked: ScoredItem[] }>();

  constructor(private readonly catalog: CatalogView, private readonly items: Interner, readonly cacheSize = 10_000) {}

  /** Neighbours of a product (interned id); empty when it has no vector. */
  byProduct(seed: number, limit: number): ScoredItem[] {
    this.ensureBuilt();
    const row = this.rowOf.get(seed);
    if (row === undefined) return [];
    return this.query(`p:${seed}`, this.matrix.subarray(row * this.dim, (row + 1) * this.dim), this.rowStyle[row], seed, limit);
  }

  /** Neighbours of a style (mean of its products' vectors); the style's own products are excluded. */
  byStyle(styleId: string, limit: number): ScoredItem[] {
    this.ensureBuilt();
    const rows = this.rowsOfStyle.get(styleId);
    if (!rows || rows.length === 0) return [];
    const q = new Float32Array(this.dim);
    for (const r of rows) for (let d = 0; d < this.dim; d++) q[d]! += this.matrix[r * this.dim + d]!;
    return this.query(`s:${styleId}`, q, styleId, -1, limit);
  }

  /** The style id of a product (interned id), if any. */
  styleOfItem(item: number): string | undefined {
    this.ensureBuilt();
    const row = this.rowOf.get(item);
    if (row !== undefined) return this.rowStyle[row];
    return styleOf(this.catalog.getProduct(this.items.name(item))?.style_id);
  }

  private query(key: string, q: Float32Array, style: string | undefined, self: number, limit: number): ScoredItem[] {
    const cached = this.cache.get(key);
    if (cached && cached.limit >= limit) return cached.ranked.slice(0, limit);
    let qn = 0;
    for (let d = 0; d < this.dim; d++) qn += q[d]! * q[d]!;
    qn = Math.sqrt(qn);
    if (qn === 0) return [];
    const keep = Math.max(limit, 100);
    // Top `keep` by a binary min-heap in typed arrays: the heap is touched only when a row beats its minimum.
    const heapScore = new Float64Array(keep);
    const heapRow = new Int32Array(keep);
    let heapSize = 0;
    const dim = this.dim;
    const m = this.matrix;
    const rows = this.rowItem.length;
    for (let r = 0; r < rows; r++) {
      if (this.rowItem[r] === self || (style !== undefined && this.rowStyle[r] === style)) continue;
      const base = r * dim;
      let d0 = 0;
      let d1 = 0;
      let d2 = 0;
      let d3 = 0;
      let d = 0;
      for (; d + 3 < dim; d += 4) {
        d0 += q[d]! * m[base + d]!;
        d1 += q[d + 1]! * m[base + d + 1]!;
        d2 += q[d + 2]! * m[base + d + 2]!;
        d3 += q[d + 3]! * m[base + d + 3]!;
      }
      for (; d < dim; d++) d0 += q[d]! * m[base + d]!;
      const score = (d0 + d1 + d2 + d3) / qn;
      if (heapSize < keep) {
        // Sift up.
        let i = heapSize++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (heapScore[parent]! <= score) break;
          heapScore[i] = heapScore[parent]!;
          heapRow[i] = heapRow[parent]!;
          i = parent;
        }
        heapScore[i] = score;
        heapRow[i] = r;
      } else if (score > heapScore[0]!) {
        // Replace the minimum and sift down.
        let i = 0;
        for (;;) {
          const left = 2 * i + 1;
          if (left >= keep) break;
          const right = left + 1;
          const child = right < keep && heapScore[right]! < heapScore[left]! ? right : left;
          if (heapScore[child]! >= score) break;
          heapScore[i] = heapScore[child]!;
          heapRow[i] = heapRow[child]!;
          i = child;
        }
        heapScore[i] = score;
        heapRow[i] = r;
      }
    }
    const ranked: ScoredItem[] = [];
    for (let i = 0; i < heapSize; i++) ranked.push({ item: this.rowItem[heapRow[i]!]!, score: heapScore[i]! });
    ranked.sort((x, y) => y.score - x.score || x.item - y.item);
    if (this.cache.size >= this.cacheSize) this.cache.clear();
    this.cache.set(key, { limit: keep, ranked });
    return ranked.slice(0, limit);
  }

  private ensureBuilt(): void {
    if (this.builtVersion === this.catalog.version) return;
    const vectors: { item: number; v: number[]; style: string | undefined }[] = [];
    let dim = 0;
    this.catalog.forEachProduct((p) => {
      const v = p.image_vector;
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) return;
      if (dim === 0) dim = v.length;
      if (v.length !== dim) return;
      vectors.push({ item: this.items.intern(p.refId), v: v as number[], style: styleOf(p.style_id) });
    });
    this.dim = dim;
    this.matrix = new Float32Array(vectors.length * dim);
    this.rowItem = new Int32Array(vectors.length);
    this.rowStyle = [];
    this.rowOf = new Map();
    this.rowsOfStyle = new Map();
    vectors.forEach(({ item, v, style }, r) => {
      let n = 0;
      for (const x of v) n += x * x;
      n = Math.sqrt(n) || 1;
      for (let d = 0; d < dim; d++) this.matrix[r * dim + d] = v[d]! / n;
      this.rowItem[r] = item;
      this.rowStyle.push(style);
      this.rowOf.set(item, r);
      if (style !== undefined) {
        let list = this.rowsOfStyle.get(style);
        if (!list) this.rowsOfStyle.set(style, (list = []));
        list.push(r);
      }
    });
    this.cache.clear();
    this.builtVersion = this.catalog.version;
  }
}
