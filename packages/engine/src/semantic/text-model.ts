/**
 * aisle's own semantic model, trained per website on its catalog with no download: a word space built
 * by random indexing (Kanerva, Sahlgren: "An introduction to random indexing", 2005).
 *
 * Every word gets a fixed sparse random "index vector" (a few ±1 entries, derived from a hash of the
 * word, so it needs no storage and is the same in every training). A word's context vector is the sum
 * of the index vectors of the words it shares a product with, weighted by their IDF: two words used with
 * the same company ("case" and "cover" both next to "iphone", "back", "mobile") get close vectors even
 * when they never appear together — the second-order similarity that latent semantic analysis finds,
 * at the cost of one pass over the catalog and with no matrix factorisation. A text (query or product)
 * embeds as the IDF-weighted sum of its words' context vectors, normalised. Random indexing was chosen
 * over a truncated SVD of TF-IDF because it is incremental by nature (each product only adds to the
 * vectors of its own words), runs in small time slices without a big matrix in memory, and its cost is
 * linear in the catalog's size; measured in docs/semantic-search.md.
 * @module
 */
import type { Steps } from '../catalog/steps.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { Product, ProductList } from '../types.js';
import type { Embedder } from './embedder.js';

/** The built-in model's id (`settings.semanticSearch.model`). */
export const TEXT_MODEL_ID = 'aisle-ri';

/** Shape of the built-in model. */
export interface TextModelOptions {
  /** Vector length (default 128). */
  dimensions?: number;
  /** Non-zero entries per index vector (default 8). */
  nonZeros?: number;
  /** Distinct words read per text, in order (default 48): bounds the work on long descriptions. */
  maxWordsPerText?: number;
  /** Most words that get a context vector, the most frequent first (default 262 144). */
  maxWords?: number;
  /** Words found in fewer products have no vector (default 2: a word of one product has no company). */
  minDocFreq?: number;
}

const DEFAULTS: Required<TextModelOptions> = { dimensions: 128, nonZeros: 8, maxWordsPerText: 48, maxWords: 262_144, minDocFreq: 2 };

/** Products processed between two yields of the training generator. */
const DOCS_PER_STEP = 64;

/** FNV-1a 32-bit hash of a string. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Adds `weight` × the index vector of `word` to `target` (positions and signs from a hash of the word). */
function addIndexVector(target: Float32Array, offset: number, word: string, weight: number, dims: number, nonZeros: number): void {
  let x = fnv1a(word) || 1;
  for (let k = 0; k < nonZeros; k++) {
    // xorshift32: a cheap deterministic stream per word.
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    target[offset + (x % dims)] += (x & 0x80000000) !== 0 ? -weight : weight;
  }
}

/** The text of one field of a product (a string, or the strings of an array). */
export function fieldText(product: Product, field: string): string {
  const v = (product as Record<string, unknown>)[field];
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.filter((item): item is string => typeof item === 'string').join(' \n ');
  return '';
}

/** The text of a product that the models read: the values of `fields` (strings, string arrays), in order. */
export function productText(product: Product, fields: readonly string[]): string {
  return fields.map((f) => fieldText(product, f)).filter((t) => t !== '').join(' \n ');
}

function distinctWords(text: string, max: number): string[] {
  const seen = new Set<string>();
  for (const w of tokenize(text)) {
    seen.add(w);
    if (seen.size >= max) break;
  }
  return [...seen];
}

/** A trained word space; embeds any text (see module doc). */
export class TextModel implements Embedder {
  readonly id = TEXT_MODEL_ID;

  constructor(
    /** Fingerprint of the training data (changes when the catalog's words change). */
    readonly version: string,
    readonly dimensions: number,
    private readonly rowOf: Map<string, number>,
    private readonly vectors: Float32Array,
    private readonly idf: Float32Array,
    private readonly maxWordsPerText: number,
  ) {}

  /** Number of words with a vector. */
  get words(): number {
    return this.rowOf.size;
  }

  /** @internal What the model is made of (its file: text-model-file.ts): words by row, vectors, IDFs. */
  parts(): { words: string[]; vectors: Float32Array; idf: Float32Array; maxWordsPerText: number } {
    const words: string[] = new Array(this.rowOf.size);
    for (const [word, row] of this.rowOf) words[row] = word;
    return { words, vectors: this.vectors, idf: this.idf, maxWordsPerText: this.maxWordsPerText };
  }

