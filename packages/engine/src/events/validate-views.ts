/**
 * Validation of the views body (extension `POST {events_url}/3.0/events/views`):
 * `{customerId, sessionId, events: [{currentUrl, eventTime, refId, referralUrl?, recommenderId?, tacticId?, clickId?, queryId?, position?}]}`.
 * Checked against the contract's `ViewRequest` schema (see event-body.ts); same conventions and error
 * shape as purchases.
 * @module
 */
import type { ViewEventData } from '../store/store.js';
import type { ViewRequest } from '../contract/schemas.js';
import { parseIsoDateTime } from '../contract/formats.js';
import { checkEventBody, normaliseValues } from './event-body.js';
import { checkListRefs, type ResultListsById } from './result-list-refs.js';

export { MAX_VIEWS_PER_REQUEST } from '../contract/limits.js';

/** A validated views request. */
export interface ValidViewRequest {
  customerId: string;
  sessionId: string;
  events: ViewEventData[];
}

const NO_LISTS: ResultListsById = new Map();

/**
 * Validates a views body; see {@link validatePurchaseRequest} for the conventions. `lists` holds the
 * result lists of the website that its events' `queryId`s name (none: every queryId is unknown).
 * @throws {ValidationError} listing every failure.
 */
export function validateViewRequest(body: unknown, lists: ResultListsById = NO_LISTS): ValidViewRequest {
  const { value, errors, sentAs } = checkEventBody('ViewRequest', body);
  checkListRefs(value, errors, sentAs.get('events') ?? 'events', lists);
  errors.throwIfAny();
  const request = normaliseValues<ViewRequest>('ViewRequest', value);
  return { ...request, events: request.events.map((e) => ({ ...e, eventTimeMs: parseIsoDateTime(e.eventTime)! })) };
}
