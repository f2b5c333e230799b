/**
 * Validation of the views body (extension `POST {events_url}/3.0/events/views`):
 * `{customerId, sessionId, events: [{currentUrl, eventTime, refId, referralUrl?, recommenderId?, tacticId?, clickId?}]}`.
 * Checked against the contract's `ViewRequest` schema (see event-body.ts); same conventions and error
 * shape as purchases.
 * @module
 */
import type { ViewEventData } from '../store/store.js';
import type { ViewRequest } from '../contract/schemas.js';
import { parseIsoDateTime } from '../contract/formats.js';
import { checkEventBody, normaliseValues } from './event-body.js';

export { MAX_VIEWS_PER_REQUEST } from '../contract/limits.js';

/** A validated views request. */
export interface ValidViewRequest {
  customerId: string;
  sessionId: string;
  events: ViewEventData[];
}

/**
 * Validates a views body; see {@link validatePurchaseRequest} for the conventions.
 * @throws {ValidationError} listing every failure.
 */
export function validateViewRequest(body: unknown): ValidViewRequest {
  const { value, errors } = checkEventBody('ViewRequest', body);
  errors.throwIfAny();
  const request = normaliseValues<ViewRequest>('ViewRequest', value);
  return { ...request, events: request.events.map((e) => ({ ...e, eventTimeMs: parseIsoDateTime(e.eventTime)! })) };
}
