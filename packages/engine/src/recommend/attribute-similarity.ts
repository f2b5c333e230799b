/**
 * "Similar Attributes": products sharing weighted attribute features with the seed.
 *
 * Features of a product (weights in {@link ATTRIBUTE_WEIGHTS}):
 * - category: `search_category`, `category` and each entry of `categories` (deeper path levels weigh more);
 * - brand, type (`brand`, `type`);
 * - price band: the bucket of `price` (or `sale_price`) on a ×1.5 logarithmic scale;
 * - title words: lower-cased words of `title` / `name` of at least 3 letters, minus stop words;
 * - custom attributes: every other top-level string/number/boolean field (short values), and every
 *   key/value of an `attributes` object.
 * A feature shared by many products says little, so each weight is multiplied by an IDF factor
 * `log(1 + N / df)`. The score of a candidate is the sum over shared features.
 *
 * The index (feature → products) is built lazily from the catalog and rebuilt when `catalog.version`
 * changes. Posting lists longer than `maxPosting` are scanned only up to that length (the first
 * products in catalog order) to bound a look-up on very large catalogs; results are cached per seed
 * until the next rebuild.
 * @module
 */
import type { CatalogView, Product } from '../types.js';
import type { Interner } from './interner.js';
import type { ScoredItem } from './popularity.js';

/** Documented feature weights of the attribute similarity. */
export const ATTRIBUTE_WEIGHTS = {
  category: 3,
  brand: 2,
  type: 2,
  priceBand: 1,
  titleWord: 1,
  customAttribute: 0.5,
} as const;

/** Fields that are not attributes (identity, media, stock, or handled above). */
const NOT_ATTRIBUTES = new Set([
  'refId', 'title', 'name', 'description', 'image_vector', 'style_id', 'availability', 'price', 'sale_price', 'org_price',
  'retailPrice', 'search_category', 'category', 'categories', 'categoryPathRaw', 'brand', 'type', 'url', 'image', 'images',
  'attributes', 'ratings', 'overallRating', 'popularity', 'crawlTimestamp', 'sku', 'pid', 'currency', 'purchaseLines',
  'unitsSold', 'distinctCustomers', 'height',
]);

const STOP_WORDS = new Set(['the', 'and', 'for', 'with', 'of', 'set', 'in', 'on', 'to', 'by', 'from', 'a', 'an', 'or', 'pack', 'new']);

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

function norm(v: unknown): string | undefined {
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    return s === '' ? undefined : s;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The weighted features of a product (pure; exported for tests and docs). */
export function productFeatures(p: Product): Map<string, number> {
  const f = new Map<string, number>();
  const put = (key: string, w: number): void => {
    f.set(key, Math.max(f.get(key) ?? 0, w));
  };
  for (const field of ['search_category', 'category'] as const) {
    const c = norm(p[field]);
    if (c) put(`c:${c}`, ATTRIBUTE_WEIGHTS.category);
  }
  if (Array.isArray(p.categories)) {
    const n = p.categories.length;
    p.categories.forEach((c, i) => {
      const v = norm(c);
      // Deeper levels are more specific: the leaf weighs the full category weight, the root a third.
      if (v) put(`c:${v}`, ATTRIBUTE_WEIGHTS.category * ((i + 1) / n) ** 0.6);
    });
  }
  const brand = norm(p.brand);
  if (brand) put(`b:${brand}`, ATTRIBUTE_WEIGHTS.brand);
  const type = norm(p.type);
  if (type) put(`t:${type}`, ATTRIBUTE_WEIGHTS.type);
  const price = num(p.price) ?? num(p.sale_price);
  if (price !== undefined && price > 0) put(`p:${Math.floor(Math.log(price) / Math.log(1.5))}`, ATTRIBUTE_WEIGHTS.priceBand);
  const title = typeof p.title === 'string' ? p.title : typeof p.name === 'string' ? p.name : '';
  for (const word of title.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length >= 3 && !STOP_WORDS.has(word)) put(`w:${word}`, ATTRIBUTE_WEIGHTS.titleWord);
  }
  for (const [key, value] of Object.entries(p)) {
    if (NOT_ATTRIBUTES.has(key)) continue;
    const v = norm(value);
    if (v !== undefined && v.length <= 60) put(`a:${key}=${v}`, ATTRIBUTE_WEIGHTS.customAttribute);
  }
  if (typeof p.attributes === 'object' && p.attributes !== null && !Array.isArray(p.attributes)) {
    for (const [key, value] of Object.entries(p.attributes as Record<string, unknown>)) {
      const v = norm(value);
      if (v !== undefined && v.length <= 60) put(`a:${key.toLowerCase()}=${v}`, ATTRIBUTE_WEIGHTS.customAttribute);
    }
  }
  return f;
}

