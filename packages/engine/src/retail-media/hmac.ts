/**
 * Signing and verifying retail-media slot data. Pure functions apart from the salt's randomness.
 *
 * The signed string is the canonical form of exactly the fields the spec names: adSetId, hmacSalt, the
 * three cost fields and timeStamp, one per line in that order. A missing cost field is an empty line;
 * costs are written as the shortest decimal that round-trips (`0.50` and `0.5` sign alike, since a
 * JSON number loses its trailing zeros on the way through the storefront); the GUID is lower-cased;
 * timeStamp is its instant written as aisle issues it (`2026-11-23T10:00:00.000Z`, UTC, milliseconds),
 * since typed clients parse it and write it back in their own form (.NET's `…00.0000000Z`, an offset
 * `+00:00`): the same instant signs alike, any other does not (text that is no date-time signs as it is).
 * HMAC-SHA256 with the website's secret, hex encoded.
 * @module
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { parseIsoDateTime } from '../contract/formats.js';

/** The fields covered by the retail-media HMAC. */
export interface RetailMediaSignedFields {
  adSetId: string;
  hmacSalt: string;
  costPerClick?: number | null;
  costPerAction?: number | null;
  costPerMille?: number | null;
  timeStamp: string;
}

const SALT_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Length of `hmacSalt` (spec: 16 characters). */
export const HMAC_SALT_LENGTH = 16;

/** 16 random characters from [A-Za-z0-9], from the OS's CSPRNG. */
export function generateHmacSalt(): string {
  let salt = '';
  for (let i = 0; i < HMAC_SALT_LENGTH; i++) salt += SALT_ALPHABET[randomInt(SALT_ALPHABET.length)];
  return salt;
}

function canonicalCost(value: number | null | undefined): string {
  return value === undefined || value === null ? '' : String(Number(value));
}

function canonicalTime(value: string): string {
  const ms = parseIsoDateTime(value);
  return ms === undefined ? value : new Date(ms).toISOString();
}

/** The exact string that is signed; exported so other implementations can reproduce it. */
export function canonicalRetailMediaString(fields: RetailMediaSignedFields): string {
  return [
    fields.adSetId.toLowerCase(),
    fields.hmacSalt,
    canonicalCost(fields.costPerClick),
    canonicalCost(fields.costPerAction),
    canonicalCost(fields.costPerMille),
    canonicalTime(fields.timeStamp),
  ].join('\n');
}

/** HMAC-SHA256 (hex) of the canonical string under `secret`. */
export function signRetailMedia(fields: RetailMediaSignedFields, secret: string): string {
  return createHmac('sha256', secret).update(canonicalRetailMediaString(fields)).digest('hex');
}

/** True when `hmac` is the signature of `fields` under `secret`; compares in constant time. */
export function verifyRetailMedia(fields: RetailMediaSignedFields, hmac: string, secret: string): boolean {
  const expected = Buffer.from(signRetailMedia(fields, secret), 'hex');
  if (typeof hmac !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hmac)) return false;
  const given = Buffer.from(hmac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
