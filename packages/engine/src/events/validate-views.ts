/**
 * Validation of the views body (extension `POST {events_url}/3.0/events/views`):
 * `{customerId, sessionId, events: [{currentUrl, eventTime, refId, referralUrl?, recommenderId?, tacticId?, clickId?}]}`.
 * Checked against the contract's `ViewRequest` schema (see event-body.ts); same conventions and error
 * shape as purchases.
 * @module
 */
import type { ViewEventData } from '../store/store.js';
import type { ViewEventBody, ViewRequest } from '../contract/schemas.js';
import { parseIsoDateTime } from '../contract/formats.js';
import { checkEventBody } from './event-body.js';

export { MAX_VIEWS_PER_REQUEST } from '../contract/limits.js';

/** A validated views request. */
export interface ValidViewRequest {
  customerId: string;
  sessionId: string;
  events: ViewEventData[];
}

/** Value normalisation of a view that passed the schema (pure): GUIDs lower-cased, the event time in ms. */
function normaliseView(e: ViewEventBody): ViewEventData {
  return {
    refId: e.refId, currentUrl: e.currentUrl, eventTime: e.eventTime, eventTimeMs: parseIsoDateTime(e.eventTime)!,
    ...(e.referralUrl !== undefined && { referralUrl: e.referralUrl }),
    ...(e.recommenderId !== undefined && { recommenderId: e.recommenderId.toLowerCase() }),
    ...(e.tacticId !== undefined && { tacticId: e.tacticId.toLowerCase() }),
    ...(e.clickId !== undefined && { clickId: e.clickId.toLowerCase() }),
  };
}

/**
 * Validates a views body; see {@link validatePurchaseRequest} for the conventions.
 * @throws {ValidationError} listing every failure.
 */
export function validateViewRequest(body: unknown): ValidViewRequest {
  const { value, errors } = checkEventBody('ViewRequest', body);
  errors.throwIfAny();
  const request = value as ViewRequest;
  return { customerId: request.customerId.toLowerCase(), sessionId: request.sessionId.toLowerCase(), events: request.events.map(normaliseView) };
}
