/**
 * Result-list ids (`query_id` of a search page, `queryId` of a recommendation or bundle response):
 * opaque to callers, unique per response. An id carries the time it was issued, so a replica asked
 * about an id it cannot find yet can tell a list answered a moment ago by another replica (whose write
 * may still be on its way to the store) from an id that was never issued or has expired. Pure, apart
 * from the random part.
 * @module
 */
import { randomBytes } from 'node:crypto';

/** `<issued ms, base 36>.<16 random base64url characters>` (96 random bits: collisions are not a concern). */
const QUERY_ID_SHAPE = /^([0-9a-z]{1,11})\.[A-Za-z0-9_-]{16}$/;

/** Random bytes drawn 12 at a time (one `randomBytes` call per 256 ids: a call costs microseconds, on every answer). */
const POOL_IDS = 256;
let pool = randomBytes(12 * POOL_IDS);
let drawn = 0;

/** A new id issued at `now` (ms since the epoch). */
export function newQueryId(now: number): string {
  if (drawn === POOL_IDS) {
    pool = randomBytes(12 * POOL_IDS);
    drawn = 0;
  }
  const random = pool.toString('base64url', 12 * drawn, 12 * ++drawn);
  return `${Math.max(0, Math.floor(now)).toString(36)}.${random}`;
}

/** When an id was issued (ms since the epoch), or undefined for a string that is not an issued id's shape. */
export function queryIdIssuedAt(queryId: string): number | undefined {
  const match = QUERY_ID_SHAPE.exec(queryId);
  return match === null ? undefined : Number.parseInt(match[1]!, 36);
}
