/**
 * The transient per-doc arrays of a build's field passes (`build-catalog-state.ts`), allocated once per
 * build and reused by one field after another instead of allocated per field.
 *
 * Why: a build of a million products allocated, per field, an 8 MB array of numbers, a 4 MB array of
 * offsets, a 4 MB copy of the codes and a field's worth of 256 KB code pages, back to back — hundreds of
 * MB per build of arrays that live one field each. As plain ArrayBuffers they made V8 run scavenges
 * for external memory pressure (see `sharedArray` in shared-arrays.ts), the longest stalls of a full
 * replace at 1M (decisions/0058). Reused, they are allocated once per build (on shared buffers, as the
 * build's other large arrays).
 *
 * Each array is valid only until the next field's pass asks for it again: a pass copies what it keeps.
 * @module
 */
import { PagedBuilder, sharedArray } from '../columns/shared-arrays.js';

/** Scratch arrays for the field passes of one build of `docCount` docs. */
export class FieldScratch {
  private numberArray?: Float64Array;
  private offsetArray?: Uint32Array;
  private codeArray = sharedArray(Uint32Array, 0);
  private cursorArray = sharedArray(Uint32Array, 0);
  /** A field's codes in doc order while they are read (cleared by {@link codeBuilder}). */
  private readonly codes = new PagedBuilder(Uint32Array);

  constructor(readonly docCount: number) {}

  /** Per doc a number, every entry NaN (a field's numbers while they are read). */
  numbers(): Float64Array {
    return (this.numberArray ??= sharedArray(Float64Array, this.docCount)).fill(NaN);
  }

  /** `docCount + 1` offsets, every entry 0 (a field's code offsets per doc). */
  offsets(): Uint32Array {
    return (this.offsetArray ??= sharedArray(Uint32Array, this.docCount + 1)).fill(0);
  }

  /** The code builder, emptied. */
  codeBuilder(): PagedBuilder<Uint32Array> {
    this.codes.clear();
    return this.codes;
  }

  /** `length` codes (contents undefined: the caller writes all of them). */
  flatCodes(length: number): Uint32Array {
    if (this.codeArray.length < length) this.codeArray = sharedArray(Uint32Array, grownLength(this.codeArray.length, length));
    return this.codeArray.subarray(0, length);
  }

  /** `length` cursor entries (contents undefined: the caller writes all of them). */
  cursors(length: number): Uint32Array {
    if (this.cursorArray.length < length) this.cursorArray = sharedArray(Uint32Array, grownLength(this.cursorArray.length, length));
    return this.cursorArray.subarray(0, length);
  }
}

/**
 * A scratch array's new length when `needed` exceeds `current`: at least half again as long, so fields
 * a little larger one after another do not each allocate a new one.
 */
function grownLength(current: number, needed: number): number {
  return Math.max(needed, Math.ceil(current * 1.5));
}
