/** Vectors written in steps make the bytes the builder's own one-go calls make. */
import { Builder } from 'flatbuffers';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../steps.js';
import { byteVectorSteps, JSON_PIECE_CHARS, jsonStringArraySteps, sizedBuilder, utf8StringSteps, Utf8Chunks, vectorRoom } from './flat-vectors.js';

/** A builder's bytes after a small vector, `value`'s vector (by `write`) and a table pointing at both. */
function built(initialSize: number, write: (b: Builder) => number, make = (size: number) => new Builder(size)): { bytes: Buffer; capacity: number } {
  const b = make(initialSize);
  const before = b.createByteVector(Uint8Array.from([1, 2, 3]));
  const offset = write(b);
  b.startObject(2);
  b.addFieldOffset(0, before, 0);
  b.addFieldOffset(1, offset, 0);
  b.finish(b.endObject());
  return { bytes: Buffer.from(b.asUint8Array()), capacity: b.dataBuffer().capacity() };
}

describe('flat vectors in steps', () => {
  it('writes a byte vector of several chunks as createByteVector does, in a builder sized for it that does not grow', () => {
    const bytes = new Uint8Array(9 * (1 << 20) + 5);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 255;
    const size = vectorRoom(3) + vectorRoom(bytes.length) + 64;
    const steps = built(size, (b) => runSteps(byteVectorSteps(b, bytes)));
    expect(steps.bytes.equals(built(size, (b) => b.createByteVector(bytes)).bytes)).toBe(true);
    expect(steps.capacity).toBe(size);
    // On a shared buffer (what a snapshot uses): the same bytes, no growth.
    const shared = built(size, (b) => runSteps(byteVectorSteps(b, bytes)), sizedBuilder);
    expect(shared.bytes.equals(steps.bytes)).toBe(true);
    expect(shared.capacity).toBe(size);
    // Too small a builder still grows (once per doubling) and writes the same bytes.
    expect(built(64, (b) => runSteps(byteVectorSteps(b, bytes))).bytes.equals(steps.bytes)).toBe(true);
  });

  it('yields between chunks', () => {
    const b = new Builder(vectorRoom(9 << 20));
    let yields = 0;
    const steps = byteVectorSteps(b, new Uint8Array(9 << 20));
    while (!steps.next().done) yields++;
    expect(yields).toBe(2);
  });

  it('writes UTF-8 chunks of several chunks as createString writes their text, characters on the chunk boundaries whole', () => {
    // 4 MiB chunks (after smaller first ones): pairs (😀) and three-byte characters straddle the boundaries.
    const long = ['é', '😀', 'a', '€'].join('').repeat(700_000) + 'x😀';
    const pieces = ['{"a":', long, '', '😀', 'short', long.slice(3), long];
    const text = new Utf8Chunks();
    for (const piece of pieces) text.add(piece);
    const joined = pieces.join('');
    expect(text.byteLength).toBe(Buffer.byteLength(joined, 'utf8'));
    expect(text.parts().length).toBeGreaterThan(3);
    expect(Buffer.concat(text.parts()).equals(Buffer.from(joined, 'utf8'))).toBe(true);
    const size = vectorRoom(3) + vectorRoom(text.byteLength) + 64;
    const steps = built(size, (b) => runSteps(utf8StringSteps(b, text)));
    expect(steps.bytes.equals(built(size, (b) => b.createString(joined)).bytes)).toBe(true);
    expect(steps.capacity).toBe(size);
    // Nothing added: the empty string.
    expect(built(128, (b) => runSteps(utf8StringSteps(b, new Utf8Chunks()))).bytes.equals(built(128, (b) => b.createString('')).bytes)).toBe(true);
  });

  it('writes an array of strings as JSON.stringify does, a piece of about JSON_PIECE_CHARS characters a step', () => {
    // 1,000 values of 200 characters (quotes, escapes, pairs): 200,000 characters, 13 pieces of 82 values.
    const values = Array.from({ length: 1000 }, (_, i) => `"${i}" \\ é😀 \n `.padEnd(200, 'x'));
    for (const count of [0, 1, 7, values.length]) {
      const text = new Utf8Chunks();
      const steps = jsonStringArraySteps(text, count, (i) => values[i]!);
      let yields = 0;
      while (!steps.next().done) yields++;
      expect(Buffer.concat(text.parts()).toString('utf8')).toBe(JSON.stringify(values.slice(0, count)));
      // A step per piece: no step stringifies much more than a piece's characters.
      expect(yields).toBe(Math.ceil(count / Math.ceil(JSON_PIECE_CHARS / 200)));
    }
  });
});
