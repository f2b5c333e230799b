/**
 * The HMAC-SHA256 (@noble/hashes, keyed once) and the JavaScript base64url against node:crypto and Buffer, on random keys (shorter and
 * longer than a block) and messages (every padding case: one or two finishing blocks, whole blocks
 * before them; ASCII, other text, lone surrogates).
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64urlCodes, DIGEST_BYTES, HmacSha256Key } from './hmac-sha256.js';

const keyArb = fc.uint8Array({ minLength: 0, maxLength: 150 });
/** Lengths around the block boundaries (55 and 56 bytes: one finishing block or two). */
const bytesArb = fc.oneof(fc.uint8Array({ minLength: 0, maxLength: 200 }), fc.integer({ min: 50, max: 130 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })));
const textArb = fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('\ud800', 'a\udc00b', 'é'.repeat(40)));

describe('HmacSha256Key', () => {
  it('signs bytes as createHmac does', () => {
    fc.assert(fc.property(keyArb, bytesArb, (key, message) => {
      const out = new Uint8Array(DIGEST_BYTES + 3);
      new HmacSha256Key(key).signBytes(message, out, 3);
      expect(Buffer.from(out.subarray(3)).toString('hex')).toBe(createHmac('sha256', key).update(message).digest('hex'));
    }), { numRuns: 2000 });
  });

  it('signs text as createHmac does (its UTF-8 bytes)', () => {
    fc.assert(fc.property(keyArb, textArb, (key, message) => {
      const out = new Uint8Array(DIGEST_BYTES);
      new HmacSha256Key(key).signBytes(Buffer.from(message, 'utf8'), out);
      expect(Buffer.from(out).toString('hex')).toBe(createHmac('sha256', key).update(message).digest('hex'));
    }), { numRuns: 1000 });
  });

  it('gives one key the same MAC on every call (no state left between messages)', () => {
    const key = new HmacSha256Key(Buffer.from('secret'));
    const a = new Uint8Array(DIGEST_BYTES);
    const b = new Uint8Array(DIGEST_BYTES);
    key.signBytes(Buffer.from('x'.repeat(300)), a);
    key.signBytes(Buffer.from('short'), a);
    // A longer array whose first bytes are the message (as query-ids.ts signs from a reused one).
    key.signBytes(Buffer.from('shortXYZ'), b, 0, 5);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(b).toString('hex')).toBe(createHmac('sha256', 'secret').update('short').digest('hex'));
  });
});

describe('base64urlCodes', () => {
  it('writes what Buffer.toString("base64url") writes, for any range', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }).chain((bytes) => fc.tuple(fc.constant(bytes), fc.nat(bytes.length), fc.nat(bytes.length))), ([bytes, i, j]) => {
      const [from, to] = i <= j ? [i, j] : [j, i];
      const codes: number[] = [];
      const end = base64urlCodes(bytes, from, to, codes, 0);
      expect(String.fromCharCode(...codes.slice(0, end))).toBe(Buffer.from(bytes).toString('base64url', from, to));
    }), { numRuns: 2000 });
  });
});