  /** Embeds one text: the IDF-weighted sum of its words' unit context vectors, normalised (zeros when no word is known). */
  embedOne(text: string): Float32Array {
    return this.embedWeighted([{ text, weight: 1 }]);
  }

  /**
   * Embeds a product from its fields, each word weighted by IDF × the highest weight of a field it is
   * in (the website's BM25F field weights: a title word says more about the product than a word deep in
   * its description). Heavier fields are read first, so the word cap keeps their words.
   */
  embedWeighted(parts: readonly { text: string; weight: number }[]): Float32Array {
    const dims = this.dimensions;
    const out = new Float32Array(dims);
    const wordWeight = new Map<string, number>();
    for (const { text, weight } of [...parts].sort((a, b) => b.weight - a.weight)) {
      if (!(weight > 0)) continue;
      for (const w of distinctWords(text, this.maxWordsPerText)) {
        if (!wordWeight.has(w)) {
          if (wordWeight.size >= this.maxWordsPerText) break;
          wordWeight.set(w, weight);
        }
      }
    }
    for (const [w, fieldWeight] of wordWeight) {
      const row = this.rowOf.get(w);
      if (row === undefined) continue;
      const weight = this.idf[row] * fieldWeight;
      const base = row * dims;
      for (let i = 0; i < dims; i++) out[i] += weight * this.vectors[base + i];
    }
    let norm = 0;
    for (let i = 0; i < dims; i++) norm += out[i] * out[i];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < dims; i++) out[i] *= inv;
    }
    return out;
  }

  embed(texts: readonly string[]): Float32Array[] {
    return texts.map((t) => this.embedOne(t));
  }
}

/** What a {@link TextModel} is made of (its file and the training worker's answer carry these). */
export interface TextModelParts {
  version: string;
  dimensions: number;
  /** The words with a vector, by row. */
  words: string[];
  /** Rows × dimensions. */
  vectors: Float32Array;
  idf: Float32Array;
  maxWordsPerText: number;
}

/** The model made of `parts`. */
export function textModelFromParts(parts: TextModelParts): TextModel {
  const rowOf = new Map(parts.words.map((w, row) => [w, row]));
  return new TextModel(parts.version, parts.dimensions, rowOf, parts.vectors, parts.idf, parts.maxWordsPerText);
}

/**
 * Trains a {@link TextModel} on the texts of `products` (read through `fields`). A generator that yields
 * every few products, so that `runInSlices` can run it without blocking the event loop (the engine
 * trains big catalogs on a worker thread instead: semantic/text-model-worker.ts).
 */
export function* trainTextModel(products: readonly Product[] | ProductList, fields: readonly string[], options: TextModelOptions = {}): Steps<TextModel> {
  // A product list decodes on read: each product is read once, for its text, and dropped.
  const productAt = Array.isArray(products) ? (d: number): Product => (products as readonly Product[])[d] : (d: number): Product => (products as ProductList).get(d);
  const trainer = new TextModelTrainer(options);
  for (let d = 0; d < products.length; d++) {
    trainer.add(productText(productAt(d), fields));
    if (d % DOCS_PER_STEP === 0) yield;
  }
  return yield* trainer.finish();
}

/**
 * The training of a {@link TextModel}: {@link add} each product's text in order (pass 1: its distinct
 * words, interned, and document frequencies), then {@link finish} (the words kept, pass 2: the context
 * vectors). Texts can be added as they come (a worker thread receives them in batches).
 */
export class TextModelTrainer {
  private readonly o: Required<TextModelOptions>;
  private readonly idOf = new Map<string, number>();
  private readonly words: string[] = [];
  private df = new Uint32Array(1024);
  private docWords = new Uint32Array(1024);
  private docStart = new Uint32Array(1025);
  private used = 0;
  private count = 0;

  constructor(options: TextModelOptions = {}) {
    this.o = { ...DEFAULTS, ...options };
  }

  /** Products added so far. */
  get size(): number {
    return this.count;
  }

