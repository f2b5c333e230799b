/**
 * Bitsets over doc ids: a Uint32Array, bit `d & 31` of word `d >>> 5` stands for doc `d` (relative to
 * the range start the caller chose). Filters combine with word-wide AND/OR; counting uses popcount.
 * @module
 */

/** Words needed for `bits` bits. */
export function bitsetWords(bits: number): number {
  return (bits + 31) >>> 5;
}

/** A bitset with the first `bits` bits set. */
export function fullBitset(bits: number): Uint32Array {
  const set = new Uint32Array(bitsetWords(bits)).fill(0xffffffff);
  const tail = bits & 31;
  if (tail !== 0) set[set.length - 1] = (1 << tail) - 1;
  return set;
}

/** `target &= other`, word by word. */
export function andInto(target: Uint32Array, other: Uint32Array): void {
  for (let i = 0; i < target.length; i++) target[i] &= other[i];
}

/** Clears in `target` every bit set in `other` (`target &= ~other`). */
export function andNotInto(target: Uint32Array, other: Uint32Array): void {
  for (let i = 0; i < target.length; i++) target[i] &= ~other[i];
}

/** Number of set bits in one 32-bit word (SWAR popcount). */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Number of set bits in the first `words` words of `set` (all of them by default). */
export function popcount(set: Uint32Array, words = set.length): number {
  let n = 0;
  for (let i = 0; i < words; i++) if (set[i] !== 0) n += popcount32(set[i]);
  return n;
}

/** True when no bit is set. */
export function isEmpty(set: Uint32Array): boolean {
  for (let i = 0; i < set.length; i++) if (set[i] !== 0) return false;
  return true;
}
