/**
 * Validation of the views body (extension `POST {events_url}/3.0/events/views`):
 * `{customerId, sessionId, events: [{currentUrl, eventTime, refId, referralUrl?, recommenderId?, tacticId?, clickId?}]}`.
 * Same conventions and error shape as purchases.
 * @module
 */
import type { ViewEventData } from '../store/store.js';
import { checkEventEnvelope, FieldChecker, MAX_URL_LENGTH, isRecord } from './validate-common.js';

export { MAX_VIEWS_PER_REQUEST } from '../contract/limits.js';
import { MAX_VIEWS_PER_REQUEST } from '../contract/limits.js';

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
  const { errors, customerId, sessionId, list } = checkEventEnvelope(body, MAX_VIEWS_PER_REQUEST);
  const events: ViewEventData[] = [];
  list?.items.forEach((e, i) => {
    const path = `${list.path}[${i}]`;
    if (!isRecord(e)) {
      errors.add(path, 'The event must be a JSON object.');
      return;
    }
    const ec = new FieldChecker(e, path, errors);
    const currentUrl = ec.string('currentUrl', { required: true, max: MAX_URL_LENGTH });
    const eventTime = ec.dateTime('eventTime', { required: true });
    const refId = ec.string('refId', { required: true });
    const referralUrl = ec.string('referralUrl', { max: MAX_URL_LENGTH });
    const recommenderId = ec.guid('recommenderId');
    const tacticId = ec.guid('tacticId');
    const clickId = ec.guid('clickId');
    if (currentUrl === undefined || eventTime === undefined || refId === undefined) return;
    events.push({
      refId, currentUrl, eventTime: eventTime.text, eventTimeMs: eventTime.ms,
      ...(referralUrl !== undefined && { referralUrl }), ...(recommenderId !== undefined && { recommenderId }),
      ...(tacticId !== undefined && { tacticId }), ...(clickId !== undefined && { clickId }),
    });
  });
  errors.throwIfAny();
  return { customerId: customerId!, sessionId: sessionId!, events };
}
