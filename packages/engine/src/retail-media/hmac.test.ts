import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalRetailMediaString, generateHmacSalt, signRetailMedia, verifyRetailMedia } from './hmac.js';

const base = {
  adSetId: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
  hmacSalt: 'abcdefghijklmnop',
  costPerClick: 0.5,
  timeStamp: '2026-11-23T10:00:00.000Z',
};

describe('retail-media HMAC', () => {
  it('makes a 16-character alphanumeric salt, different each time', () => {
    const a = generateHmacSalt();
    expect(a).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(generateHmacSalt()).not.toBe(a);
  });

  it('writes the canonical string field by field, missing costs empty', () => {
    expect(canonicalRetailMediaString(base)).toBe(
      '6f9619ff-8b86-d011-b42d-00c04fc964ff\nabcdefghijklmnop\n0.5\n\n\n2026-11-23T10:00:00.000Z',
    );
  });

  it('verifies its own signature and rejects any changed field, wrong secret or malformed hmac', () => {
    const hmac = signRetailMedia(base, 's3cret');
    expect(hmac).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyRetailMedia(base, hmac, 's3cret')).toBe(true);
    expect(verifyRetailMedia(base, hmac.toUpperCase(), 's3cret')).toBe(true);
    expect(verifyRetailMedia(base, hmac, 'other')).toBe(false);
    expect(verifyRetailMedia({ ...base, costPerClick: 0.51 }, hmac, 's3cret')).toBe(false);
    expect(verifyRetailMedia({ ...base, costPerAction: 0.5 }, hmac, 's3cret')).toBe(false);
    expect(verifyRetailMedia({ ...base, timeStamp: '2026-11-23T10:00:01.000Z' }, hmac, 's3cret')).toBe(false);
    expect(verifyRetailMedia(base, hmac.slice(0, 63), 's3cret')).toBe(false);
    expect(verifyRetailMedia(base, 'zz' + hmac.slice(2), 's3cret')).toBe(false);
  });

  it('signs the instant of timeStamp, not its text: a storefront that re-serialises it (.NET, an offset) keeps the signature', () => {
    const hmac = signRetailMedia(base, 's3cret');
    // What typed clients write back for 2026-11-23T10:00:00.000Z: they were flagged hmac_invalid, the spend lost.
    for (const timeStamp of ['2026-11-23T10:00:00.0000000Z', '2026-11-23T10:00:00Z', '2026-11-23T10:00:00.000+00:00', '2026-11-23T11:00:00+01:00', '2026-11-23t10:00:00.000z']) {
      expect(verifyRetailMedia({ ...base, timeStamp }, hmac, 's3cret'), timeStamp).toBe(true);
    }
    expect(verifyRetailMedia({ ...base, timeStamp: '2026-11-23T10:00:00.001Z' }, hmac, 's3cret')).toBe(false);
    expect(verifyRetailMedia({ ...base, timeStamp: '2026-11-23T10:00:00.000+01:00' }, hmac, 's3cret')).toBe(false);
  });

  it('round-trips any field values (property)', () => {
    fc.assert(
      fc.property(
        fc.uuid(), fc.string({ minLength: 16, maxLength: 16 }),
        fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: undefined }),
        fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: undefined }),
        fc.string(), fc.string({ minLength: 1 }),
        (adSetId, hmacSalt, costPerClick, costPerMille, timeStamp, secret) => {
          const fields = { adSetId, hmacSalt, costPerClick, costPerMille, timeStamp };
          const sig = signRetailMedia(fields, secret);
          // a JSON round trip, as the storefront does, keeps the signature valid
          const echoed = JSON.parse(JSON.stringify(fields)) as typeof fields;
          return verifyRetailMedia(echoed, sig, secret);
        },
      ),
    );
  });
});
