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
 * The index (feature → products) is built from the catalog and rebuilt when `catalog.version`
 * changes — in the request for a small catalog, otherwise in the background in time slices
 * ({@link BackgroundIndex}); a rebuild reuses the rows of unchanged products (by revision). Until it is
 * swapped in, look-ups answer from the previous index with products the catalog no longer has
 * dropped (before the first index exists: nothing). Posting lists keep at most `maxPosting` products
 * (the first in catalog order; the IDF counts them all) to bound a look-up on very large catalogs and
 * the index's memory; results are cached per seed and index.
 * @module
 */
import { StringMap } from '../catalog/columns/string-map.js';
import { Growable } from '../catalog/columns/shared-arrays.js';
import { DEFAULT_FIELD_ROLES, type FieldRoles } from '../config.js';
import type { CatalogView, Product, ProductList } from '../types.js';
import { BackgroundIndex, WIDE_STEP, compactRevisionsSteps, rowsByRevision, type BuildSteps, type RowRevisions } from './background-build.js';
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

/** Field roles with the defaults filled in (see {@link FieldRoles}). */
export interface ResolvedFieldRoles {
  category: readonly string[];
  brand: string;
  type: string;
  price: string;
  /** The image URL field: never an attribute (a URL is unique per product). */
  image: string;
  /** Listed attribute fields, or undefined: every other top-level text/boolean field (see {@link FieldRoles.attributes}). */
  attributes: readonly string[] | undefined;
  ignore: ReadonlySet<string>;
}

/**
 * Fields of the spec's product that describe identity, text, media, stock, price or rating — never an
 * attribute two products share to be alike, whatever the roles say (the spec's names only).
 */
const SPEC_NON_ATTRIBUTES: ReadonlySet<string> = new Set([
  'refId', 'title', 'description', 'image_vector', 'style_id', 'availability', 'price', 'sale_price', 'org_price', 'ratings', 'attributes',
]);

/** Fills in the defaults of `settings.fieldRoles`. */
export function resolveFieldRoles(roles: FieldRoles | undefined): ResolvedFieldRoles {
  const category = roles?.category ?? DEFAULT_FIELD_ROLES.category;
  return {
    category: Array.isArray(category) ? category : [category],
    brand: roles?.brand ?? DEFAULT_FIELD_ROLES.brand,
    type: roles?.type ?? DEFAULT_FIELD_ROLES.type,
    price: roles?.price ?? DEFAULT_FIELD_ROLES.price,
    image: roles?.image ?? DEFAULT_FIELD_ROLES.image,
    attributes: roles?.attributes,
    ignore: new Set(roles?.ignore ?? []),
  };
}

/** Whether a value change of `field` can change the features of a product under `roles`. */
export function featureReads(roles: ResolvedFieldRoles, field: string): boolean {
  if (roles.ignore.has(field)) return false;
  if (field === roles.price || field === roles.brand || field === roles.type || roles.category.includes(field)) return true;
  if (roles.attributes !== undefined) return roles.attributes.includes(field);
  // Auto attributes are text and booleans; a value patch changes numbers only.
  return false;
}

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

/**
 * Whether a feature key is a refinement (price band, title word): it adds to the score of products that
 * share an attribute, and never makes two products similar on its own.
 */
export function isRefinement(key: string): boolean {
  return key.startsWith('p:') || key.startsWith('w:');
}

/** The value of a field: top-level, or `attributes.<key>` inside an `attributes` object. */
function fieldValue(p: Product, field: string): unknown {
  if (field in p) return p[field];
  if (field.startsWith('attributes.') && typeof p.attributes === 'object' && p.attributes !== null && !Array.isArray(p.attributes)) {
    return (p.attributes as Record<string, unknown>)[field.slice('attributes.'.length)];
  }
  return undefined;
}

/**
 * The weighted features of a product under the website's field roles (pure; exported for tests and
 * docs). Keys: `c:` category, `b:` brand, `t:` type, `a:<field>=` attribute (the anchors: two products
 * are similar only when they share one), `p:` price band and `w:` title word (refinements).
 */
