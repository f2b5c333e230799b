/**
 * Products' stored JSON kept compactly: every product's values as JSON text, UTF-8 encoded, back to
 * back in one buffer, with an offsets array (doc d's bytes are `offsets[d] .. offsets[d + 1]`) and its
 * key list ("shape") kept once for all products that share it. A product object costs the heap its
 * values plus object and string headers; the bytes cost their length, on a SharedArrayBuffer outside
 * the heap, readable by the search workers.
 * A product is decoded only when it is returned (the page of a search, a GET), so the cost moves from
 * memory held all the time to a few microseconds per returned product.
 *
 * Not used by the catalog: it keeps its products in the columns instead (`product-store.ts`, decision
 * 0023); kept as the measured alternative (`packages/bench/src/stored-json-memory.ts` measures both
 * forms at 100k and 1M).
 * @module
 */
import type { Product } from '../../types.js';
import { runSteps, STEP, type Steps } from '../steps.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The stored JSON of a list of products; immutable once built. Field names are not repeated per
 * product: each distinct list of keys (a "shape": products of one feed mostly share a handful) is kept
 * once, and a product's bytes are the JSON array of its values in its shape's key order, so decoding
 * gives back the same keys in the same order.
 */
export class StoredJson {
  private constructor(
    /** UTF-8 JSON arrays of every doc's values, back to back. */
    private readonly bytes: Uint8Array,
    /** `count + 1` offsets into `bytes` (Float64 past 4 GiB of text, else Uint32). */
    private readonly offsets: Uint32Array | Float64Array,
    /** The shape (index into `shapes`) of each doc. */
    private readonly shapeOf: Uint32Array,
    /** Key lists. */
    private readonly shapes: readonly (readonly string[])[],
  ) {}

  /** Encodes `products` in doc order (runs in steps; see {@link StoredJson.buildSteps}). */
  static from(products: readonly Product[]): StoredJson {
    return runSteps(StoredJson.buildSteps(products));
  }

  /** Encodes `products` in doc order, yielding every {@link STEP} products (for time-sliced builds). */
  static *buildSteps(products: readonly Product[]): Steps<StoredJson> {
    // One pass: each text is encoded straight into the buffer, which grows by doubling (a first pass
    // to size it exactly would stringify every product twice).
    let bytes: Uint8Array = new Uint8Array(new SharedArrayBuffer(Math.max(1024, products.length * 160)));
    const offsets: number[] = new Array<number>(products.length + 1);
    const shapeOf = new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, products.length)), 0, products.length);
    const shapes: string[][] = [];
    const shapeIds = new Map<string, number>();
    let at = 0;
    for (let d = 0; d < products.length; d++) {
      offsets[d] = at;
      const product = products[d] as Record<string, unknown>;
      // As JSON.stringify of the object would: keys whose value is undefined or a function are left out.
      const keys = Object.keys(product).filter((k) => product[k] !== undefined && typeof product[k] !== 'function');
      const signature = keys.join('\u0000');
      let shape = shapeIds.get(signature);
      if (shape === undefined) {
        shape = shapes.length;
        shapes.push(keys);
        shapeIds.set(signature, shape);
      }
      shapeOf[d] = shape;
      const text = JSON.stringify(keys.map((k) => product[k]));
      // A UTF-8 encoding takes at most 3 bytes per UTF-16 code unit.
      const worst = text.length * 3;
      if (at + worst > bytes.length) bytes = grow(bytes, at, Math.max(bytes.length * 2, at + worst));
      at += encoder.encodeInto(text, bytes.subarray(at)).written;
      if ((d & (STEP - 1)) === STEP - 1) yield;
    }
    offsets[products.length] = at;
    const exact = grow(bytes, at, at);
    const wide = at > 0xffff_ffff;
    const table = wide ? new Float64Array(new SharedArrayBuffer(8 * offsets.length)) : new Uint32Array(new SharedArrayBuffer(4 * offsets.length));
    table.set(offsets);
    return new StoredJson(exact, table, shapeOf, shapes);
  }

  /** Number of products. */
  get count(): number {
    return this.offsets.length - 1;
  }

  /** Bytes held outside the key lists: the values' JSON, the offsets and the shape of each doc. */
  get byteLength(): number {
    return this.bytes.byteLength + this.offsets.byteLength + this.shapeOf.byteLength;
  }

  /** Number of distinct key lists. */
  get shapeCount(): number {
    return this.shapes.length;
  }

  /** Doc `doc` as a fresh object, exactly as given (same keys, same order). */
  get(doc: number): Product {
    const values = JSON.parse(decoder.decode(this.bytes.subarray(this.offsets[doc], this.offsets[doc + 1]))) as unknown[];
    const keys = this.shapes[this.shapeOf[doc]!]!;
    const product: Record<string, unknown> = {};
    // Own data properties (a "__proto__" key stays a field).
    for (let i = 0; i < keys.length; i++) Object.defineProperty(product, keys[i]!, { value: values[i], enumerable: true, writable: true, configurable: true });
    return product as Product;
  }

  /** The JSON text of doc `doc`, as `JSON.stringify` of the product writes it. */
  text(doc: number): string {
    return JSON.stringify(this.get(doc));
  }

  /** Docs `docs` as fresh objects, in the given order (a page of results). */
  page(docs: ArrayLike<number>): Product[] {
    return Array.from(docs, (d) => this.get(d));
  }
}

/** A copy of the first `used` bytes on a SharedArrayBuffer of `capacity` bytes. */
function grow(bytes: Uint8Array, used: number, capacity: number): Uint8Array {
  const next = new Uint8Array(new SharedArrayBuffer(Math.max(1, capacity)), 0, capacity);
  next.set(bytes.subarray(0, used));
  return next;
}
