/**
 * Event times sent by clocks aisle does not own (browsers, shop servers), and how far it trusts them.
 * Pure.
 * @module
 */

/**
 * How far the clocks stamping events may disagree with each other and with aisle's. For the
 * recommendation models, how far after its arrival an event's `eventTime` may lie: a sender's clock that
 * is wrong (a purchase dated 2099) must not move the trailing windows (popular items, the last fallback
 * of every cascade) into the future; the event is stored and acknowledged as sent (the sale is real;
 * attribution reports show the time given), and the models take its time as at most its arrival plus
 * this skew. For click conversions, how far after a purchase's time a click may be stamped and still
 * convert it, when it reached aisle before the purchase did (a browser clock running fast): see
 * click-attribution.ts. Documented in docs/events-and-stores.md.
 */
export const MAX_EVENT_TIME_SKEW_MS = 5 * 60_000;

/** The event time the models use: as sent, but never later than arrival + {@link MAX_EVENT_TIME_SKEW_MS}. */
export function modelEventTime(eventTimeMs: number, receivedAt: number): number {
  return Math.min(eventTimeMs, receivedAt + MAX_EVENT_TIME_SKEW_MS);
}
