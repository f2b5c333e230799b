/**
 * HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256) in JavaScript, for the short messages signed on every
 * answer (result-list ids, clicks/query-ids.ts). The bytes are those of `createHmac('sha256', key)`:
 * the same algorithm, checked against node:crypto by a property test.
 *
 * Why not node:crypto: an HMAC made by `createHmac` costs ~2.5 µs in a loop, but a never-asked search
 * at 100k products paid ~23 µs of CPU for it in place (median; decision 0062): each call crosses into
 * C++ and OpenSSL (a context fetched and keyed, a native object made and later finalised), code and
 * data that the search's own work has pushed out of the caches by then. Here a key's two padded blocks
 * are compressed once ({@link HmacSha256Key}), so a message of up to 55 bytes costs two compressions
 * (~1 µs in a loop), in code the JIT keeps beside the search's.
 * @module
 */
import { createHash } from 'node:crypto';

/** SHA-256's block size in bytes (the HMAC pads its key to it). */
const BLOCK_BYTES = 64;
/** SHA-256's digest size in bytes. */
export const DIGEST_BYTES = 32;

/** SHA-256's initial hash value (FIPS 180-4, 5.3.3). */
const INITIAL_STATE = Int32Array.of(
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
);

/** SHA-256's round constants (FIPS 180-4, 4.2.2). */
const ROUND_CONSTANTS = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

/** The message schedule, reused by every compression (the module runs on one thread at a time). */
const schedule = new Int32Array(64);

/** Compresses the 64-byte block `bytes[at .. at+64)` into `state` (FIPS 180-4, 6.2.2). */
function compress(state: Int32Array, bytes: Uint8Array, at: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++, at += 4) w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15];
    const y = w[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + ROUND_CONSTANTS[i] + w[i]) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0;
  state[5] = (state[5] + f) | 0;
  state[6] = (state[6] + g) | 0;
  state[7] = (state[7] + h) | 0;
}

/**
 * Finishes a hash whose state has taken `before` bytes in whole blocks: `message` is the rest, padded
 * and length-suffixed (FIPS 180-4, 5.1.1), through `scratch` (at least `message.length` + 72 bytes,
 * zeros past the message are written here). The digest is written big-endian into `out` at `outAt`.
 */
function finish(state: Int32Array, before: number, message: Uint8Array, scratch: Uint8Array, out: Uint8Array, outAt: number): void {
  const length = message.length;
  const whole = length - (length % BLOCK_BYTES);
  for (let at = 0; at < whole; at += BLOCK_BYTES) compress(state, message, at);
  const rest = length - whole;
  // The rest, the 0x80 marker, zeros, and the length in bits as 64 bits: one block, or two when the
  // rest leaves fewer than 9 bytes free.
  const tail = rest + 9 <= BLOCK_BYTES ? BLOCK_BYTES : 2 * BLOCK_BYTES;
  for (let i = 0; i < rest; i++) scratch[i] = message[whole + i];
  scratch[rest] = 0x80;
  scratch.fill(0, rest + 1, tail);
  const bits = (before + length) * 8;
  // Messages here are far below 2^53 bits: the high word is the number's part above 2^32.
  const high = Math.floor(bits / 2 ** 32);
  const low = bits >>> 0;
  scratch[tail - 8] = high >>> 24;
  scratch[tail - 7] = (high >>> 16) & 0xff;
  scratch[tail - 6] = (high >>> 8) & 0xff;
  scratch[tail - 5] = high & 0xff;
  scratch[tail - 4] = low >>> 24;
  scratch[tail - 3] = (low >>> 16) & 0xff;
  scratch[tail - 2] = (low >>> 8) & 0xff;
  scratch[tail - 1] = low & 0xff;
  for (let at = 0; at < tail; at += BLOCK_BYTES) compress(state, scratch, at);
  for (let i = 0; i < 8; i++) {
    const word = state[i];
    out[outAt + 4 * i] = word >>> 24;
    out[outAt + 4 * i + 1] = (word >>> 16) & 0xff;
    out[outAt + 4 * i + 2] = (word >>> 8) & 0xff;
    out[outAt + 4 * i + 3] = word & 0xff;
  }
}

