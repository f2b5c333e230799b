/**
 * Result-list ids (`query_id` of a search page, `queryId` of a recommendation or bundle response):
 * opaque to callers, unique per response, and signed for their website. An id carries the time it was
 * issued, 96 random bits and an HMAC of both under the website's `hmacSecret`: a replica asked about an
 * id it cannot find yet can tell a list another replica answered a moment ago (its write may still be on
 * its way to the store) from an id that was never issued for this website — made up, or of another
 * website — without asking the store. Pure, apart from the random part.
 * @module
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** `<issued ms, base 36>.<16 random base64url characters>.<11 base64url characters of HMAC-SHA256>`. */
const QUERY_ID_SHAPE = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{11})$/;

/** Random bytes drawn 12 at a time (one `randomBytes` call per 256 ids: a call costs microseconds, on every answer). */
const POOL_IDS = 256;
let pool = randomBytes(12 * POOL_IDS);
let drawn = 0;

/** The key object of each secret (made once: an HMAC from a key object costs a fifth less than from a string). */
const keys = new Map<string, KeyObject>();

/** The signature of an id's time and random parts for a website (64 bits of HMAC-SHA256, base64url). */
function signature(secret: string, websiteId: string, body: string): string {
  let key = keys.get(secret);
  if (key === undefined) {
    // Secrets are few (one per website); a config replaced many times only rebuilds the map.
    if (keys.size >= 1024) keys.clear();
    keys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  }
  return createHmac('sha256', key).update(`${websiteId}\u0000${body}`).digest('base64url').slice(0, 11);
}

/** A new id of `websiteId`, issued at `now` (ms since the epoch), signed with the website's secret. */
export function newQueryId(now: number, websiteId: string, secret: string): string {
  if (drawn === POOL_IDS) {
    pool = randomBytes(12 * POOL_IDS);
    drawn = 0;
  }
  const body = `${Math.max(0, Math.floor(now)).toString(36)}.${pool.toString('base64url', 12 * drawn, 12 * ++drawn)}`;
  return `${body}.${signature(secret, websiteId, body)}`;
}

/**
 * When an id of `websiteId` was issued (ms since the epoch), or undefined for a string that is not an
 * id issued for that website under `secret` (comparison of the signatures in constant time is not
 * needed: an id is not a credential, and a forged one only names a list that does not exist).
 */
export function queryIdIssuedAt(queryId: string, websiteId: string, secret: string): number | undefined {
  const match = QUERY_ID_SHAPE.exec(queryId);
  if (match === null) return undefined;
  const body = `${match[1]}.${match[2]}`;
  return signature(secret, websiteId, body) === match[3] ? Number.parseInt(match[1]!, 36) : undefined;
}