export function productFeatures(p: Product, roles: ResolvedFieldRoles = resolveFieldRoles(undefined)): Map<string, number> {
  const f = new Map<string, number>();
  const put = (key: string, w: number): void => {
    f.set(key, Math.max(f.get(key) ?? 0, w));
  };
  const roleFields = new Set<string>([...roles.category, roles.brand, roles.type, roles.price, roles.image]);
  for (const field of roles.category) {
    if (roles.ignore.has(field)) continue;
    const value = fieldValue(p, field);
    if (Array.isArray(value)) {
      const n = value.length;
      value.forEach((c, i) => {
        const v = norm(c);
        // A path, root first: deeper levels are more specific (the leaf weighs the full category weight, the root a third).
        if (v) put(`c:${v}`, ATTRIBUTE_WEIGHTS.category * ((i + 1) / n) ** 0.6);
      });
    } else {
      const c = norm(value);
      if (c) put(`c:${c}`, ATTRIBUTE_WEIGHTS.category);
    }
  }
  const brand = roles.ignore.has(roles.brand) ? undefined : norm(fieldValue(p, roles.brand));
  if (brand) put(`b:${brand}`, ATTRIBUTE_WEIGHTS.brand);
  const type = roles.ignore.has(roles.type) ? undefined : norm(fieldValue(p, roles.type));
  if (type) put(`t:${type}`, ATTRIBUTE_WEIGHTS.type);
  const price = roles.ignore.has(roles.price) ? undefined : num(fieldValue(p, roles.price));
  if (price !== undefined && price > 0) put(`p:${Math.floor(Math.log(price) / Math.log(1.5))}`, ATTRIBUTE_WEIGHTS.priceBand);
  const title = typeof p.title === 'string' ? p.title : '';
  for (const word of title.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length >= 3 && !STOP_WORDS.has(word)) put(`w:${word}`, ATTRIBUTE_WEIGHTS.titleWord);
  }
  const attribute = (field: string, value: unknown, listed: boolean): void => {
    // Listed fields may be numbers; found ones only text and booleans (counts, sizes and times rarely mean "alike").
    if (!listed && typeof value !== 'string' && typeof value !== 'boolean') return;
    const v = norm(value);
    if (v !== undefined && v.length <= 60) put(`a:${field.toLowerCase()}=${v}`, ATTRIBUTE_WEIGHTS.customAttribute);
  };
  if (roles.attributes !== undefined) {
    for (const field of roles.attributes) {
      if (roles.ignore.has(field)) continue;
      const value = fieldValue(p, field);
      if (Array.isArray(value)) for (const v of value) attribute(field, v, true);
      else attribute(field, value, true);
    }
    return f;
  }
  for (const [key, value] of Object.entries(p)) {
    if (SPEC_NON_ATTRIBUTES.has(key) || roleFields.has(key) || roles.ignore.has(key)) continue;
    attribute(key, value, false);
  }
  if (typeof p.attributes === 'object' && p.attributes !== null && !Array.isArray(p.attributes)) {
    for (const [key, value] of Object.entries(p.attributes as Record<string, unknown>)) {
      if (!roles.ignore.has(`attributes.${key}`)) attribute(`attributes.${key}`, value, false);
    }
  }
  return f;
}

/** The feature index of one catalog version, in compressed-row typed arrays (immutable once built). */
export interface AttributeIndex {
  readonly version: number;
  /** Row of each interned item id (-1 or beyond the end: not in the index). */
  readonly rowOf: Int32Array;
  readonly rowItem: Int32Array;
  /** Features of row r with their weights, as pair ids (see {@link FeaturePairs}): featPairs[featStart[r] .. featStart[r+1]). */
  readonly featStart: Int32Array;
  readonly featPairs: PairIds;
  /** The feature and the weight code of each pair id (views of the pairs as they were when the index was built). */
  readonly pairFeature: Int32Array;
  readonly pairCode: Uint16Array;
  /**
   * The first rows (catalog order) of feature f with their weight code, at most `maxPosting`:
   * postRows/postWeights[postStart[f] .. postStart[f+1]). A look-up never reads further, so a longer
   * list is not kept (at 1M products, 3.8M entries instead of 10.8M: ~35 MB).
   */
  readonly postStart: Int32Array;
  readonly postRows: Int32Array;
  readonly postWeights: WeightCodes;
  /** The weight of each code (a view of the table as it was when the index was built). */
  readonly weights: Float32Array;
  readonly idf: Float32Array;
  readonly cache: Map<number, { limit: number; ranked: ScoredItem[] }>;
  /** Revision of each row's product (see product-store.ts): a rebuild copies unchanged products' features. */
  readonly rowRevisions: RowRevisions;
  /** 1 for the features that make two products similar (attributes), 0 for refinements (price band, title words, common found attributes). */
  readonly anchor: Uint8Array;
  /** The field roles the features were read under (rows are reused only under the same roles). */
  readonly rolesKey: string;
}