/** The lazily built feature index of one catalog version, in compressed-row typed arrays. */
export class AttributeSimilarity {
  private builtVersion = -1;
  /** Row of each interned item id (-1: not in the index). */
  private rowOf = new Int32Array(0);
  private rowItem = new Int32Array(0);
  /** Features of row r: featIds/featWeights[featStart[r] .. featStart[r+1]). */
  private featStart = new Int32Array(1);
  private featIds = new Int32Array(0);
  private featWeights = new Float32Array(0);
  /** Rows of feature f with their weight: postRows/postWeights[postStart[f] .. postStart[f+1]). */
  private postStart = new Int32Array(1);
  private postRows = new Int32Array(0);
  private postWeights = new Float32Array(0);
  private idf = new Float32Array(0);
  /** Per-row score accumulator, reused by every look-up (all zero between look-ups). */
  private scratch = new Float64Array(0);
  private readonly cache = new Map<number, { limit: number; ranked: ScoredItem[] }>();
  /** Feature keys → ids, kept across rebuilds so that rows of unchanged products can be copied. */
  private readonly featureIds = new Map<string, number>();
  /** Row of each product object in the current build (a rebuild copies unchanged products' features). */
  private rowOfProduct = new WeakMap<Product, number>();

  constructor(private readonly catalog: CatalogView, private readonly items: Interner, readonly maxPosting = 5000, readonly cacheSize = 10_000) {}

  /** Products most similar to `seed` (interned id), best first, at most `limit`. */
  similar(seed: number, limit: number): ScoredItem[] {
    this.ensureBuilt();
    const cached = this.cache.get(seed);
    if (cached && cached.limit >= limit) return cached.ranked.slice(0, limit);
    const row = seed < this.rowOf.length ? this.rowOf[seed]! : -1;
    if (row < 0) return [];
    const touched: number[] = [];
    const scratch = this.scratch;
    for (let k = this.featStart[row]!, end = this.featStart[row + 1]!; k < end; k++) {
      const f = this.featIds[k]!;
      const w = this.featWeights[k]!;
      const idf = this.idf[f]!;
      const from = this.postStart[f]!;
      const to = Math.min(this.postStart[f + 1]!, from + this.maxPosting);
      if (to - from < 2) continue;
      for (let p = from; p < to; p++) {
        const other = this.postRows[p]!;
        if (other === row) continue;
        if (scratch[other] === 0) touched.push(other);
        scratch[other]! += idf * Math.min(w, this.postWeights[p]!);
      }
    }
    const ranked: ScoredItem[] = [];
    for (const r of touched) {
      ranked.push({ item: this.rowItem[r]!, score: scratch[r]! });
      scratch[r] = 0;
    }
    ranked.sort((x, y) => y.score - x.score || x.item - y.item);
    const keep = Math.max(limit, 200);
    const kept = ranked.length > keep ? ranked.slice(0, keep) : ranked;
    if (this.cache.size >= this.cacheSize) this.cache.clear();
    this.cache.set(seed, { limit: keep, ranked: kept });
    return kept.slice(0, limit);
  }

  private ensureBuilt(): void {
    if (this.builtVersion === this.catalog.version) return;
    // A catalog change usually touches a few products: rows of product objects already indexed are
    // copied from the previous build; only new objects go through feature extraction.
    const featureIds = this.featureIds;
    const oldRowOf = this.rowOfProduct;
    const oldStart = this.featStart;
    const oldIds = this.featIds;
    const oldWeights = this.featWeights;
    const rowOfProduct = new WeakMap<Product, number>();
    const rowItems: number[] = [];
    const starts: number[] = [0];
    const ids: number[] = [];
    const weights: number[] = [];
    const df: number[] = new Array<number>(featureIds.size).fill(0);
    this.catalog.forEachProduct((p) => {
      rowOfProduct.set(p, rowItems.length);
      rowItems.push(this.items.intern(p.refId));
      const old = oldRowOf.get(p);
      if (old !== undefined) {
        for (let k = oldStart[old]!, end = oldStart[old + 1]!; k < end; k++) {
          const f = oldIds[k]!;
          df[f]!++;
          ids.push(f);
          weights.push(oldWeights[k]!);
        }
      } else {
        for (const [key, w] of productFeatures(p)) {
          let f = featureIds.get(key);
          if (f === undefined) {
            f = featureIds.size;
            featureIds.set(key, f);
            df.push(0);
          }
          df[f]!++;
          ids.push(f);
          weights.push(w);
        }
      }
      starts.push(ids.length);
    });
    this.rowOfProduct = rowOfProduct;
    const rows = rowItems.length;
    const features = df.length;
    this.rowItem = Int32Array.from(rowItems);
    this.rowOf = new Int32Array(this.items.size).fill(-1);
    rowItems.forEach((item, r) => (this.rowOf[item] = r));
    this.featStart = Int32Array.from(starts);
    this.featIds = Int32Array.from(ids);
    this.featWeights = Float32Array.from(weights);
    // Postings by counting sort: rows of each feature, in catalog order.
    this.postStart = new Int32Array(features + 1);
    for (let f = 0; f < features; f++) this.postStart[f + 1] = this.postStart[f]! + df[f]!;
    const fill = this.postStart.slice(0, features);
    this.postRows = new Int32Array(ids.length);
    this.postWeights = new Float32Array(ids.length);
    for (let r = 0; r < rows; r++) {
      for (let k = starts[r]!; k < starts[r + 1]!; k++) {
        const at = fill[ids[k]!]!++;
        this.postRows[at] = r;
        this.postWeights[at] = weights[k]!;
      }
    }
    this.idf = new Float32Array(features);
    for (let f = 0; f < features; f++) this.idf[f] = df[f]! > 0 ? Math.log(1 + rows / df[f]!) : 0;
    this.scratch = new Float64Array(rows);
    this.cache.clear();
    this.builtVersion = this.catalog.version;
  }
}
