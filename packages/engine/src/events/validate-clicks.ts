/**
 * Validation of the clicks body (extension `POST {events_url}/3.0/events/clicks`):
 * `{customerId, sessionId, events: [{eventTime, refId, type, queryId?, position?, clickId?, recommenderId?, tacticId?}]}`.
 * Checked against the contract's `ClickRequest` schema (event-body.ts) and, for events naming a result
 * list, against that list (result-list-refs.ts); same conventions and error shape as purchases, every
 * failure listed together. Pure.
 * @module
 */
import { parseIsoDateTime } from '../contract/formats.js';
import type { ClickRequest } from '../contract/schemas.js';
import type { ClickEventData } from '../store/store.js';
import { checkEventBody, normaliseValues } from './event-body.js';
import { checkListRefs, type ResultListsById } from './result-list-refs.js';

export { MAX_EVENTS_PER_REQUEST as MAX_CLICKS_PER_REQUEST } from '../contract/limits.js';

/** A validated clicks request. */
export interface ValidClickRequest {
  /** Lower-cased GUID. */
  customerId: string;
  /** Lower-cased GUID. */
  sessionId: string;
  events: ClickEventData[];
}

/**
 * Validates a clicks body; `lists` holds the result lists of the website that its events' `queryId`s
 * name (see `listIdsOf`). See {@link validatePurchaseRequest} for the conventions.
 * @throws {ValidationError} listing every failure.
 */
export function validateClickRequest(body: unknown, lists: ResultListsById): ValidClickRequest {
  const { value, errors, sentAs } = checkEventBody('ClickRequest', body);
  const sources = checkListRefs(value, errors, sentAs.get('events') ?? 'events', lists);
  errors.throwIfAny();
  const request = normaliseValues<ClickRequest>('ClickRequest', value);
  return {
    ...request,
    events: request.events.map((e, i) => {
      const list = sources[i];
      return { ...e, eventTimeMs: parseIsoDateTime(e.eventTime)!, ...(list !== undefined && { list }) };
    }),
  };
}
