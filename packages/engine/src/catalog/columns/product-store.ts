/**
 * The products of a catalog version, by doc id, kept in the columns instead of as objects.
 *
 * Every value a product gives is already in a column: each field has a dictionary-encoded text column
 * (a number as `String(n)`, which `Number` reads back exactly; a boolean as "true"/"false"; an array of
 * scalars as the doc's codes, distinct, in the order given) and image vectors are a Float32 column. So
 * a product is stored as its *shape* — its keys in order, each with how the columns give its value back
 * ({@link Encoding}) — interned in a table shared by the products of that shape, plus, for the values the
 * columns cannot reproduce exactly (objects, null, nested or mixed arrays, repeated array values, vector
 * components a float32 does not give back, …), their JSON in a side store. Every encoding is checked
 * against the columns when the product is stored: a value is given back exactly as given, or kept raw.
 * A product is decoded only when it is read (a page of results, a `getProduct`).
 *
 * Each doc also has a revision: a number naming the product's *version*. A product keeps its revision
 * while it is unchanged — across appends, value patches of other products, deletes, merges, rebuilds
 * and snapshots — and gets a new one when it is changed. What is derived from a product (recommendation
 * index rows, semantic vectors) is keyed by its revision: decoding gives a new object on every read, so
 * object identity names nothing.
 *
 * Revisions are unique in the process: one counter for every catalog (a catalog loaded from a
 * snapshot gets new ones), so a cache kept across two versions, or across catalogs, never mistakes one
 * product for another.
 * @module
 */
import type { Product, ProductList } from '../../types.js';
import type { FieldIndex, TextColumn, VectorColumn } from '../catalog-index.js';
import type { Dictionary } from './dictionary.js';
import { IMAGE_VECTOR_FIELD, isPresent, numericValue, ownValue, RecentKeys } from '../field-values.js';
import { numericAt, numericValues } from './numeric-column.js';
import { extendShared, growableCopySteps, sharedArray, sharedCopy } from './shared-arrays.js';
import { vectorOf } from './vector-column.js';

/** A build in steps (see steps.ts). */
type Steps<T> = Generator<void, T, void>;

/** Products encoded between two yields. */
const PRODUCTS_PER_STEP = 1024;

/** How a key's value is read back. */
export const enum Encoding {
  /** A string: the doc's one code of the field's text column. */
  Text = 0,
  /** A number: the doc's one code, read by `Number` (a field without a numeric column). */
  Number = 1,
  /** A boolean: the doc's one code, "true" or "false". */
  Bool = 2,
  /** An array of strings: the doc's codes, in order. */
  Texts = 3,
  /** An array of numbers: the doc's codes, each read by `Number`. */
  Numbers = 4,
  /** An array of numbers: the doc's row of the vector column (see {@link float32Value}). */
  Vector = 5,
  /** Anything else: the next value of the doc's entry in the side store. */
  Raw = 6,
  /** The number -0 (its text "0" would read back as 0, and JSON has no -0). */
  NegativeZero = 7,
  /**
   * An array of strings repeating some (a category path naming a level twice): the doc's codes hold
   * each once; the side store holds, per element, the index of its code.
   */
  TextsRepeated = 8,
  /** A number: the doc's value in the field's numeric column (no text to parse). */
  NumericColumn = 9,
}

/** One shape: a product's keys in order, each with its field id and encoding. */
interface Shape {
  readonly keys: readonly string[];
  readonly fids: Int32Array;
  readonly encodings: Uint8Array;
  /** Per key, the index of its value in the doc's side-store entry (its encoding takes one), else -1. */
  readonly rawIndex: Int32Array;
  /** Whether a doc of this shape has a side-store entry (some encoding takes one). */
  readonly hasRaw: boolean;
}

/** Where `key` is in `shape` (-1: the shape has no such key). */
function keyPlace(shape: Shape, key: string): number {
  return shape.keys.indexOf(key);
}

/** A place in a shape not looked up yet ({@link ProductStore.fieldReader}). */
const UNKNOWN_PLACE = -2;

/** Docs copied between two yields of {@link ProductStore.compacted} (a few array reads each). */
const COPY_STEP_MASK = 4095;

/** The side-store index of each key's value (-1: read from the columns). */
function rawIndexes(encodings: ArrayLike<number>): Int32Array {
  const out = new Int32Array(encodings.length);
  let r = 0;
  for (let i = 0; i < encodings.length; i++) out[i] = takesRaw(encodings[i] as Encoding) ? r++ : -1;
  return out;
}

/**
 * Whether a field's columns (`field`, undefined: the key is no field) serve `encoding` for a doc whose
 * value was encoded so against columns built from the same value, the vectors then being `before`.
 */
function servesEncoding(encoding: Encoding, field: FieldIndex | undefined, vectors: VectorColumn | undefined, before: VectorColumn | undefined): boolean {
  switch (encoding) {
    case Encoding.Raw:
    case Encoding.NegativeZero:
      return true;
    case Encoding.Vector:
      return field !== undefined && vectors !== undefined && vectors.dimension === before?.dimension;
    case Encoding.NumericColumn:
      return field?.numeric !== undefined;
    case Encoding.Texts:
    case Encoding.Numbers:
      // An empty array reads no code: no column needed.
      return field !== undefined;
    default:
      return field?.text !== undefined;
  }
}

/**
 * Shapes beyond which a product is kept whole in the side store (shape 0): a feed whose products all
 * have different keys would otherwise pay a shape per product. Shape ids fit a Uint16Array.
 */
const MAX_SHAPES = 65535;
/** Shape id of a product kept whole, as JSON, in the side store. */
const WHOLE = 0;

/** A node of the shape trie: the shape of the keys on its path (id {@link WHOLE} until interned). */
interface ShapeNode {
  id: number;
  readonly next: Map<string, ShapeNode[]>;
  readonly parent?: ShapeNode;
  readonly key?: string;
  readonly fid?: number;
  readonly encoding?: number;
}

/**
 * The interned shapes: append-only, so the versions sharing it read the ids they know unchanged. Only
 * the store that saw the table last may add to it (see {@link ProductStore.shapesToExtend}): a version
 * built and then dropped (its change-log write failed) leaves shapes and trie nodes behind, and those
 * may name field ids the published versions give other fields or do not have.
 */
class ShapeTable {
  readonly shapes: (Shape | undefined)[] = [undefined];
  /** Trie nodes and shapes added so far: a store compares it with what it saw to know it is the latest. */
  edits = 0;
  /**
   * The shapes as a trie of (key, encoding) steps from the empty shape: a product's shape is found by
   * one map look-up per key as it is encoded (no signature string per product: at a million products
   * those strings were garbage the collector paid for).
   */
  readonly root: ShapeNode = { id: WHOLE, next: new Map() };

  /** The node after `node` for one more key with its field id and encoding. */
  step(node: ShapeNode, key: string, fid: number, encoding: number): ShapeNode {
    let byEncoding = node.next.get(key);
    if (!byEncoding) node.next.set(key, (byEncoding = []));
    let child = byEncoding[encoding];
    if (!child) {
      byEncoding[encoding] = child = { id: WHOLE, next: new Map(), parent: node, key, fid, encoding };
      this.edits++;
    }
    return child;
  }