/**
 * The distinct feature weights met, each stored once: an index keeps a code per posting entry of one
 * byte while the table holds at most 256 weights, else two, instead of a 4-byte float (a row's entries
 * name theirs through their {@link FeaturePairs} id). Weights come from few values (the documented
 * weights and the category path levels' fractions), so every score stays exact. Codes are kept across
 * rebuilds (rows of unchanged products are copied with their pairs); the table only grows. Past {@link WeightTable.capacity} distinct weights (category paths of
 * hundreds of levels), a new weight takes the code of the nearest weight already met.
 */
export class WeightTable {
  static readonly capacity = 65_536;
  private values = new Float32Array(64);
  private readonly codes = new Map<number, number>();

  /** Number of codes in use. */
  get size(): number {
    return this.codes.size;
  }

  /** The code of weight `w` (as a float32), adding it when new and there is room. */
  code(w: number): number {
    const f = Math.fround(w);
    const known = this.codes.get(f);
    if (known !== undefined) return known;
    const size = this.codes.size;
    if (size >= WeightTable.capacity) return this.nearest(f);
    if (size === this.values.length) {
      const grown = new Float32Array(Math.min(WeightTable.capacity, size * 2));
      grown.set(this.values);
      this.values = grown;
    }
    this.values[size] = f;
    this.codes.set(f, size);
    return size;
  }

  /** The weight of each code: a view of the codes in use (codes given later are beyond its end). */
  view(): Float32Array {
    return this.values.subarray(0, this.codes.size);
  }

  private nearest(f: number): number {
    let best = 0;
    for (let c = 1; c < this.codes.size; c++) if (Math.abs(this.values[c]! - f) < Math.abs(this.values[best]! - f)) best = c;
    return best;
  }
}

/** Weight codes of an index: one byte each while the table holds at most 256 weights, else two. */
export type WeightCodes = Uint8Array | Uint16Array;

/** Pair ids of an index's rows: two bytes each while the pairs number at most 65,536, else four. */
export type PairIds = Uint16Array | Int32Array;

/**
 * The (feature, weight code) pairs met, each numbered once: a row lists its pairs, one id saying both
 * which feature and which weight (two bytes an entry while at most 65,536 pairs, instead of a four-byte
 * feature id and a weight code: 16 MB less at 1M products). A feature nearly always weighs the same in
 * every product (a title word, a brand, a category at the same path level), so the pairs are about as
 * many as the features (1,656 in the generated 1M catalog). Kept across rebuilds with the feature ids
 * (copied rows keep their pairs); only grows.
 */
export class FeaturePairs {
  private readonly ids = new Map<number, number>();
  private features = new Int32Array(64);
  private codes = new Uint16Array(64);

  /** Number of pair ids in use. */
  get size(): number {
    return this.ids.size;
  }

  /** The id of feature `feature` with weight code `code` (below {@link WeightTable.capacity}), numbered when new. */
  id(feature: number, code: number): number {
    const key = feature * WeightTable.capacity + code;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const id = this.ids.size;
    if (id === this.features.length) {
      const features = new Int32Array(id * 2);
      features.set(this.features);
      this.features = features;
      const codes = new Uint16Array(id * 2);
      codes.set(this.codes);
      this.codes = codes;
    }
    this.features[id] = feature;
    this.codes[id] = code;
    this.ids.set(key, id);
    return id;
  }