  /** Pass 1 for the next product: its text's distinct words (at most `maxWordsPerText`). */
  add(text: string): void {
    const list = distinctWords(text, this.o.maxWordsPerText);
    if (this.used + list.length > this.docWords.length) this.docWords = grownTo(this.docWords, this.used + list.length);
    if (this.count + 2 > this.docStart.length) this.docStart = grownTo(this.docStart, this.count + 2);
    const { idOf, words } = this;
    for (const w of list) {
      let id = idOf.get(w);
      if (id === undefined) {
        id = words.length;
        idOf.set(w, id);
        words.push(w);
        if (id >= this.df.length) this.df = grownTo(this.df, id + 1);
      }
      this.df[id]++;
      this.docWords[this.used++] = id;
    }
    this.docStart[++this.count] = this.used;
  }

  /** The model of the texts added (in steps: see {@link trainTextModel}). */
  *finish(): Steps<TextModel> {
    const o = this.o;
    const dims = o.dimensions;
    const { words, df, docWords, docStart } = this;
    const n = this.count;
    const idfOf = (id: number): number => Math.log(1 + n / df[id]);

    // The words that get a vector: frequent enough, at most maxWords (most frequent first).
    let kept: number[] = [];
    for (let id = 0; id < words.length; id++) {
      if (df[id] >= o.minDocFreq) kept.push(id);
      if (id % 16_384 === 0) yield;
    }
    if (kept.length > o.maxWords) kept = kept.sort((a, b) => df[b] - df[a] || a - b).slice(0, o.maxWords).sort((a, b) => a - b);
    yield;
    const rowOfId = new Int32Array(words.length).fill(-1);
    const rowOf = new Map<string, number>();
    const idf = new Float32Array(kept.length);
    let fingerprint = fnv1a(`${n}:${kept.length}`);
    for (let row = 0; row < kept.length; row++) {
      const id = kept[row];
      rowOfId[id] = row;
      rowOf.set(words[id], row);
      idf[row] = idfOf(id);
      fingerprint = fnv1a(`${words[id]}:${df[id]};`, fingerprint);
      if (row % 4096 === 0) yield;
    }

    // Pass 2: each kept word adds the IDF-weighted index vectors of the other words of its product
    // (the product's context sum minus its own share).
    const vectors = new Float32Array(kept.length * dims);
    const context = new Float32Array(dims);
    const own = new Float32Array(dims);
    for (let d = 0; d < n; d++) {
      const from = docStart[d];
      const to = docStart[d + 1];
      let anyKept = false;
      for (let k = from; k < to; k++) if (rowOfId[docWords[k]] >= 0) { anyKept = true; break; }
      if (anyKept && to - from > 1) {
        context.fill(0);
        for (let k = from; k < to; k++) addIndexVector(context, 0, words[docWords[k]], idfOf(docWords[k]), dims, o.nonZeros);
        for (let k = from; k < to; k++) {
          const row = rowOfId[docWords[k]];
          if (row < 0) continue;
          own.fill(0);
          addIndexVector(own, 0, words[docWords[k]], idfOf(docWords[k]), dims, o.nonZeros);
          const base = row * dims;
          for (let i = 0; i < dims; i++) vectors[base + i] += context[i] - own[i];
        }
      }
      if (d % DOCS_PER_STEP === 0) yield;
    }
    // Unit length per word: the IDF weight at embedding time decides a word's share, not its frequency.
    for (let row = 0; row < kept.length; row++) {
      const base = row * dims;
      let norm = 0;
      for (let i = 0; i < dims; i++) norm += vectors[base + i] * vectors[base + i];
      if (norm > 0) {
        const inv = 1 / Math.sqrt(norm);
        for (let i = 0; i < dims; i++) vectors[base + i] *= inv;
      }
      if (row % 4096 === 0) yield;
    }
    return new TextModel(fingerprint.toString(16).padStart(8, '0'), dims, rowOf, vectors, idf, o.maxWordsPerText);
  }
}

/** A copy of `array` with room for at least `length` elements (doubling). */
function grownTo(array: Uint32Array<ArrayBuffer>, length: number): Uint32Array<ArrayBuffer> {
  const grown = new Uint32Array(Math.max(array.length * 2, length));
  grown.set(array);
  return grown;
}