  /** The id of the shape ending at `node` (a new one if unseen), or {@link WHOLE} when the table is full. */
  idOf(node: ShapeNode): number {
    if (node.id !== WHOLE || this.shapes.length > MAX_SHAPES) return node.id;
    const keys: string[] = [];
    const fids: number[] = [];
    const encodings: number[] = [];
    for (let at: ShapeNode = node; at.parent; at = at.parent) {
      keys.push(at.key!);
      fids.push(at.fid!);
      encodings.push(at.encoding!);
    }
    keys.reverse();
    fids.reverse();
    encodings.reverse();
    node.id = this.shapes.length;
    this.edits++;
    this.shapes.push({ keys, fids: Int32Array.from(fids), encodings: Uint8Array.from(encodings), rawIndex: rawIndexes(encodings), hasRaw: Array.prototype.some.call(encodings, (e: number) => takesRaw(e)) });
    return node.id;
  }

  /** The id of a shape given whole (snapshot loading). */
  intern(keys: readonly string[], fids: ArrayLike<number>, encodings: ArrayLike<number>): number {
    let node = this.root;
    for (let i = 0; i < keys.length; i++) node = this.step(node, keys[i], fids[i], encodings[i]);
    return this.idOf(node);
  }

  get size(): number {
    return this.shapes.length;
  }

  /** A new table of this one's first `count` shapes, with their ids (a dropped version's are left out). */
  prefix(count: number): ShapeTable {
    const out = new ShapeTable();
    for (let id = 1; id < count; id++) {
      const s = this.shapes[id]!;
      out.intern(s.keys, s.fids, s.encodings);
    }
    return out;
  }
}

/** The columns a store reads values from: those of the catalog version it belongs to. */
export interface StoreColumns {
  readonly fields: readonly FieldIndex[];
  readonly fieldByName: ReadonlyMap<string, number>;
  readonly dictionaries: readonly Dictionary[];
  readonly vectors?: VectorColumn;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The side store: per doc that has values the columns cannot give back, their JSON (an array of the
 * values in key order, or the whole product for shape {@link WHOLE}), UTF-8, back to back. Immutable.
 */
export class RawValues {
  constructor(
    /** Docs having an entry, ascending. */
    readonly docs: Uint32Array,
    /** Entry i is `bytes[offsets[i] .. offsets[i+1])`. */
    readonly offsets: Float64Array,
    readonly bytes: Uint8Array,
  ) {}

  static readonly EMPTY = new RawValues(new Uint32Array(0), new Float64Array(1), new Uint8Array(0));

  /** Entries from `(doc, json)` pairs in ascending doc order. */
  static of(docs: readonly number[], texts: readonly string[]): RawValues {
    if (docs.length === 0) return RawValues.EMPTY;
    const offsets = new Float64Array(docs.length + 1);
    for (let i = 0; i < texts.length; i++) offsets[i + 1] = offsets[i] + Buffer.byteLength(texts[i], 'utf8');
    const bytes = new Uint8Array(offsets[docs.length]);
    let at = 0;
    for (const text of texts) at += encoder.encodeInto(text, bytes.subarray(at)).written;
    return new RawValues(Uint32Array.from(docs), offsets, bytes);
  }

  /** Entry of `doc` as text, or undefined. */
  get(doc: number): string | undefined {
    const at = this.indexOf(doc);
    return at < 0 ? undefined : decoder.decode(this.bytes.subarray(this.offsets[at], this.offsets[at + 1]));
  }

  /**
   * The entries but those of the docs `drop` (ascending), with `docs`/`texts` (ascending) merged in. The
   * kept entries are copied in runs, as bytes: decoding and encoding every entry again (what it did
   * before) cost a one-product append or value patch tens of milliseconds at 1M products.
   */
  merged(drop: readonly number[], docs: readonly number[], texts: readonly string[]): RawValues {
    const gone: number[] = [];
    for (const d of drop) {
      const i = this.indexOf(d);
      if (i >= 0) gone.push(i);
    }
    if (docs.length === 0 && gone.length === 0) return this;
    const added = texts.map((text) => encoder.encode(text));
    const n = this.docs.length;
    let byteLength = this.bytes.length;
    for (const i of gone) byteLength -= this.offsets[i + 1] - this.offsets[i];
    for (const b of added) byteLength += b.length;
    const count = n - gone.length + docs.length;
    const outDocs = new Uint32Array(count);
    const outOffsets = new Float64Array(count + 1);
    const outBytes = new Uint8Array(byteLength);
    let k = 0;
    let at = 0;
    let g = 0;
    for (let i = 0, j = 0; i < n || j < docs.length;) {
      if (g < gone.length && gone[g] === i) { g++; i++; continue; }
      if (j < docs.length && (i === n || docs[j] <= this.docs[i])) {
        outDocs[k] = docs[j];
        outBytes.set(added[j], at);
        at += added[j].length;
        outOffsets[++k] = at;
        j++;
        continue;
      }
      // A run of kept entries (at least entry i): up to the next dropped one and the next new doc.
      let end = g < gone.length ? gone[g] : n;
      if (j < docs.length) end = Math.min(end, this.lowerBound(docs[j]));
      const from = this.offsets[i];
      outDocs.set(this.docs.subarray(i, end), k);
      outBytes.set(this.bytes.subarray(from, this.offsets[end]), at);
      for (let e = i; e < end; e++) outOffsets[k + e - i + 1] = this.offsets[e + 1] - from + at;
      at += this.offsets[end] - from;
      k += end - i;
      i = end;
    }
    return new RawValues(outDocs, outOffsets, outBytes);
  }