  /** The feature of each pair id in use (a view: ids given later are beyond its end). */
  featureView(): Int32Array {
    return this.features.subarray(0, this.size);
  }

  /** The weight code of each pair id in use (a view, as {@link featureView}). */
  codeView(): Uint16Array {
    return this.codes.subarray(0, this.size);
  }
}

/**
 * Pair ids converted per step by {@link pairIdsOf}: `set` between arrays of two element types converts
 * element by element, and the whole of a 1M catalog's ~20M ids in one call held the loop 89 ms
 * (docs/benchmarks.md, "Stalls at 1M named by a profile").
 */
const PAIR_COPY_STEP = 1 << 16;

/**
 * The filled part of `ids` as an array of its own, of two bytes an id when the `pairs` in use fit, else
 * four; copied 65,536 ids per step (the four-byte case of the tests takes several).
 */
function* pairIdsOf(ids: Growable<Int32Array>, pairs: number): BuildSteps<PairIds> {
  const filled = ids.view();
  const out: PairIds = pairs > 65_536 ? new Int32Array(filled.length) : new Uint16Array(filled.length);
  for (let at = 0; at < filled.length; at += PAIR_COPY_STEP) {
    out.set(filled.subarray(at, Math.min(at + PAIR_COPY_STEP, filled.length)), at);
    yield;
  }
  return out;
}

/** Steps between two yields of a build (a few hundred products). */
const CHUNK = 64;

/** "Similar Attributes" over the catalog: an {@link AttributeIndex} kept up to date off the request path. */
export class AttributeSimilarity {
  /** The index kept up to date with the catalog (refresh, status, whenReady). */
  readonly index: BackgroundIndex<AttributeIndex>;
  /** Feature keys → ids, kept across rebuilds so that rows of unchanged products can be copied. */
  /**
   * Split (`StringMap`): hundreds of thousands of features at 1M (title words), and a JS Map's growth
   * rehashes every key in one go, a step of 43 ms in a replace's background rebuild.
   */
  private readonly featureIds = new StringMap<number>();
  private readonly featureKeys: string[] = [];
  /** Weight codes and (feature, weight code) pairs, kept across rebuilds with the feature ids (copied rows keep their pairs). */
  private readonly weightTable = new WeightTable();
  private readonly pairs = new FeaturePairs();
  /**
   * Per-row score accumulator of the look-ups (all zero between look-ups), made at the first look-up and
   * shared by the indexes that follow (grown when one has more rows): not one per index (8 MB at 1M), nor
   * any before a look-up.
   */
  private scratch = new Float64Array(0);
  private roles: ResolvedFieldRoles = resolveFieldRoles(undefined);
  private rolesKey = JSON.stringify(DEFAULT_FIELD_ROLES);

  /**
   * @param syncLimit catalogs of at most this many live products are indexed in the request (a few ms);
   *   larger ones in the background.
   */
  constructor(
    private readonly catalog: CatalogView,
    private readonly items: Interner,
    readonly maxPosting = 5000,
    readonly cacheSize = 10_000,
    syncLimit = 1000,
  ) {
    this.index = new BackgroundIndex(
      catalog, (previous, products, version) => this.build(previous, products, version), syncLimit, undefined,
      // Stock and rating updates (value patches of fields no feature reads) leave the index as it was.
      (previous, version) => (catalog.valuesOnlyChangedSince?.(previous.version, (f) => featureReads(this.roles, f)) ? { ...previous, version } : undefined),
    );
  }

  /**
   * The website's field roles (`settings.fieldRoles`). A change rebuilds the index (the current one
   * answers meanwhile); the same roles again change nothing.
   */
  setFieldRoles(roles: FieldRoles | undefined): void {
    const key = JSON.stringify(roles ?? DEFAULT_FIELD_ROLES);
    if (key === this.rolesKey) return;
    this.rolesKey = key;
    this.roles = resolveFieldRoles(roles);
    this.index.invalidate();
    this.index.refresh();
  }

  /** Resolves when the index reflects the current catalog version (test hook; starts the build if needed). */
  whenReady(): Promise<void> {
    return this.index.whenReady();
  }