/** Scratch of the finishing blocks (grown for long messages; one thread at a time uses the module). */
let scratch = new Uint8Array(2 * BLOCK_BYTES);
/** The inner digest, then the outer hash's input. */
const innerDigest = new Uint8Array(DIGEST_BYTES);
/** A state being hashed (copied from a key's precomputed ones). */
const working = new Int32Array(8);

/**
 * A key of HMAC-SHA256 made ready: its inner and outer padded blocks compressed once, so signing a
 * message hashes only the message and the inner digest (RFC 2104: a key longer than a block is hashed
 * first, a shorter one padded with zeros).
 */
export class HmacSha256Key {
  private readonly inner = new Int32Array(8);
  private readonly outer = new Int32Array(8);

  constructor(key: Uint8Array) {
    const block = new Uint8Array(BLOCK_BYTES);
    block.set(key.length > BLOCK_BYTES ? createHash('sha256').update(key).digest() : key);
    const padded = new Uint8Array(BLOCK_BYTES);
    for (let i = 0; i < BLOCK_BYTES; i++) padded[i] = block[i] ^ 0x36;
    this.inner.set(INITIAL_STATE);
    compress(this.inner, padded, 0);
    for (let i = 0; i < BLOCK_BYTES; i++) padded[i] = block[i] ^ 0x5c;
    this.outer.set(INITIAL_STATE);
    compress(this.outer, padded, 0);
  }

  /** The MAC of `message` (its UTF-8 bytes, as `Hmac.update(string)` takes them) into `out` (32 bytes at `outAt`). */
  sign(message: string, out: Uint8Array, outAt = 0): void {
    this.signBytes(utf8(message), out, outAt);
  }

  /** The MAC of `message` into `out` (32 bytes at `outAt`). */
  signBytes(message: Uint8Array, out: Uint8Array, outAt = 0): void {
    if (scratch.length < message.length + 2 * BLOCK_BYTES) scratch = new Uint8Array(message.length + 2 * BLOCK_BYTES);
    working.set(this.inner);
    finish(working, BLOCK_BYTES, message, scratch, innerDigest, 0);
    working.set(this.outer);
    finish(working, BLOCK_BYTES, innerDigest, scratch, out, outAt);
  }
}

/** Bytes of ASCII messages, reused (most messages signed here are ASCII and short). */
let asciiBytes = new Uint8Array(256);

/**
 * The UTF-8 bytes of `text`: written by hand into a reused array when the text is ASCII (valid until the
 * next call), else `Buffer.from`'s (lone surrogates become U+FFFD there, as `Hmac.update` encodes them).
 */
function utf8(text: string): Uint8Array {
  const n = text.length;
  if (asciiBytes.length < n) asciiBytes = new Uint8Array(2 * n);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return Buffer.from(text, 'utf8');
    asciiBytes[i] = c;
  }
  return asciiBytes.subarray(0, n);
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `bytes[from .. to)` in base64url without padding, as `Buffer.toString('base64url', from, to)` writes
 * it (without a call into C++: it is made for every answer's id).
 */
export function base64url(bytes: Uint8Array, from: number, to: number): string {
  let out = '';
  let at = from;
  for (; at + 3 <= to; at += 3) {
    const n = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
    out += BASE64URL[n >>> 18] + BASE64URL[(n >>> 12) & 63] + BASE64URL[(n >>> 6) & 63] + BASE64URL[n & 63];
  }
  if (to - at === 1) {
    const n = bytes[at];
    out += BASE64URL[n >>> 2] + BASE64URL[(n & 3) << 4];
  } else if (to - at === 2) {
    const n = (bytes[at] << 8) | bytes[at + 1];
    out += BASE64URL[n >>> 10] + BASE64URL[(n >>> 4) & 63] + BASE64URL[(n & 15) << 2];
  }
  return out;
}