  /** The first entry whose doc is at least `doc` (the entry count when none is). */
  private lowerBound(doc: number): number {
    let lo = 0;
    let hi = this.docs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid] < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of `doc`'s entry, or -1. */
  indexOf(doc: number): number {
    const lo = this.lowerBound(doc);
    return lo === this.docs.length || this.docs[lo] !== doc ? -1 : lo;
  }
}

/** A shape as a snapshot keeps it. */
export interface ShapeRecord {
  keys: string[];
  fids: number[];
  encodings: number[];
}

/**
 * What a snapshot keeps of a store: everything but the columns it reads (the snapshot has those) and
 * the revisions (a loaded store gets new ones: see {@link ProductStore.fromParts}).
 */
export interface StoreParts {
  /** Shapes by id from 1 (id 0 is a product kept whole). */
  shapes: ShapeRecord[];
  shapeOf: Uint16Array;
  rawDocs: Uint32Array;
  rawOffsets: Float64Array;
  rawBytes: Uint8Array;
}

/** The store's view of what a product is: a shape id and, when some values are raw, their JSON. */
interface Encoded {
  shape: number;
  raw?: string;
}

/** The doc's one code of a text column, or -1 when it has none or several. */
function singleCode(text: TextColumn, doc: number): number {
  if (text.single) return text.single[doc];
  const from = text.offsets[doc];
  return text.offsets[doc + 1] - from === 1 ? text.codes[from] : -1;
}

/** The doc's codes of a text column (reads `single` when the column keeps only that). */
function codesOf(text: TextColumn | undefined, doc: number): ArrayLike<number> {
  if (!text) return [];
  if (text.single) return text.single[doc] < 0 ? [] : [text.single[doc]];
  return text.codes.subarray(text.offsets[doc], text.offsets[doc + 1]);
}

/** The smallest normal float32 (2^-126). */
const MIN_NORMAL_FLOAT32 = 2 ** -126;

/** 10^0 … 10^22: the powers of ten a double holds exactly. */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/** The lowest power of ten in {@link POWERS_OF_TEN}: below the smallest normal float32 (~1.2e-38). */
const LOWEST_POWER = -38;
/**
 * 10^d as doubles for d = -38 … 39, at index d + 38. Compared with a float32's magnitude the outcome is
 * exact: the nearest double to 10^d is within an ulp of a double of it, and no float32 (24 bits) lies that
 * close to a power of ten.
 */
const POWERS_OF_TEN = Array.from({ length: 78 }, (_, i) => Number(`1e${i + LOWEST_POWER}`));

/** log10 2: a binary exponent's decimal one, to within one. */
const LOG10_2 = Math.log10(2);
/** A float32's bits, to read a magnitude's binary exponent without Math.log10. */
const exponentFloat = new Float32Array(1);
const exponentBits = new Int32Array(exponentFloat.buffer);

/**
 * ⌊log10 x⌋ of a normal float32 magnitude `x`: from its binary exponent e (2^e <= x < 2^(e+1), an interval
 * crossing at most one power of ten), ⌊e·log10 2⌋ or one more, told apart by comparing with that power.
 * Faster than `Math.floor(Math.log10(x))` (a call into C++ per component of a page's vectors, decision
 * 0067); a wrong exponent would only send {@link roundedToDigits} to the strings.
 */
function decimalExponent(x: number): number {
  exponentFloat[0] = x;
  const binary = ((exponentBits[0]! >>> 23) & 255) - 127;
  const low = Math.floor(binary * LOG10_2);
  return x >= POWERS_OF_TEN[low + 1 - LOWEST_POWER]! ? low + 1 : low;
}

/**
 * A float32 vector component as a number: the shortest decimal of at most 9 significant digits that
 * reads back as that float32, found from 6 digits up for normal floats (a shorter decimal that reads back
 * as it is also its 6-digit rounding: half the 6-digit grid, at least 5e-7 relative, is wider than a
 * float32's rounding error, at most 6e-8; subnormals, whose error is wider, are searched from 1 digit).
 * Feeds write vectors
 * as float32s printed shortest, so this is the number they gave; stored components are checked against
 * it (a component it does not give back keeps the vector raw).
 *
 * Each p-digit candidate is `Number(f.toPrecision(p))`, computed without strings when that is exact
 * (see {@link roundedToDigits}): a first read of a page of products decodes 16 components a product,
 * and `toPrecision` with `Number` cost ~0.1 µs each.
 */
export function float32Value(f: number): number {
  if (f !== 0 && Math.abs(f) < MIN_NORMAL_FLOAT32) return float32ValueByStrings(f, 1);
  if (f === 0 || !Number.isFinite(f)) return float32ValueByStrings(f, 6);
  const v = shortestByArithmetic(f);
  return Number.isNaN(v) ? float32ValueByStrings(f, 6) : v;
}

/**
 * Whether {@link float32Value} of `f` is `v` (as `Object.is`: -0 only for -0), without making the value:
 * a replace checks every component of a million products' vectors, and a double returned from a call
 * is a heap number (68 MB of garbage per 200,000 products with 16 components, decision 0054).
 */
export function isFloat32Value(f: number, v: number): boolean {
  if (f === 0 || !Number.isFinite(f) || Math.abs(f) < MIN_NORMAL_FLOAT32) return Object.is(float32Value(f), v);
  const w = shortestByArithmetic(f);
  return (Number.isNaN(w) ? float32ValueByStrings(f, 6) : w) === v;
}

/**
 * {@link float32Value} of the normal, non-zero float32 `f` found by arithmetic: its p-digit candidates
 * from 6 digits up, each rounded once (the first that reads back as `f`; 9 digits always do), or NaN
 * when the arithmetic cannot decide (the strings do then). The decimal exponent is checked by
 * {@link roundedToDigits}: a candidate of other than p digits gives NaN.
 */
function shortestByArithmetic(f: number): number {
  const magnitude = Math.abs(f);
  const exponent = decimalExponent(magnitude);
  for (let p = 6; p <= 9; p++) {
    const w = roundedToDigits(magnitude, exponent, p);
    if (Number.isNaN(w)) return Number.NaN;
    const v = f < 0 ? -w : w;
    if (p === 9 || Math.fround(v) === f) return v;
  }
  return Number.NaN;
}

/**
 * `Number(x.toPrecision(p))` for `x` > 0 with decimal exponent `exponent` (10^exponent <= x < 10^(exponent+1)),
 * by arithmetic, or NaN when that may differ. toPrecision takes the integer n of p digits nearest to
 * x·10^s (s = p − 1 − exponent; the larger on a tie) and Number reads n·10^−s as the nearest double.
 * Here x·10^s is one rounded product (relative error at most 2^−53), so Math.round (ties up, as
 * toPrecision) gives that n unless the product lies within its error of a half: then NaN. With
 * 0 <= s <= 22 both n and 10^s are exact doubles, so n / 10^s is correctly rounded: the nearest double
 * to n·10^−s, as Number reads it. An n of other than p digits (the exponent was off, or x rounds up to
 * the next power of ten) gives NaN too.
 */
function roundedToDigits(x: number, exponent: number, p: number): number {
  const s = p - 1 - exponent;
  if (s < 0 || s > 22) return Number.NaN;
  const scale = EXACT_POWERS_OF_TEN[s]!;
  const y = x * scale;
  const n = Math.round(y);
  if (Math.abs(y - Math.floor(y) - 0.5) <= y * 2 ** -50) return Number.NaN;
  if (n < EXACT_POWERS_OF_TEN[p - 1]! || n >= EXACT_POWERS_OF_TEN[p]!) return Number.NaN;
  return n / scale;
}

/** {@link float32Value} through `toPrecision`, trying from `fromDigits` significant digits. */
function float32ValueByStrings(f: number, fromDigits: number): number {
  for (let p = fromDigits; p < 9; p++) {
    const w = Number(f.toPrecision(p));
    if (Math.fround(w) === f) return w;
  }
  return Number(f.toPrecision(9));
}

/** The encoding that gives `value` back from doc `doc`'s columns exactly, or Raw. */
function encodingOf(value: unknown, fid: number | undefined, doc: number, columns: StoreColumns): Encoding {
  if (Object.is(value, -0)) return Encoding.NegativeZero;
  if (fid === undefined || value === null || (typeof value === 'object' && !Array.isArray(value))) return Encoding.Raw;
  const field = columns.fields[fid];
  const dictionary = columns.dictionaries[fid];
  if (Array.isArray(value)) {
    if (field.name === IMAGE_VECTOR_FIELD) return vectorFits(value, doc, columns.vectors) ? Encoding.Vector : Encoding.Raw;
    const codes = codesOf(field.text, doc);
    if (codes.length !== value.length) return codes.length > 0 && repeatIndexes(value, codes, dictionary) ? Encoding.TextsRepeated : Encoding.Raw;
    if (value.length === 0) return Encoding.Texts;
    const strings = typeof value[0] === 'string';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const text = dictionary.at(codes[i]);
      if (strings ? v !== text : typeof v !== 'number' || !Object.is(Number(text), v)) return Encoding.Raw;
    }
    return strings ? Encoding.Texts : Encoding.Numbers;
  }
  const text = field.text;
  if (!text || field.name === IMAGE_VECTOR_FIELD) return Encoding.Raw;
  const code = singleCode(text, doc);
  if (code < 0) return Encoding.Raw;
  const stored = dictionary.at(code);
  if (typeof value === 'string') return stored === value ? Encoding.Text : Encoding.Raw;
  if (typeof value === 'number') {
    if (field.numeric && Object.is(numericAt(field, doc), value)) return Encoding.NumericColumn;
    return Object.is(Number(stored), value) ? Encoding.Number : Encoding.Raw;
  }
  if (typeof value === 'boolean') return stored === (value ? 'true' : 'false') ? Encoding.Bool : Encoding.Raw;
  return Encoding.Raw;
}