  /** Whether look-ups answer from an index of the current catalog version. */
  get upToDate(): boolean {
    return this.index.upToDate;
  }

  /** Products most similar to `seed` (interned id), best first, at most `limit`. */
  similar(seed: number, limit: number): ScoredItem[] {
    const ix = this.index.get();
    if (ix === undefined) return [];
    const ranked = this.rank(ix, seed, limit);
    if (ix.version === this.catalog.version) return ranked;
    // A previous index while the new one is built: never return products the catalog no longer has.
    return ranked.filter((r) => this.catalog.has(this.items.name(r.item)));
  }

  private rank(ix: AttributeIndex, seed: number, limit: number): ScoredItem[] {
    const cached = ix.cache.get(seed);
    if (cached && cached.limit >= limit) return cached.ranked.slice(0, limit);
    const row = seed < ix.rowOf.length ? ix.rowOf[seed]! : -1;
    if (row < 0) return [];
    const touched: number[] = [];
    if (this.scratch.length < ix.rowItem.length) this.scratch = new Float64Array(ix.rowItem.length);
    const scratch = this.scratch;
    // Pass 1: shared attributes make candidates; pass 2: refinements (price band, title words) add to them only.
    for (let pass = 1; pass >= 0; pass--) {
      for (let k = ix.featStart[row]!, end = ix.featStart[row + 1]!; k < end; k++) {
        const pair = ix.featPairs[k]!;
        const f = ix.pairFeature[pair]!;
        if (ix.anchor[f] !== pass) continue;
        const w = ix.weights[ix.pairCode[pair]!]!;
        const idf = ix.idf[f]!;
        const from = ix.postStart[f]!;
        const to = ix.postStart[f + 1]!;
        if (to - from < 2) continue;
        for (let p = from; p < to; p++) {
          const other = ix.postRows[p]!;
          if (other === row) continue;
          if (scratch[other] === 0) {
            if (pass === 0) continue;
            touched.push(other);
          }
          scratch[other]! += idf * Math.min(w, ix.weights[ix.postWeights[p]!]!);
        }
      }
    }
    const ranked: ScoredItem[] = [];
    for (const r of touched) {
      ranked.push({ item: ix.rowItem[r]!, score: scratch[r]! });
      scratch[r] = 0;
    }
    ranked.sort((x, y) => y.score - x.score || x.item - y.item);
    const keep = Math.max(limit, 200);
    const kept = ranked.length > keep ? ranked.slice(0, keep) : ranked;
    if (ix.cache.size >= this.cacheSize) ix.cache.clear();
    ix.cache.set(seed, { limit: keep, ranked: kept });
    return kept.slice(0, limit);
  }

