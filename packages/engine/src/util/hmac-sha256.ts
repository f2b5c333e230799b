/**
 * HMAC-SHA256 for the short messages signed on every answer (result-list ids, clicks/query-ids.ts), with
 * @noble/hashes (audited, pure JavaScript): the bytes of `createHmac('sha256', key)`, checked against
 * node:crypto by a property test.
 *
 * Why not node:crypto: an HMAC made by `createHmac` costs ~2.5 µs in a loop, but a never-asked search
 * at 100k products paid ~23 µs of CPU for it in place (median; decision 0062): each call crosses into
 * C++ and OpenSSL (a context fetched and keyed, a native object made and later finalised), code and
 * data that the search's own work has pushed out of the caches by then. Here a key's inner and outer
 * hashes are keyed once ({@link HmacSha256Key}); a message of one block (every id's) is padded by hand
 * and each hash is one call of the library's compression function from the keyed state (decision 0071),
 * a longer one goes through one reused HMAC per message (`_cloneInto`, what the library's own `clone`
 * does, without allocating), in code the JIT keeps beside the search's. A hand-written SHA-256 was ~1 µs
 * faster a message in a loop; the library keeps the algorithm out of this codebase.
 * @module
 */
import { hmac, type _HMAC } from '@noble/hashes/hmac.js';
import { _SHA256, sha256 } from '@noble/hashes/sha2.js';

/** SHA-256's digest size in bytes. */
export const DIGEST_BYTES = 32;

/** A keyed HMAC of the library (its hash type left open, as `hmac.create` returns it). */
type KeyedHmac = _HMAC<ReturnType<typeof sha256.create>>;

/** SHA-256's block size in bytes. */
const BLOCK_BYTES = 64;
/** Longest message whose inner hash is one block: the message, the 0x80 byte and the 8-byte bit length. */
export const ONE_BLOCK_MESSAGE_BYTES = BLOCK_BYTES - 9;

/**
 * The library's SHA-256 compression function on a state of eight words, with none of the streaming
 * hash's bookkeeping (buffer, position, length, padding by the byte, a DataView and a clone per
 * digest). A subclass, so the library's own `process`, `set` and state words are used as they are: the
 * algorithm stays in the library.
 */
class Compressor extends _SHA256 {
  /** The state words (those of a new hash: SHA-256's IV until a block is compressed). */
  state(): Int32Array {
    return Int32Array.from(this.get());
  }

  /** Compresses the block at `view` (64 bytes) from `from` into `to` (eight words each; may be the same). */
  compress(from: Int32Array, view: DataView, to: Int32Array): void {
    this.set(from[0]!, from[1]!, from[2]!, from[3]!, from[4]!, from[5]!, from[6]!, from[7]!);
    this.process(view, 0);
    to[0] = this.A; to[1] = this.B; to[2] = this.C; to[3] = this.D;
    to[4] = this.E; to[5] = this.F; to[6] = this.G; to[7] = this.H;
  }
}

const compressor = new Compressor();
/** SHA-256's initial state (read before the compressor is used). */
const IV = compressor.state();
/** The message's block of the short-message path (the message, then its padding). */
const block = new Uint8Array(BLOCK_BYTES);
const blockView = new DataView(block.buffer);
/** The outer hash's block: the inner digest's 32 bytes, then their padding, written once. */
const outerBlock = new Uint8Array(BLOCK_BYTES);
const outerView = new DataView(outerBlock.buffer);
/** The inner hash's state after the message's block. */
const innerState = new Int32Array(8);
/** The outer hash's state after the inner digest's block: the MAC's words. */
const macState = new Int32Array(8);

/** Pads `bytes` after a message of `length` bytes written at its start, that follows one block (the key's) already hashed. */
function padAfterKeyBlock(bytes: Uint8Array, view: DataView, length: number): void {
  bytes[length] = 0x80;
  for (let i = length + 1; i < BLOCK_BYTES - 4; i++) bytes[i] = 0;
  view.setUint32(BLOCK_BYTES - 4, (BLOCK_BYTES + length) * 8, false);
}
padAfterKeyBlock(outerBlock, outerView, DIGEST_BYTES);