/**
 * Per element of `value` (strings, some repeated), the index of its code among the doc's `codes` (each
 * value once, in first-seen order, as the column keeps them); undefined when `value` is not that.
 */
function repeatIndexes(value: readonly unknown[], codes: ArrayLike<number>, dictionary: Dictionary): number[] | undefined {
  const indexes: number[] = [];
  let seen = 0;
  for (const v of value) {
    if (typeof v !== 'string') return undefined;
    let i = 0;
    while (i < seen && dictionary.at(codes[i]) !== v) i++;
    if (i === seen) {
      if (seen === codes.length || dictionary.at(codes[seen]) !== v) return undefined;
      seen++;
    }
    indexes.push(i);
  }
  return seen === codes.length ? indexes : undefined;
}

/** Whether the vector column gives `value` back exactly for `doc`. */
function vectorFits(value: readonly unknown[], doc: number, vectors: VectorColumn | undefined): boolean {
  if (!vectors || value.length !== vectors.dimension || value.length === 0) return false;
  // The column's row read in place (no subarray per product: a replace checks a million).
  const row = vectors.rowOf[doc];
  if (row < 0) return false;
  const { data, dimension } = vectors;
  for (let i = 0, at = row * dimension; i < dimension; i++, at++) {
    const v = value[i];
    // A number whose float32 is not the stored one cannot be given back: no need to print the stored one.
    if (typeof v !== 'number' || Math.fround(v) !== data[at]) return false;
    if (!isFloat32Value(data[at], v)) return false;
  }
  return true;
}

/** Encodes doc `doc` (`product`) against the columns: its shape id and raw values. */
function encodeProduct(product: Product, doc: number, columns: StoreColumns, shapes: ShapeTable, keys: readonly string[] = Object.keys(product)): Encoded {
  let node = shapes.root;
  let raw: unknown[] | undefined;
  for (const key of keys) {
    const value = product[key];
    // Not JSON values: the key is left out, as JSON.stringify leaves it out.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const fid = columns.fieldByName.get(key);
    const encoding = encodingOf(value, fid, doc, columns);
    node = shapes.step(node, key, fid ?? -1, encoding);
    if (encoding === Encoding.Raw) (raw ??= []).push(value);
    else if (encoding === Encoding.TextsRepeated) {
      const text = columns.fields[fid!].text;
      (raw ??= []).push(repeatIndexes(value as unknown[], codesOf(text, doc), columns.dictionaries[fid!]));
    }
  }
  const shape = shapes.idOf(node);
  if (shape === WHOLE) return { shape, raw: JSON.stringify(product) };
  return raw ? { shape, raw: JSON.stringify(raw) } : { shape };
}

/** Whether the encoding reads an entry of the doc's side store. */
function takesRaw(encoding: Encoding): boolean {
  return encoding === Encoding.Raw || encoding === Encoding.TextsRepeated;
}

/** One value of doc `doc` read back from the columns (`stored`: its side-store entry, when it has one). */
function readValue(encoding: Encoding, fid: number, doc: number, columns: StoreColumns, stored: unknown): unknown {
  const { fields, dictionaries, vectors } = columns;
  switch (encoding) {
    case Encoding.Text:
      return dictionaries[fid].at(singleCode(fields[fid].text!, doc));
    case Encoding.NumericColumn:
      return numericAt(fields[fid], doc);
    case Encoding.Number:
      return Number(dictionaries[fid].at(singleCode(fields[fid].text!, doc)));
    case Encoding.Bool:
      return dictionaries[fid].at(singleCode(fields[fid].text!, doc)) === 'true';
    case Encoding.Texts: {
      const codes = codesOf(fields[fid].text, doc);
      const texts = new Array<string>(codes.length);
      for (let k = 0; k < codes.length; k++) texts[k] = dictionaries[fid].at(codes[k]);
      return texts;
    }
    case Encoding.Numbers:
      return Array.from(codesOf(fields[fid].text, doc), (c) => Number(dictionaries[fid].at(c)));
    case Encoding.NegativeZero:
      return -0;
    case Encoding.TextsRepeated: {
      const codes = codesOf(fields[fid].text, doc);
      return (stored as number[]).map((i) => dictionaries[fid].at(codes[i]));
    }
    case Encoding.Vector: {
      // The encoding was checked against the column: the doc has a vector.
      const stored = vectorOf(vectors!, doc)!;
      const vector = new Array<number>(stored.length);
      for (let k = 0; k < stored.length; k++) vector[k] = float32Value(stored[k]);
      return vector;
    }
    default:
      return stored;
  }
}

/**
 * Key `i` of the docs `docs[from .. to)`, all of which read it from field `fid` as `encoding`, into
 * `values`: the codes of the run are read from the column in one loop, then their values, so the cache
 * misses of a run overlap (a doc's code is one random read of a column of the whole catalog). What
 * {@link readValue} gives for each doc; `codes` is scratch of at least `to` entries.
 */
function readKeyOfRun(
  i: number, fid: number, encoding: Encoding, docs: ArrayLike<number>, from: number, to: number, shapes: readonly (Shape | undefined)[],
  values: unknown[][], raws: readonly (unknown[] | undefined)[], columns: StoreColumns, codes: Int32Array,
): void {
  const field = columns.fields[fid];
  if (encoding === Encoding.Text && field.text!.single) {
    const single = field.text!.single;
    const dictionary = columns.dictionaries[fid];
    for (let k = from; k < to; k++) codes[k] = single[docs[k]];
    for (let k = from; k < to; k++) values[k]![i] = dictionary.at(codes[k]);
    return;
  }
  if (encoding === Encoding.NumericColumn) {
    const { byCode, codes: docCodes } = numericValues(field);
    for (let k = from; k < to; k++) codes[k] = docCodes[docs[k]];
    for (let k = from; k < to; k++) values[k]![i] = byCode[codes[k] + 1];
    return;
  }
  const text = field.text;
  if (encoding === Encoding.Texts && text !== undefined && !text.single) {
    // Each doc's first code, then its codes and their values.
    const { offsets } = text;
    for (let k = from; k < to; k++) codes[k] = offsets[docs[k]];
    const dictionary = columns.dictionaries[fid];
    for (let k = from; k < to; k++) {
      const first = codes[k];
      const texts = new Array<string>(offsets[docs[k] + 1] - first);
      for (let c = 0; c < texts.length; c++) texts[c] = dictionary.at(text.codes[first + c]);
      values[k]![i] = texts;
    }
    return;
  }
  const vectors = columns.vectors;
  if (encoding === Encoding.Vector && vectors !== undefined) {
    // Each doc's row, then its components (the encoding was checked against the column: the doc has one).
    for (let k = from; k < to; k++) codes[k] = vectors.rowOf[docs[k]];
    const { data, dimension } = vectors;
    for (let k = from; k < to; k++) {
      const vector = new Array<number>(dimension);
      for (let c = 0, at = codes[k] * dimension; c < dimension; c++, at++) vector[c] = float32Value(data[at]);
      values[k]![i] = vector;
    }
    return;
  }
  for (let k = from; k < to; k++) {
    const r = shapes[k]!.rawIndex[i];
    values[k]![i] = readValue(encoding, fid, docs[k], columns, r < 0 ? undefined : raws[k]![r]);
  }
}

