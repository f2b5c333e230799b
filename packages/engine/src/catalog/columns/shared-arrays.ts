/**
 * Typed arrays backed by SharedArrayBuffers (so search workers read catalog columns without a copy),
 * and growable builders used while a catalog is being built.
 * @module
 */

import { runSteps, type Steps } from '../steps.js';

type TypedArrayCtor<T> = { new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T; BYTES_PER_ELEMENT: number };

/**
 * A zero-filled typed array of `length` elements on a fresh SharedArrayBuffer.
 *
 * Also what a catalog build allocates its large arrays with, kept or transient (the pages of a
 * {@link PagedBuilder}, per-field and per-term scratch, hash tables): V8 keeps no young-generation
 * account of shared buffers, while for each plain ArrayBuffer it runs a scavenge before allocating
 * another one once the young ones hold twice a semi-space or more ("external memory pressure"), and
 * again at the next one while they are alive. A build at 1M products allocates hundreds of MB of such
 * arrays back to back, which can be freed by no scavenge (they live until the build ends): 8–10 forced
 * scavenges a replace, 15–130 ms each, the longest stalls of the event loop (decisions/0058). Shared
 * buffers count in `process.memoryUsage().arrayBuffers` as plain ones do, and are freed the same way,
 * with the last view on them.
 */
export function sharedArray<T>(ctor: TypedArrayCtor<T>, length: number): T {
  // A zero-length SharedArrayBuffer is legal; keep at least one element so views stay well-formed.
  return new ctor(new SharedArrayBuffer(Math.max(1, length) * ctor.BYTES_PER_ELEMENT), 0, length);
}

/**
 * A copy of `source` on a fresh SharedArrayBuffer, `length` elements long (default: as long; longer: the
 * rest zero-filled). Versions of a catalog never share a column they change.
 */
export function sharedCopy<T extends Float64Array | Float32Array | Uint32Array | Int32Array | Uint16Array | Int16Array | Uint8Array | Int8Array>(source: T, length = source.length): T {
  const ctor = source.constructor as unknown as TypedArrayCtor<T>;
  const out = sharedArray(ctor, length);
  out.set(source.subarray(0, Math.min(source.length, length)) as never);
  return out;
}

type SharedColumn = Float64Array | Float32Array | Uint32Array | Int32Array | Uint16Array | Int16Array | Uint8Array | Int8Array;

/**
 * Per growable buffer, the end (in bytes) of the longest view handed out. Only a view ending there may
 * be extended in place: the bytes after it were never written, and every other view (the columns of
 * older versions, fixed-length) ends at or before it, so no version ever sees what a later one writes.
 * A second extension of the same older view (a version built, then dropped) claims nothing and copies.
 */
const claimedEnd = new WeakMap<SharedArrayBuffer, number>();

/** A growable SharedArrayBuffer (ES2024, in Node since 20; the project's `lib` is ES2023). */
interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  readonly growable: boolean;
  readonly maxByteLength: number;
  grow(byteLength: number): void;
}
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => GrowableSharedArrayBuffer;

/**
 * Bytes held by live growable buffers. V8 counts them neither in `process.memoryUsage().arrayBuffers`
 * nor as external memory (checked on Node 20), so memory figures add them from here: per buffer its
 * current size, released when the buffer is collected.
 */
let growableBytes = 0;
const growableSizes = new WeakMap<SharedArrayBuffer, { bytes: number }>();
const released = new FinalizationRegistry<{ bytes: number }>((size) => { growableBytes -= size.bytes; });

/**
 * Bytes of the growable SharedArrayBuffers this thread allocated that are still alive (collected
 * buffers are subtracted once their finalizers have run, a turn of the event loop after a GC).
 */
export function growableSharedBytes(): number {
  return growableBytes;
}

/** Room a column of `length` elements is given to grow into in place (virtual memory until written). */
export function spareCapacity(length: number): number {
  return Math.max(2 * length, length + 1024);
}

/**
 * A zero-filled typed array of `length` elements on a growable SharedArrayBuffer (Node ≥ 20) that
 * {@link extendShared} can extend in place up to `capacity` elements.
 */
export function growableArray<T extends SharedColumn>(ctor: TypedArrayCtor<T>, length: number, capacity = spareCapacity(length)): T {
  const bytes = ctor.BYTES_PER_ELEMENT;
  const buffer = new GrowableSharedArrayBuffer(Math.max(1, length) * bytes, { maxByteLength: Math.max(1, capacity, length) * bytes });
  claimedEnd.set(buffer, length * bytes);
  const size = { bytes: buffer.byteLength };
  growableBytes += size.bytes;
  growableSizes.set(buffer, size);
  released.register(buffer, size);
  return new ctor(buffer, 0, length);
}

/**
 * `source` extended to `length` elements (>= its own), the new ones 0: per-doc columns of an appended
 * version. In place when `source` is the latest view of a growable buffer with room left (the older
 * version keeps its fixed-length view and never reads past it, on any thread); otherwise a copy onto a
 * growable buffer with spare room, so the next extension is in place. Costs the new elements, or a copy
 * once every doubling.
 */
export function extendShared<T extends SharedColumn>(source: T, length: number): T {
  const ctor = source.constructor as unknown as TypedArrayCtor<T>;
  const buffer = source.buffer as GrowableSharedArrayBuffer;
  const end = source.byteOffset + source.byteLength;
  const newEnd = source.byteOffset + length * ctor.BYTES_PER_ELEMENT;
  if (length >= source.length && buffer instanceof SharedArrayBuffer && buffer.growable && claimedEnd.get(buffer) === end && newEnd <= buffer.maxByteLength) {
    if (newEnd > buffer.byteLength) {
      const size = growableSizes.get(buffer)!;
      growableBytes += newEnd - buffer.byteLength;
      size.bytes += newEnd - buffer.byteLength;
      buffer.grow(newEnd);
    }
    claimedEnd.set(buffer, newEnd);
    return new ctor(buffer, source.byteOffset, length);
  }
  return growableCopy(source, length);
}