  /**
   * Builds the index of `products` (catalog `version`). A catalog change usually touches a few
   * products: rows of product revisions already indexed are copied from `previous`; only new revisions
   * are read (one product at a time, kept only as its features) and go through feature extraction.
   */
  private *build(previous: AttributeIndex | undefined, products: ProductList, version: number): BuildSteps<AttributeIndex> {
    const featureIds = this.featureIds;
    const roles = this.roles;
    const rolesKey = this.rolesKey;
    // Rows read under other roles are read again.
    const oldRowOf = previous?.rolesKey === rolesKey ? yield* rowsByRevision(previous.rowRevisions) : undefined;
    const rows = products.length;
    const rowRevisions = new Float64Array(rows);
    const rowItem = new Int32Array(rows);
    const featStart = new Int32Array(rows + 1);
    // Sized from the previous build (features per product), so that a rebuild never doubles (copies) a
    // large array in one step.
    const expected = previous !== undefined && previous.rowItem.length > 0
      ? Math.ceil((previous.featPairs.length / previous.rowItem.length) * rows * 1.1) + 1024
      : rows * 16;
    // Growable typed arrays (no intermediate JS arrays); the result is a trimmed copy of the filled part
    // (the guessed capacity, 16 features a row, held a third more than the generated 1M catalog needs).
    const ids = new Growable(Int32Array, Math.max(1024, expected));
    const weightTable = this.weightTable;
    const pairs = this.pairs;
    let df = new Int32Array(Math.max(16, featureIds.size));
    for (let r = 0; r < rows; r++) {
      if (r % CHUNK === CHUNK - 1) yield;
      const revision = products.revision(r);
      rowRevisions[r] = revision;
      const old = oldRowOf?.get(revision);
      if (previous !== undefined && old !== undefined) {
        // The same product version: its refId (item) and features as indexed before.
        rowItem[r] = previous.rowItem[old]!;
        for (let k = previous.featStart[old]!, end = previous.featStart[old + 1]!; k < end; k++) {
          const pair = previous.featPairs[k]!;
          df[previous.pairFeature[pair]!]!++;
          ids.push(pair);
        }
      } else {
        const p = products.get(r);
        rowItem[r] = this.items.intern(p.refId);
        for (const [key, w] of productFeatures(p, roles)) {
          let f = featureIds.get(key);
          if (f === undefined) {
            f = featureIds.size;
            featureIds.set(key, f);
            this.featureKeys.push(key);
          }
          if (f >= df.length) {
            const grown = new Int32Array(Math.max(f + 1, df.length * 2));
            grown.set(df);
            df = grown;
          }
          df[f]!++;
          ids.push(pairs.id(f, weightTable.code(w)));
        }
      }
      featStart[r + 1] = ids.length;
    }
    const features = featureIds.size;
    // Two bytes a pair id while there are at most 65,536 pairs (1,656 in the generated 1M catalog: title
    // words, attribute values, categories, each of one weight), else four.
    const featPairs: PairIds = yield* pairIdsOf(ids, pairs.size);
    const pairFeature = pairs.featureView();
    const pairCode = pairs.codeView();
    yield;
    const rowOf = new Int32Array(this.items.size).fill(-1);
    for (let r = 0; r < rows; r++) {
      rowOf[rowItem[r]!] = r;
      if ((r & WIDE_STEP) === WIDE_STEP) yield;
    }
    yield;
    // Postings by counting sort: the first `maxPosting` rows of each feature, in catalog order.
    const postStart = new Int32Array(features + 1);
    for (let f = 0; f < features; f++) postStart[f + 1] = postStart[f]! + Math.min(df[f] ?? 0, this.maxPosting);
    const fill = postStart.slice(0, features);
    const entries = postStart[features]!;
    const postRows = new Int32Array(entries);
    // One byte a code while the table holds at most 256 weights (the documented weights and short
    // category paths: every catalog measured so far), else two.
    const postWeights: WeightCodes = weightTable.size <= 256 ? new Uint8Array(entries) : new Uint16Array(entries);
    for (let r = 0; r < rows; r++) {
      if (r % (CHUNK * 8) === CHUNK * 8 - 1) yield;
      for (let k = featStart[r]!; k < featStart[r + 1]!; k++) {
        const pair = featPairs[k]!;
        const f = pairFeature[pair]!;
        const at = fill[f]!;
        if (at === postStart[f + 1]) continue;
        fill[f] = at + 1;
        postRows[at] = r;
        postWeights[at] = pairCode[pair]!;
      }
    }
    yield;
    const idf = new Float32Array(features);
    const anchor = new Uint8Array(features);
    const found = roles.attributes === undefined;
    for (let f = 0; f < features; f++) {
      // Hundreds of thousands of features at 1M (title words, attribute values): in steps too.
      if ((f & 4095) === 4095) yield;
      const n = df[f] ?? 0;
      idf[f] = n > 0 ? Math.log(1 + rows / n) : 0;
      const key = this.featureKeys[f]!;
      // A found (not listed) attribute that most of the catalog shares (a currency, a shop-wide flag) says
      // nothing about likeness: it only refines. Role-named fields are the website's own choice.
      anchor[f] = isRefinement(key) || (found && key.startsWith('a:') && n * 2 > rows) ? 0 : 1;
    }
    const compactRowRevisions = yield* compactRevisionsSteps(rowRevisions);
    return {
      version, rowOf, rowItem, featStart, featPairs, pairFeature, pairCode, postStart, postRows, postWeights, weights: weightTable.view(), idf,
      cache: new Map(), rowRevisions: compactRowRevisions, anchor, rolesKey,
    };
  }
}
