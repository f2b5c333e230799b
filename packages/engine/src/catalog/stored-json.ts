/**
 * Products' stored JSON kept compactly: every product's JSON text, UTF-8 encoded, back to back in one
 * buffer, with an offsets array (doc d's bytes are `offsets[d] .. offsets[d + 1]`). A product object
 * costs the heap several times its JSON size (a hidden class, boxed numbers, string headers); the bytes
 * cost their length, on a SharedArrayBuffer outside the heap, readable by the search workers.
 * A product is decoded only when it is returned (the page of a search, a GET), so the cost moves from
 * memory held all the time to a few microseconds per returned product.
 *
 * Standalone for now (issue 13, item 3): the catalog keeps its `products` array until the segmented
 * catalog lands; `packages/bench/src/stored-json-memory.ts` measures both forms at 100k and 1M.
 * @module
 */
import type { Product } from '../types.js';
import { runSteps, STEP, type Steps } from './build-catalog-state.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The stored JSON of a list of products; immutable once built. */
export class StoredJson {
  private constructor(
    /** UTF-8 JSON texts of every doc, back to back. */
    private readonly bytes: Uint8Array,
    /** `count + 1` offsets into `bytes` (Float64 past 4 GiB of text, else Uint32). */
    private readonly offsets: Uint32Array | Float64Array,
  ) {}

  /** Encodes `products` in doc order (runs in steps; see {@link StoredJson.buildSteps}). */
  static from(products: readonly Product[]): StoredJson {
    return runSteps(StoredJson.buildSteps(products));
  }

  /** Encodes `products` in doc order, yielding every {@link STEP} products (for time-sliced builds). */
  static *buildSteps(products: readonly Product[]): Steps<StoredJson> {
    // One pass: each text is encoded straight into the buffer, which grows by doubling (a first pass
    // to size it exactly would stringify every product twice).
    let bytes: Uint8Array = new Uint8Array(new SharedArrayBuffer(Math.max(1024, products.length * 256)));
    const offsets: number[] = new Array<number>(products.length + 1);
    let at = 0;
    for (let d = 0; d < products.length; d++) {
      offsets[d] = at;
      const text = JSON.stringify(products[d]);
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
    return new StoredJson(exact, table);
  }

  /** Number of products. */
  get count(): number {
    return this.offsets.length - 1;
  }

  /** Bytes held: the JSON texts plus the offsets. */
  get byteLength(): number {
    return this.bytes.byteLength + this.offsets.byteLength;
  }

  /** The JSON text of doc `doc` (as `JSON.stringify` wrote it). */
  text(doc: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[doc], this.offsets[doc + 1]));
  }

  /** Doc `doc` as a fresh object, exactly as given. */
  get(doc: number): Product {
    return JSON.parse(this.text(doc)) as Product;
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
