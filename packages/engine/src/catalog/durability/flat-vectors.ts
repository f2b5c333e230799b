/**
 * Byte vectors and strings written into a flatbuffers `Builder` in steps of {@link CHUNK_BYTES}, for
 * a snapshot's encoding in time slices. The builder's own `createByteVector` and `createString` copy
 * a whole vector in one go, and a builder too small for it first copies everything written so far into
 * one twice as large (`growByteBuffer`): at a million products (a 400 MB snapshot) single steps of
 * 150-450 ms of CPU (decisions/0070). The caller sizes the builder for the whole file
 * ({@link vectorRoom}), so it never grows, and each vector is copied a chunk per step.
 * @module
 */
import { Builder, ByteBuffer } from 'flatbuffers';
import { sharedArray } from '../columns/shared-arrays.js';
import type { Steps } from '../steps.js';

/** Bytes copied between two yields (4 MiB: about a millisecond). */
const CHUNK_BYTES = 1 << 22;

/**
 * The builder's free room below what it has written (flatbuffers writes back to front): its `space`,
 * private in the typings and what `createByteVector` moves. Read and moved here only, after
 * `startVector` has made room.
 */
interface BuilderSpace { space: number; bb: ByteBuffer }

function spaceOf(b: Builder): BuilderSpace {
  const internals = b as unknown as BuilderSpace;
  if (typeof internals.space !== 'number' || !(internals.bb instanceof ByteBuffer)) throw new Error('flatbuffers Builder without a numeric space: the library changed');
  return internals;
}

/**
 * A builder of `size` bytes on a SharedArrayBuffer: V8 counts a plain ArrayBuffer as external memory,
 * and allocating one of hundreds of megabytes (a snapshot at a million products) starts a full
 * collection of the heap in that step; shared buffers are not counted (decisions/0058).
 */
export function sizedBuilder(size: number): Builder {
  const b = new Builder(1);
  const internals = spaceOf(b);
  internals.bb = new ByteBuffer(sharedArray(Uint8Array, size));
  internals.space = size;
  return b;
}

/** Room a vector of `byteLength` bytes takes in a builder: its length prefix, alignment and a string's terminator. */
export function vectorRoom(byteLength: number): number {
  return byteLength + 16;
}

/** A vector of `length` bytes whose bytes `write(target, at)` puts from `at` on, in steps; its offset. */
function* vectorSteps(b: Builder, length: number, write: (target: Uint8Array, at: number) => Steps<void>): Steps<number> {
  b.startVector(1, length, 1);
  const room = spaceOf(b);
  const start = room.space - length;
  // After startVector: the buffer the builder writes to now (it grows into a new one when too small).
  yield* write(b.dataBuffer().bytes(), start);
  room.space = start;
  b.dataBuffer().setPosition(start);
  return b.endVector();
}

/** `createByteVector(bytes)`, copied a chunk per step. */
export function byteVectorSteps(b: Builder, bytes: Uint8Array): Steps<number> {
  return vectorSteps(b, bytes.length, function* (target, at) {
    for (let from = 0; from < bytes.length; from += CHUNK_BYTES) {
      if (from > 0) yield;
      target.set(bytes.subarray(from, Math.min(bytes.length, from + CHUNK_BYTES)), at + from);
    }
  });
}

const encoder = new TextEncoder();

/** The first chunk of a {@link Utf8Chunks}. */
const FIRST_CHUNK_BYTES = 1 << 16;

/**
 * Text kept as UTF-8 as it is made, in shared chunks of {@link CHUNK_BYTES} (filled to the last whole
 * character): what a snapshot's meta JSON is written into, a piece at a time. Kept as JS strings until
 * the builder was sized, the meta (the dictionaries and the vocabulary: tens of megabytes at a million
 * products) survived into the old generation, and with the other growth of the write started a
 * collection of the whole heap, whose marking the main thread finished in one step of up to 140 ms on
 * a CPU at 1M (decision 0087). Each piece added here dies young; the chunks are shared buffers, which
 * V8 does not count as external memory (decisions/0058).
 */
export class Utf8Chunks {
  /** The chunks, each cut to its bytes once the next one begins; the last one is cut by {@link parts}. */
  private readonly full: Uint8Array[] = [];
  private current: Uint8Array | undefined;
  private used = 0;
  /** Bytes added so far. */
  byteLength = 0;

  /** Appends `text` encoded to UTF-8 (a character, a surrogate pair whole, is never split between two chunks). */
  add(text: string): void {
    let rest = text;
    for (;;) {
      this.current ??= this.nextChunk();
      const { read, written } = encoder.encodeInto(rest, this.current.subarray(this.used));
      this.used += written;
      this.byteLength += written;
      if (read === rest.length) return;
      // The next character did not fit (up to 4 bytes): it starts the next chunk.
      rest = rest.slice(read);
      this.full.push(this.current.subarray(0, this.used));
      this.current = this.nextChunk();
      this.used = 0;
    }
  }

  /** A fresh chunk: 64 KiB first, doubling up to {@link CHUNK_BYTES} (a small catalog's meta takes little). */
  private nextChunk(): Uint8Array {
    return sharedArray(Uint8Array, Math.min(CHUNK_BYTES, FIRST_CHUNK_BYTES * 2 ** this.full.length));
  }

  /** The bytes added, in order. */
  parts(): Uint8Array[] {
    return this.current === undefined ? this.full.slice() : [...this.full, this.current.subarray(0, this.used)];
  }
}

/**
 * `createString` of the text in `text`, copied a chunk per step. `text` must hold UTF-8 as
 * `createString` encodes a string (what {@link Utf8Chunks.add} writes).
 */
export function utf8StringSteps(b: Builder, text: Utf8Chunks): Steps<number> {
  b.addInt8(0);
  return vectorSteps(b, text.byteLength, function* (target, at) {
    let written = 0;
    for (const part of text.parts()) {
      if (written > 0) yield;
      target.set(part, at + written);
      written += part.length;
    }
  });
}

/**
 * Characters of values in one piece of {@link jsonStringArraySteps}: the piece's JSON stays a small
 * string that dies young, and a step a fraction of a millisecond.
 */
export const JSON_PIECE_CHARS = 16_384;
/** Values in one piece at most (empty values count no characters). */
const JSON_PIECE_VALUES = 4096;

/**
 * `JSON.stringify` of the strings `at(0) .. at(count - 1)` added to `text`, stringified a piece of about
 * {@link JSON_PIECE_CHARS} characters per step.
 */
export function* jsonStringArraySteps(text: Utf8Chunks, count: number, at: (i: number) => string): Steps<void> {
  text.add('[');
  let piece: string[] = [];
  let chars = 0;
  for (let i = 0; i < count; i++) {
    const value = at(i);
    piece.push(value);
    chars += value.length;
    if (chars >= JSON_PIECE_CHARS || piece.length === JSON_PIECE_VALUES || i === count - 1) {
      if (i + 1 > piece.length) text.add(',');
      const json = JSON.stringify(piece);
      text.add(json.slice(1, -1));
      piece = [];
      chars = 0;
      yield;
    }
  }
  text.add(']');
}