/**
 * A key of HMAC-SHA256 made ready: its inner and outer hashes keyed once (RFC 2104: a key longer than a
 * block is hashed first, a shorter one padded with zeros), so signing a message hashes only the message
 * and the inner digest. A message of at most {@link ONE_BLOCK_MESSAGE_BYTES} (every id signed on an
 * answer) is padded by hand into one block and each hash is one call of the library's compression from
 * the keyed state: 0.5-1 µs less than the streaming HMAC's clone, update and two digests (decision 0071).
 */
export class HmacSha256Key {
  private readonly keyed: KeyedHmac;
  /** The HMAC a message is signed with: the keyed one copied into it first. */
  private readonly working: KeyedHmac;
  /** The inner and outer hashes' states after the key's block. */
  private readonly innerKeyed: Int32Array;
  private readonly outerKeyed: Int32Array;

  constructor(key: Uint8Array) {
    this.keyed = hmac.create(sha256, key) as KeyedHmac;
    this.working = this.keyed.clone();
    const pad = new Uint8Array(BLOCK_BYTES);
    pad.set(key.length > BLOCK_BYTES ? sha256(key) : key);
    const padView = new DataView(pad.buffer);
    for (let i = 0; i < BLOCK_BYTES; i++) pad[i]! ^= 0x36;
    this.innerKeyed = new Int32Array(8);
    compressor.compress(IV, padView, this.innerKeyed);
    for (let i = 0; i < BLOCK_BYTES; i++) pad[i]! ^= 0x36 ^ 0x5c;
    this.outerKeyed = new Int32Array(8);
    compressor.compress(IV, padView, this.outerKeyed);
  }

  /** The MAC of `message` (its first `length` bytes: all by default) into `out` (32 bytes at `outAt`). */
  signBytes(message: Uint8Array, out: Uint8Array, outAt = 0, length = message.length): void {
    if (length <= ONE_BLOCK_MESSAGE_BYTES) {
      for (let i = 0; i < length; i++) block[i] = message[i]!;
      return this.signBlock(length, out, outAt);
    }
    const working = this.keyed._cloneInto(this.working);
    working.update(length === message.length ? message : message.subarray(0, length));
    if (outAt === 0 && out.length === DIGEST_BYTES) working.digestInto(out);
    else {
      working.digestInto(digest);
      out.set(digest, outAt);
    }
  }

  /** The MAC of the message of `length` bytes at the start of `block` into `out` at `outAt`. */
  private signBlock(length: number, out: Uint8Array, outAt: number): void {
    padAfterKeyBlock(block, blockView, length);
    compressor.compress(this.innerKeyed, blockView, innerState);
    for (let i = 0; i < 8; i++) outerView.setInt32(4 * i, innerState[i]!, false);
    compressor.compress(this.outerKeyed, outerView, macState);
    for (let i = 0, at = outAt; i < 8; i++, at += 4) {
      const word = macState[i]!;
      out[at] = word >>> 24;
      out[at + 1] = word >>> 16;
      out[at + 2] = word >>> 8;
      out[at + 3] = word;
    }
  }
}

/** A digest written elsewhere than at the start of a 32-byte array. */
const digest = new Uint8Array(DIGEST_BYTES);

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The character code of each base64url digit. */
const BASE64URL_CODES = Uint8Array.from(BASE64URL, (c) => c.charCodeAt(0));

/**
 * The character codes of `bytes[from .. to)` in base64url without padding, written into `out` from `at`;
 * returns where they end. For strings made in one piece (`String.fromCharCode`), without a string per
 * group of digits.
 */
export function base64urlCodes(bytes: Uint8Array, from: number, to: number, out: number[], at: number): number {
  let i = from;
  for (; i + 3 <= to; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[at++] = BASE64URL_CODES[n >>> 18]!;
    out[at++] = BASE64URL_CODES[(n >>> 12) & 63]!;
    out[at++] = BASE64URL_CODES[(n >>> 6) & 63]!;
    out[at++] = BASE64URL_CODES[n & 63]!;
  }
  if (to - i === 1) {
    const n = bytes[i]!;
    out[at++] = BASE64URL_CODES[n >>> 2]!;
    out[at++] = BASE64URL_CODES[(n & 3) << 4]!;
  } else if (to - i === 2) {
    const n = (bytes[i]! << 8) | bytes[i + 1]!;
    out[at++] = BASE64URL_CODES[n >>> 10]!;
    out[at++] = BASE64URL_CODES[(n >>> 4) & 63]!;
    out[at++] = BASE64URL_CODES[(n & 15) << 2]!;
  }
  return at;
}
