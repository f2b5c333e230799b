/**
 * The id of a served response (`query_id` of a search, `queryId` of a recommendation): opaque, unique
 * per response. Made in one place so that the analytics log and the clicks that name a response agree.
 * @module
 */
import { randomUUID } from 'node:crypto';

/** A new response id. */
export function newQueryId(): string {
  return randomUUID();
}
