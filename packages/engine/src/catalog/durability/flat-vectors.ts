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

/** Characters encoded between two yields (at most 4 MiB of UTF-8). */
const CHUNK_CHARS = CHUNK_BYTES / 4;

/** UTF-8 bytes of `pieces` together, in steps (a piece is whole text: no surrogate pair split between two). */
export function* utf8LengthSteps(pieces: readonly string[]): Steps<number> {
  let bytes = 0;
  let chars = 0;
  for (const piece of pieces) {
    bytes += Buffer.byteLength(piece, 'utf8');
    chars += piece.length;
    if (chars >= CHUNK_CHARS) { chars = 0; yield; }
  }
  return bytes;
}

/**
 * `createString(pieces.join(''))`, encoded to UTF-8 about {@link CHUNK_CHARS} characters per step
 * (never splitting a surrogate pair; a piece must not end inside one). `byteLength`: the pieces'
 * length in UTF-8 ({@link utf8LengthSteps}).
 */
export function stringSteps(b: Builder, pieces: readonly string[], byteLength: number): Steps<number> {
  b.addInt8(0);
  return vectorSteps(b, byteLength, function* (target, at) {
    let written = 0;
    let chars = 0;
    for (const piece of pieces) {
      for (let from = 0; from < piece.length;) {
        let to = Math.min(piece.length, from + CHUNK_CHARS);
        // A high surrogate ends the chunk: its pair goes with the next one.
        if (to < piece.length && (piece.charCodeAt(to - 1) & 0xfc00) === 0xd800) to--;
        const text = from === 0 && to === piece.length ? piece : piece.slice(from, to);
        written += encoder.encodeInto(text, target.subarray(at + written, at + byteLength)).written;
        chars += to - from;
        from = to;
        if (chars >= CHUNK_CHARS) { chars = 0; yield; }
      }
    }
    if (written !== byteLength) throw new Error(`string of ${byteLength} UTF-8 bytes encoded as ${written}`);
  });
}