/** A shape's object builder: the product as one object literal of its keys in order. */
type ObjectBuilder = (values: readonly unknown[]) => Record<string, unknown>;
const objectBuilders = new WeakMap<Shape, ObjectBuilder>();

/**
 * The builder of a shape's products, compiled once per shape: an object literal with every key at once
 * gets its final hidden class in one allocation, where setting the keys one by one walks a transition per
 * key (a result page decodes 20 products per search). Keys are JSON string literals (any text is safe);
 * `__proto__` is written as a computed key, which defines an own property instead of setting the prototype.
 */
function objectBuilderOf(shape: Shape): ObjectBuilder {
  let build = objectBuilders.get(shape);
  if (build === undefined) {
    const entries = shape.keys.map((key, i) => `${key === '__proto__' ? `[${JSON.stringify(key)}]` : JSON.stringify(key)}: v[${i}]`);
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from JSON-escaped keys only
    build = new Function('v', `return { ${entries.join(', ')} };`) as ObjectBuilder;
    objectBuilders.set(shape, build);
  }
  return build;
}

/** The products of one immutable catalog version (see module doc). */
export class ProductStore implements ProductList {
  /** Shapes of the table this store's docs may use (ids below it); later ones belong to later versions. */
  private readonly shapesSeen: number;
  /** The table's {@link ShapeTable.edits} when this store was made. */
  private readonly editsSeen: number;

  private constructor(
    private readonly columns: StoreColumns,
    private readonly shapes: ShapeTable,
    /** Per doc, its shape id. */
    private readonly shapeOf: Uint16Array,
    /** Per doc, its revision. */
    private readonly revisions: Float64Array,
    private readonly raw: RawValues,
  ) {
    this.shapesSeen = shapes.size;
    this.editsSeen = shapes.edits;
  }

  /**
   * The table a store derived from this one interns its new shapes in: the shared one while this store
   * is the latest of its lineage (nothing was added since it was made), else a copy of the shapes this
   * store knows — so what a dropped version interned is never used, nor written to a snapshot.
   */
  private shapesToExtend(): ShapeTable {
    return this.shapes.edits === this.editsSeen ? this.shapes : this.shapes.prefix(this.shapesSeen);
  }

  /** The store of `products` (docs in order) against the columns built from them, in steps. */
  static *build(products: readonly Product[], revisions: Float64Array, columns: StoreColumns): Steps<ProductStore> {
    if (revisions.length !== products.length) throw new Error('a revision per product is needed');
    const shapes = new ShapeTable();
    const shapeOf = sharedArray(Uint16Array, products.length);
    const rawDocs: number[] = [];
    const rawTexts: string[] = [];
    // Products of one shape share their keys' array (`RecentKeys`): none allocated per product.
    const recentKeys = new RecentKeys();
    for (let d = 0; d < products.length; d++) {
      const keys = recentKeys.of(products[d]);
      const encoded = encodeProduct(products[d], d, columns, shapes, keys);
      shapeOf[d] = encoded.shape;
      if (encoded.raw !== undefined) { rawDocs.push(d); rawTexts.push(encoded.raw); }
      if (d % PRODUCTS_PER_STEP === PRODUCTS_PER_STEP - 1) yield;
    }
    return new ProductStore(columns, shapes, shapeOf, sharedCopy(revisions), RawValues.of(rawDocs, rawTexts));
  }

  /** The parts a snapshot keeps (shared, not copied: the store is immutable). */
  parts(): StoreParts {
    // Only the shapes this store knows: later ones are another version's (maybe one that was dropped).
    const shapes = this.shapes.shapes.slice(1, this.shapesSeen).map((s) => ({ keys: s!.keys.slice(), fids: Array.from(s!.fids), encodings: Array.from(s!.encodings) }));
    return { shapes, shapeOf: this.shapeOf, rawDocs: this.raw.docs, rawOffsets: this.raw.offsets, rawBytes: this.raw.bytes };
  }

  /**
   * The store a snapshot kept, over the snapshot's columns: no product is parsed. Its products get new
   * revisions: the snapshot may come from another process, whose revisions this one may have given
   * other products (and a store's docs never share a revision, so nothing else is to keep). Throws when
   * the parts do not fit together.
   */
  static fromParts(parts: StoreParts, columns: StoreColumns): ProductStore {
    const n = parts.shapeOf.length;
    const { rawDocs, rawOffsets, rawBytes } = parts;
    if (rawOffsets.length !== rawDocs.length + 1 || rawOffsets[rawDocs.length] !== rawBytes.length) {
      throw new Error('product store parts do not fit together');
    }
    const shapes = new ShapeTable();
    parts.shapes.forEach((s, i) => {
      if (s.keys.length !== s.fids.length || s.keys.length !== s.encodings.length || s.fids.some((f) => f >= columns.fields.length)) {
        throw new Error(`product shape ${i + 1} is malformed`);
      }
      if (shapes.intern(s.keys, s.fids, s.encodings) !== i + 1) throw new Error(`product shape ${i + 1} is repeated`);
    });
    for (let d = 0; d < n; d++) if (parts.shapeOf[d] >= shapes.size) throw new Error(`doc ${d} has an unknown product shape`);
    return new ProductStore(columns, shapes, parts.shapeOf, newRevisions(n), new RawValues(rawDocs, rawOffsets, rawBytes));
  }

  /** Number of docs (deleted ones included: they stay until a merge). */
  get length(): number {
    return this.shapeOf.length;
  }

  /** Doc `doc`'s revision. */
  revision(doc: number): number {
    return this.revisions[doc];
  }

  /** Distinct shapes in use by this lineage of stores (diagnostics, tests). */
  get shapeCount(): number {
    return this.shapes.size - 1;
  }

  /** Docs with values in the side store, and its size in bytes (diagnostics, tests). */
  get rawStats(): { docs: number; bytes: number } {
    return { docs: this.raw.docs.length, bytes: this.raw.bytes.length };
  }

  /**
   * Doc `doc`'s product, exactly as given. Products read often (the pages of popular searches) are
   * kept decoded for a while, by revision (see {@link DECODED_CACHE_SIZE}): the object returned may be
   * shared with other readers, so it is read-only, as the products held as objects always were.
   */
  get(doc: number): Product {
    const revision = this.revisions[doc];
    return keptDecoded(revision) ?? keepDecoded(revision, this.decode(doc));
  }

