/** Vectors written in steps make the bytes the builder's own one-go calls make. */
import { Builder } from 'flatbuffers';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../steps.js';
import { byteVectorSteps, sizedBuilder, stringSteps, utf8LengthSteps, vectorRoom } from './flat-vectors.js';

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

  it('writes a string of several chunks as createString does, surrogate pairs on the chunk boundaries whole', () => {
    // 2^20 characters a chunk: pairs (😀) and three-byte characters straddle every boundary.
    const long = ['é', '😀', 'a', '€'].join('').repeat(700_000) + 'x😀';
    const pieces = ['{"a":', long, '', '😀', 'short', long.slice(3)];
    const text = pieces.join('');
    const byteLength = runSteps(utf8LengthSteps(pieces));
    expect(byteLength).toBe(Buffer.byteLength(text, 'utf8'));
    const size = vectorRoom(3) + vectorRoom(byteLength) + 64;
    const steps = built(size, (b) => runSteps(stringSteps(b, pieces, byteLength)));
    expect(steps.bytes.equals(built(size, (b) => b.createString(text)).bytes)).toBe(true);
    expect(steps.capacity).toBe(size);
    expect(() => runSteps(stringSteps(new Builder(64), pieces, byteLength - 1))).toThrow();
  });
});
