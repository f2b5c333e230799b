/**
 * HMAC-SHA256 for the short messages signed on every answer (result-list ids, clicks/query-ids.ts), with
 * @noble/hashes (audited, pure JavaScript): the bytes of `createHmac('sha256', key)`, checked against
 * node:crypto by a property test.
 *
 * Why not node:crypto: an HMAC made by `createHmac` costs ~2.5 µs in a loop, but a never-asked search
 * at 100k products paid ~23 µs of CPU for it in place (median; decision 0062): each call crosses into
 * C++ and OpenSSL (a context fetched and keyed, a native object made and later finalised), code and
 * data that the search's own work has pushed out of the caches by then. Here a key's inner and outer
 * hashes are keyed once ({@link HmacSha256Key}) and copied into one reused HMAC per message
 * (`_cloneInto`, what the library's own `clone` does, without allocating), in code the JIT keeps beside
 * the search's. A hand-written SHA-256 was ~1 µs faster a message in a loop; the library keeps the
 * algorithm out of this codebase.
 * @module
 */
import { hmac, type _HMAC } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

/** SHA-256's digest size in bytes. */
export const DIGEST_BYTES = 32;

/** A keyed HMAC of the library (its hash type left open, as `hmac.create` returns it). */
type KeyedHmac = _HMAC<ReturnType<typeof sha256.create>>;

/**
 * A key of HMAC-SHA256 made ready: its inner and outer hashes keyed once (RFC 2104: a key longer than a
 * block is hashed first, a shorter one padded with zeros), so signing a message hashes only the message
 * and the inner digest.
 */
export class HmacSha256Key {
  private readonly keyed: KeyedHmac;
  /** The HMAC a message is signed with: the keyed one copied into it first. */
  private readonly working: KeyedHmac;

  constructor(key: Uint8Array) {
    this.keyed = hmac.create(sha256, key) as KeyedHmac;
    this.working = this.keyed.clone();
  }

  /** The MAC of `message` (its UTF-8 bytes, as `Hmac.update(string)` takes them) into `out` (32 bytes at `outAt`). */
  sign(message: string, out: Uint8Array, outAt = 0): void {
    this.signBytes(utf8(message), out, outAt);
  }

  /** The MAC of `message` into `out` (32 bytes at `outAt`). */
  signBytes(message: Uint8Array, out: Uint8Array, outAt = 0): void {
    const working = this.keyed._cloneInto(this.working);
    working.update(message);
    if (outAt === 0 && out.length === DIGEST_BYTES) working.digestInto(out);
    else {
      working.digestInto(digest);
      out.set(digest, outAt);
    }
  }
}

/** A digest written elsewhere than at the start of a 32-byte array. */
const digest = new Uint8Array(DIGEST_BYTES);

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