  /**
   * The products of `docs`, in order: {@link get} of each, the ones not kept decoded read together
   * ({@link decodeMany}: a page of results is read key by key, not product by product).
   */
  getMany(docs: ArrayLike<number>): Product[] {
    const count = docs.length;
    // The revisions first, in a loop of their own (the reads of a page are issued together), then the cache.
    const revisions = pageRevisions.room(count);
    for (let k = 0; k < count; k++) revisions[k] = this.revisions[docs[k]];
    const products = new Array<Product>(count);
    let missing: number[] | undefined;
    for (let k = 0; k < count; k++) {
      const kept = keptDecoded(revisions[k]);
      if (kept === undefined) (missing ??= []).push(k);
      else products[k] = kept;
    }
    if (missing === undefined) return products;
    const decoded = this.decodeMany(missing.map((k) => docs[k]));
    for (let m = 0; m < missing.length; m++) products[missing[m]] = keepDecoded(revisions[missing[m]], decoded[m]);
    return products;
  }

  /**
   * Doc `doc`'s product decoded now, a new object, bypassing the decoded-product cache: for passes over
   * many products (index builds, merges), which would only evict the products searches keep reading.
   */
  decode(doc: number): Product {
    const id = this.shapeOf[doc];
    if (id === WHOLE) return JSON.parse(this.raw.get(doc)!) as Product;
    const shape = this.shapes.shapes[id]!;
    const values = new Array<unknown>(shape.keys.length);
    const raw = shape.hasRaw ? JSON.parse(this.raw.get(doc)!) as unknown[] : undefined;
    for (let i = 0; i < shape.keys.length; i++) {
      const r = shape.rawIndex[i];
      values[i] = readValue(shape.encodings[i] as Encoding, shape.fids[i], doc, this.columns, r < 0 ? undefined : raw![r]);
    }
    return objectBuilderOf(shape)(values) as Product;
  }

  /**
   * The products of `docs` decoded now (what {@link decode} gives for each: the plain path, which
   * the property tests compare this with), read key by key across the docs: the
   * values of a key sit in one field's columns, so the reads of a page's products there are issued
   * together (their cache misses overlap) and the column's own objects are read once for all of them,
   * where decoding product by product waited on each miss in turn — a page's products are scattered
   * over the columns, and by the time a search reads them its matching has pushed those columns out
   * of the caches.
   */
  decodeMany(docs: ArrayLike<number>): Product[] {
    const count = docs.length;
    const products = new Array<Product>(count);
    const shapes = new Array<Shape | undefined>(count);
    const values = new Array<unknown[]>(count);
    const raws = new Array<unknown[] | undefined>(count);
    const ids = pageShapes.room(count);
    for (let k = 0; k < count; k++) ids[k] = this.shapeOf[docs[k]];
    let longest = 0;
    for (let k = 0; k < count; k++) {
      const doc = docs[k];
      const id = ids[k];
      if (id === WHOLE) {
        products[k] = JSON.parse(this.raw.get(doc)!) as Product;
        continue;
      }
      const shape = this.shapes.shapes[id]!;
      shapes[k] = shape;
      values[k] = new Array<unknown>(shape.keys.length);
      if (shape.hasRaw) raws[k] = JSON.parse(this.raw.get(doc)!) as unknown[];
      if (shape.keys.length > longest) longest = shape.keys.length;
    }
    const codes = pageCodes.room(count);
    for (let i = 0; i < longest; i++) {
      for (let k = 0; k < count;) {
        const shape = shapes[k];
        if (shape === undefined || i >= shape.keys.length) {
          k++;
          continue;
        }
        // The run of docs from k whose key i is the same field read the same way: one loop per column.
        const fid = shape.fids[i];
        const encoding = shape.encodings[i] as Encoding;
        let end = k + 1;
        while (end < count && shapes[end] !== undefined && shapes[end]!.fids[i] === fid && shapes[end]!.encodings[i] === encoding && i < shapes[end]!.keys.length) end++;
        readKeyOfRun(i, fid, encoding, docs, k, end, shapes, values, raws, this.columns, codes);
        k = end;
      }
    }
    for (let k = 0; k < count; k++) {
      const shape = shapes[k];
      if (shape !== undefined) products[k] = objectBuilderOf(shape)(values[k]!) as Product;
    }
    return products;
  }

  /**
   * The value doc `doc`'s product gives `key` (undefined when it has none), decoding nothing else: for
   * readers of one field of many products (re-ranking reads the title words of the best candidates).
   */
  valueOf(doc: number, key: string): unknown {
    const id = this.shapeOf[doc];
    if (id === WHOLE) return ownValue(JSON.parse(this.raw.get(doc)!) as Record<string, unknown>, key);
    const shape = this.shapes.shapes[id]!;
    const place = keyPlace(shape, key);
    return place < 0 ? undefined : this.readAt(shape, place, doc);
  }

  /**
   * A reader of `key`'s value per doc ({@link valueOf} with the key's place in each shape looked up once):
   * merges read the live products field by field instead of decoding each whole (a million decoded
   * objects held at once made the collector stall the loop).
   */
  fieldReader(key: string): (doc: number) => unknown {
    const placeOf = this.placesOf(key);
    return (doc) => {
      const id = this.shapeOf[doc];
      if (id === WHOLE) return ownValue(JSON.parse(this.raw.get(doc)!) as Record<string, unknown>, key);
      const place = placeOf(id);
      return place < 0 ? undefined : this.readAt(this.shapes.shapes[id]!, place, doc);
    };
  }

  /**
   * A reader of `key`'s numeric value per doc as a build's numeric column reads it: `numericValue` of a
   * present value (`isPresent`; NaN when it is no number), undefined when absent. Arrays (vectors, lists)
   * are not decoded (they are present and no number), numbers of the numeric column not parsed.
   */
  numberReader(key: string): (doc: number) => number | undefined {
    const placeOf = this.placesOf(key);
    return (doc) => {
      const id = this.shapeOf[doc];
      let value: unknown;
      if (id === WHOLE) value = ownValue(JSON.parse(this.raw.get(doc)!) as Record<string, unknown>, key);
      else {
        const place = placeOf(id);
        if (place < 0) return undefined;
        const shape = this.shapes.shapes[id]!;
        switch (shape.encodings[place] as Encoding) {
          case Encoding.Vector:
          case Encoding.Texts:
          case Encoding.Numbers:
          case Encoding.TextsRepeated:
            return NaN;
          case Encoding.NumericColumn:
            // The column holds the number given, finite (`+ 0`: -0 reads as 0, as `numericValue` has it).
            return numericAt(this.columns.fields[shape.fids[place]], doc) + 0;
          default:
            value = this.readAt(shape, place, doc);
        }
      }
      return isPresent(value) ? numericValue(value) : undefined;
    };
  }