/**
 * A copy of `source` on a growable SharedArrayBuffer of its own, `length` elements long (default: as
 * long; longer: the rest 0), which {@link extendShared} extends in place: for a version's copy of a
 * per-doc column it changes. Not a plain `slice()`, whose buffer V8 counts as external memory (a
 * collection forced by a few copies of megabytes, decisions/0058).
 */
export function growableCopy<T extends SharedColumn>(source: T, length = source.length): T {
  return runSteps(growableCopySteps(source, length));
}

/** Elements {@link growableCopySteps} copies per step (512 KB of Float64). */
const COPY_STEP = 65536;

/**
 * {@link growableCopy} in steps of {@link COPY_STEP} elements, for a copy made inside a change: a value
 * patch's copy of the revisions (8 MB at 1M products) and of the shapes wrote and mapped every page of
 * the fresh buffers in one step (docs/benchmarks.md: a price change's window held 129 ms once). `source`
 * must not change below `length` meanwhile: an older version's column (appends write past its end).
 */
export function* growableCopySteps<T extends SharedColumn>(source: T, length = source.length): Steps<T> {
  const out = growableArray(source.constructor as unknown as TypedArrayCtor<T>, length);
  const end = Math.min(source.length, length);
  for (let at = 0; at < end; at += COPY_STEP) {
    if (at > 0) yield;
    out.set(source.subarray(at, Math.min(end, at + COPY_STEP)) as never, at);
  }
  return out;
}

/** A growable typed buffer (doubling); `toShared()` copies the used part onto a SharedArrayBuffer. */
export class Growable<T extends Uint32Array | Int32Array | Float64Array | Float32Array | Uint16Array | Uint8Array> {
  private data: T;
  length = 0;
  constructor(private readonly ctor: TypedArrayCtor<T> & { new (length: number): T }, capacity = 1024) {
    this.data = new ctor(capacity);
  }
  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length * 2);
    this.data[this.length++] = value;
  }
  get(i: number): number {
    return this.data[i];
  }
  set(i: number, value: number): void {
    this.data[i] = value;
  }
  /** Ensures index `i` exists (new slots are 0). */
  ensure(length: number): void {
    if (length > this.data.length) this.grow(Math.max(length, this.data.length * 2));
    if (length > this.length) this.length = length;
  }
  private grow(capacity: number): void {
    const next = new this.ctor(capacity);
    next.set(this.data as never);
    this.data = next;
  }
  /** The used part, as a view (not shared, not copied). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
  toShared(): T {
    const out = sharedArray(this.ctor, this.length);
    (out as unknown as { set(a: T): void }).set(this.view());
    return out;
  }
}

const PAGE_BITS = 16;
const PAGE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE - 1;

/** Elements of a {@link PagedBuilder}'s first page until it grows: a small builder costs no full page. */
const FIRST_PAGE = 1024;

/**
 * An append-only typed buffer in fixed pages of 65 536 elements: growing allocates one page and
 * copies nothing (a doubling {@link Growable} copies its whole content, 100–200 ms at tens of millions
 * of postings, in one go). Only the first page starts small ({@link FIRST_PAGE}) and doubles up to a
 * full page (copies of at most 64k elements): an append writing a few postings zeroes no 256 KB page.
 * Used by catalog builds, which run in time slices, and by appends.
 */
export class PagedBuilder<T extends Uint32Array | Uint16Array | Uint8Array> {
  private readonly pages: T[] = [];
  private page: T;
  /** Index in {@link pages} of the page being written. */
  private current = 0;
  private at = 0;
  length = 0;
  constructor(private readonly ctor: TypedArrayCtor<T>) {
    // Pages on shared buffers: see sharedArray (no scavenge forced per page).
    this.page = sharedArray(ctor, FIRST_PAGE);
    this.pages.push(this.page);
  }
  push(value: number): void {
    if (this.at === this.page.length) this.grow();
    this.page[this.at++] = value;
    this.length++;
  }
  /**
   * Empties the builder and keeps its pages for the next pushes: a build's passes that fill one
   * builder per field reuse the same buffers instead of allocating a field's worth of new ones each
   * time (see `build-catalog-state.ts`, `FieldScratch`).
   */
  clear(): void {
    this.page = this.pages[0];
    this.current = 0;
    this.at = 0;
    this.length = 0;
  }
  private grow(): void {
    if (this.at < PAGE) {
      // The first page, not yet full size: doubled in place of itself (get reads it as page 0).
      const bigger = sharedArray(this.ctor, Math.min(PAGE, this.at * 2));
      (bigger as unknown as { set(a: T): void }).set(this.page);
      this.page = this.pages[0] = bigger;
      return;
    }
    this.current++;
    // A page kept from before a clear() is written over: only the first `length` elements are read.
    if (this.current === this.pages.length) this.pages.push(sharedArray(this.ctor, PAGE));
    this.page = this.pages[this.current];
    this.at = 0;
  }
  get(i: number): number {
    return this.pages[i >>> PAGE_BITS][i & PAGE_MASK];
  }
  /** Copies the content into `out` (at least `length` long), one page per step. */
  *copyTo(out: { set(a: ArrayLike<number>, offset: number): void }): Generator<void, void, void> {
    for (let p = 0; p * PAGE < this.length; p++) {
      const n = Math.min(PAGE, this.length - p * PAGE);
      out.set(n === PAGE ? this.pages[p] : this.pages[p].subarray(0, n), p * PAGE);
      if ((p & 15) === 15) yield;
    }
  }
}