  /**
   * A reader of whether doc `doc`'s value of `key` is other than its text column's codes in order (an
   * array repeating a string, or a value kept raw): what a reader of the codes alone would read wrong.
   */
  differsFromCodes(key: string): (doc: number) => boolean {
    const placeOf = this.placesOf(key);
    return (doc) => {
      const id = this.shapeOf[doc];
      if (id === WHOLE) return true;
      const place = placeOf(id);
      return place >= 0 && takesRaw(this.shapes.shapes[id]!.encodings[place] as Encoding);
    };
  }

  /**
   * `key`'s place in a shape by shape id, looked up once per shape. Shapes interned after the call
   * (appends to a newer version sharing the table) are looked up on every call.
   */
  private placesOf(key: string): (id: number) => number {
    const known = this.shapes.size;
    const places = new Int32Array(known).fill(UNKNOWN_PLACE);
    return (id) => {
      let place = id < known ? places[id] : UNKNOWN_PLACE;
      if (place === UNKNOWN_PLACE) {
        place = keyPlace(this.shapes.shapes[id]!, key);
        if (id < known) places[id] = place;
      }
      return place;
    };
  }

  /** The value at place `place` of doc `doc`'s shape. */
  private readAt(shape: Shape, place: number, doc: number): unknown {
    const encoding = shape.encodings[place] as Encoding;
    const stored = takesRaw(encoding) ? (JSON.parse(this.raw.get(doc)!) as unknown[])[shape.rawIndex[place]] : undefined;
    return readValue(encoding, shape.fids[place], doc, this.columns, stored);
  }

  /**
   * Whether doc `doc`'s image vector is read back from the vector column (as given, float32s printed
   * shortest): its row then holds exactly what a build of the product stores. Not so for a value kept
   * raw (its JSON may differ from the row: `-0` is written `0`).
   */
  readsVectorColumn(doc: number): boolean {
    const id = this.shapeOf[doc];
    if (id === WHOLE) return false;
    const shape = this.shapes.shapes[id]!;
    const place = keyPlace(shape, IMAGE_VECTOR_FIELD);
    return place >= 0 && shape.encodings[place] === Encoding.Vector;
  }

  /**
   * Doc `doc`'s keys in order (as `Object.keys` of its product), decoding no value. Shared with every doc
   * of its shape: read-only.
   */
  keysOf(doc: number): readonly string[] {
    const id = this.shapeOf[doc];
    return id === WHOLE ? Object.keys(JSON.parse(this.raw.get(doc)!) as object) : this.shapes.shapes[id]!.keys;
  }

  /**
   * The store of the docs `docs` of this one (in that order: doc i is `docs[i]` here) against `columns`,
   * the columns of a build of exactly those products (a merge), in steps. Products are not encoded again:
   * an encoding depends only on the product's own value and on its doc's entries in the columns, which a
   * build from the same values gives again, so each doc keeps its shape (its field ids renumbered) and
   * its side-store bytes, copied. Revisions are kept. A shape the new columns cannot serve (a vector
   * column of another dimension) is encoded again from the decoded products. A negative entry
   * `docs[i]` names a product not in this store, `given[-1 - docs[i]]` (a rebuild's new or changed
   * product): it is encoded, with a new revision.
   */
  *compacted(docs: Uint32Array | Int32Array, columns: StoreColumns, given: readonly Product[] = []): Steps<ProductStore> {
    const n = docs.length;
    const shapes = new ShapeTable();
    // Old shape id → new id (0: not translated yet; -1: its docs are encoded again).
    const translated = new Int32Array(this.shapes.size);
    const shapeOf = new Uint16Array(n);
    const revisions = new Float64Array(n);
    const rawDocs: number[] = [];
    // Per entry of rawDocs: the old entry's index, or -1 - (index in `encodedAgain`).
    const rawFrom: number[] = [];
    const encodedAgain: string[] = [];
    let rawBytes = 0;
    const encode = (product: Product, i: number): void => {
      const encoded = encodeProduct(product, i, columns, shapes);
      shapeOf[i] = encoded.shape;
      if (encoded.raw !== undefined) {
        rawDocs.push(i);
        rawFrom.push(-1 - encodedAgain.length);
        encodedAgain.push(encoded.raw);
        rawBytes += Buffer.byteLength(encoded.raw, 'utf8');
      }
    };
    for (let i = 0; i < n; i++) {
      const doc = docs[i];
      if (doc < 0) {
        // A product given by the batch being built (new, or changing a stored one): a new revision.
        revisions[i] = newRevision();
        encode(given[-1 - doc], i);
        if ((i & COPY_STEP_MASK) === COPY_STEP_MASK) yield;
        continue;
      }
      revisions[i] = this.revisions[doc];
      const id = this.shapeOf[doc];
      let to = id === WHOLE ? WHOLE : translated[id];
      if (id !== WHOLE && to === 0) to = translated[id] = this.translatedShape(this.shapes.shapes[id]!, columns, shapes);
      if (to < 0) {
        encode(this.decode(doc), i);
      } else {
        shapeOf[i] = to;
        if (to === WHOLE || this.shapes.shapes[id]!.hasRaw) {
          const entry = this.raw.indexOf(doc);
          rawDocs.push(i);
          rawFrom.push(entry);
          rawBytes += this.raw.offsets[entry + 1] - this.raw.offsets[entry];
        }
      }
      if ((i & COPY_STEP_MASK) === COPY_STEP_MASK) yield;
    }
    const offsets = new Float64Array(rawDocs.length + 1);
    const bytes = new Uint8Array(rawBytes);
    let at = 0;
    for (let k = 0; k < rawDocs.length; k++) {
      const from = rawFrom[k];
      if (from >= 0) {
        const entry = this.raw.bytes.subarray(this.raw.offsets[from], this.raw.offsets[from + 1]);
        bytes.set(entry, at);
        at += entry.length;
      } else at += encoder.encodeInto(encodedAgain[-1 - from], bytes.subarray(at)).written;
      offsets[k + 1] = at;
      if ((k & COPY_STEP_MASK) === COPY_STEP_MASK) yield;
    }
    const raw = rawDocs.length === 0 ? RawValues.EMPTY : new RawValues(Uint32Array.from(rawDocs), offsets, bytes);
    return new ProductStore(columns, shapes, shapeOf, revisions, raw);
  }

  /**
   * `shape` (of this store) interned in `shapes` with the field ids of `columns`, or -1 when `columns`
   * cannot give its values back as encoded (a vector column of another dimension, a column the build
   * did not make): its docs are then encoded again.
   */
  private translatedShape(shape: Shape, columns: StoreColumns, shapes: ShapeTable): number {
    const fids = new Array<number>(shape.keys.length);
    for (let i = 0; i < shape.keys.length; i++) {
      const fid = columns.fieldByName.get(shape.keys[i]) ?? -1;
      const encoding = shape.encodings[i] as Encoding;
      if (!servesEncoding(encoding, fid < 0 ? undefined : columns.fields[fid], columns.vectors, this.columns.vectors)) return -1;
      fids[i] = fid;
    }
    const id = shapes.intern(shape.keys, fids, shape.encodings);
    // A full table keeps products whole: encoded again, they are.
    return id === WHOLE ? -1 : id;
  }

  /**
   * This store with `added` products after its docs (each with a new revision), against `columns`: the
   * columns of the version they were appended to (those of the existing docs unchanged).
   */
  *appended(added: readonly Product[], columns: StoreColumns): Steps<ProductStore> {
    const n = this.length;
    // Grown at their end, in place when this is the latest store of its lineage (see extendShared): an
    // append costs its new docs, not a copy of every doc's shape and revision.
    const shapeOf = extendShared(this.shapeOf, n + added.length);
    const revisions = extendShared(this.revisions, n + added.length);
    const rawDocs: number[] = [];
    const rawTexts: string[] = [];
    const shapes = this.shapesToExtend();
    for (let j = 0; j < added.length; j++) {
      const encoded = encodeProduct(added[j], n + j, columns, shapes);
      shapeOf[n + j] = encoded.shape;
      revisions[n + j] = newRevision();
      if (encoded.raw !== undefined) { rawDocs.push(n + j); rawTexts.push(encoded.raw); }
      if (j % PRODUCTS_PER_STEP === PRODUCTS_PER_STEP - 1) yield;
    }
    return new ProductStore(columns, shapes, shapeOf, revisions, this.raw.merged([], rawDocs, rawTexts));
  }

  /**
   * This store with the `changed` products (doc → product) in place of theirs, each with a new revision,
   * against `columns`: the version's columns, patched for those products (the others' values unchanged).
   */
  *replaced(changed: ReadonlyMap<number, Product>, columns: StoreColumns): Steps<ProductStore> {
    // Copies on shared buffers, as a build and an append make them (a value patch at 1M copied 10 MB
    // onto plain buffers, V8's external memory, per change), growable so that the next append extends them;
    // in steps, as the change's other passes are.
    const shapeOf = yield* growableCopySteps(this.shapeOf);
    const revisions = yield* growableCopySteps(this.revisions);
    const docs = [...changed.keys()].sort((a, b) => a - b);
    const rawDocs: number[] = [];
    const rawTexts: string[] = [];
    const shapes = this.shapesToExtend();
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      const encoded = encodeProduct(changed.get(d)!, d, columns, shapes);
      shapeOf[d] = encoded.shape;
      revisions[d] = newRevision();
      if (encoded.raw !== undefined) { rawDocs.push(d); rawTexts.push(encoded.raw); }
      if (i % PRODUCTS_PER_STEP === PRODUCTS_PER_STEP - 1) yield;
    }
    return new ProductStore(columns, shapes, shapeOf, revisions, this.raw.merged(docs, rawDocs, rawTexts));
  }
}

/**
 * A typed array reused by every page read (one thread reads one page at a time, and nothing a read
 * calls reads another): a page's typed arrays cost more to allocate than to fill.
 */
class PageScratch<T extends Float64Array | Int32Array | Uint16Array> {
  constructor(private array: T, private readonly make: (length: number) => T) {}

  /** The array, with room for at least `count` entries (their contents are left over). */
  room(count: number): T {
    if (this.array.length < count) this.array = this.make(Math.max(count, 2 * this.array.length));
    return this.array;
  }
}

/** Per doc of a page read, its revision ({@link ProductStore.getMany}), shape id and a code ({@link ProductStore.decodeMany}). */
const pageRevisions = new PageScratch(new Float64Array(64), (n) => new Float64Array(n));
const pageShapes = new PageScratch(new Uint16Array(64), (n) => new Uint16Array(n));
const pageCodes = new PageScratch(new Int32Array(64), (n) => new Int32Array(n));

/**
 * Decoded products kept for re-reads, by revision: a revision always decodes to the same product,
 * whichever store version reads it, so one cache serves every catalog of the process. Decoding a
 * product costs 2-5 µs (its values are spread over the columns: cache misses), a page of 20 up to
 * 0.1 ms; the pages of popular searches come from here. 16,384 products take ~5-6 MB (~270-330 bytes
 * a product beyond the values the columns already hold, generated and Flipkart products alike; decision
 * 0067): against 8,192, 63 % of a fresh 100k text run's reads hit instead of 56 %, and a 20k catalog's
 * first reads are mostly kept.
 *
 * Two ways per set, by the revision's low bits (the product read last first, the other evicted when a
 * third comes): a look-up reads two adjacent revisions of a typed array and one slot, where a Map read
 * its hash table's bucket and entry chain — for a page of products, cache misses at every step. On the
 * peers' workload it keeps what the two Map generations it replaces kept (55.9 % of a fresh 100k text
 * run's reads against 55.1 %, decision 0062), and, unlike them, frees no table when it turns over.
 */
export const DECODED_CACHE_SIZE = 16_384;
/** Sets of the decoded-product cache (a power of two: a set is the revision's low bits). */
const DECODED_SETS = DECODED_CACHE_SIZE / 2;
/** Per set, the revisions of its two products, the one read last first (0: none; revisions start at 1). */
const decodedRevisions = new Float64Array(DECODED_CACHE_SIZE);
/** The products, at their revisions' places. */
const decodedProducts = new Array<Product | undefined>(DECODED_CACHE_SIZE).fill(undefined);

/** The place of a revision's set in the cache (its first way). */
function decodedSet(revision: number): number {
  // `>>> 0` takes the low 32 bits of any revision (they are integers below 2^53).
  return 2 * ((revision >>> 0) & (DECODED_SETS - 1));
}

/** The product kept decoded for `revision` (made the one read last of its set), or undefined. */
function keptDecoded(revision: number): Product | undefined {
  const at = decodedSet(revision);
  if (decodedRevisions[at] === revision) return decodedProducts[at];
  if (decodedRevisions[at + 1] !== revision) return undefined;
  const product = decodedProducts[at + 1];
  decodedRevisions[at + 1] = decodedRevisions[at];
  decodedProducts[at + 1] = decodedProducts[at];
  decodedRevisions[at] = revision;
  decodedProducts[at] = product;
  return product;
}

/** Keeps a product decoded now as the one read last of its set (the set's older one is dropped); returns it. */
function keepDecoded(revision: number, product: Product): Product {
  const at = decodedSet(revision);
  decodedRevisions[at + 1] = decodedRevisions[at];
  decodedProducts[at + 1] = decodedProducts[at];
  decodedRevisions[at] = revision;
  decodedProducts[at] = product;
  return product;
}

let lastRevision = 0;

/** A revision no product has had in this process. */
export function newRevision(): number {
  return ++lastRevision;
}

/** Fresh revisions for `count` new products. */
export function newRevisions(count: number): Float64Array {
  const out = sharedArray(Float64Array, count);
  for (let i = 0; i < count; i++) out[i] = newRevision();
  return out;
}

/** The products of a list, in order (one decode each). */
export function productsOf(list: ProductList): Product[] {
  const out = new Array<Product>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list.get(i);
  return out;
}

/**
 * A list over products held as objects, for catalog views that keep them so (tests, offline tools):
 * an object's revision is the one it was first seen with, so an unchanged object keeps its revision
 * and a replaced product (a new object) gets a new one.
 */
export function objectProductList(products: readonly Product[]): ProductList {
  const revisions = Float64Array.from(products, revisionOfObject);
  return { length: products.length, get: (i) => products[i], revision: (i) => revisions[i] };
}

const objectRevisions = new WeakMap<Product, number>();

function revisionOfObject(product: Product): number {
  let revision = objectRevisions.get(product);
  if (revision === undefined) objectRevisions.set(product, (revision = newRevision()));
  return revision;
}
