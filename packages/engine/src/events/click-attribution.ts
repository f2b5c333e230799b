/**
 * Click conversions (pure): which recorded click, if any, a purchased product line converts, and what
 * the analytics hook is told about clicks and conversions.
 *
 * A line converts the click its `clickId` names when that click was recorded on the line's `refId`;
 * otherwise the latest click (or add-to-cart) of the purchase's session on the line's `refId` that came
 * from a result list, with an event time within the attribution window before the purchase (inclusive).
 * The click's time is the browser's and the purchase's the shop's: clocks that disagree by a minute
 * must not lose the conversion, so a click stamped up to `MAX_EVENT_TIME_SKEW_MS` (event-time.ts) after
 * the purchase converts it too, when it reached aisle before the purchase did (then it was made before
 * the purchase, whatever its clock says; a click that arrived after it was made after it, and never
 * converts it). The purchase's time is the one the models use (at most its arrival plus that skew).
 * A clickId naming a click on another product is read as no clickId (decision 0086): a click on one
 * product did not turn into the purchase of another, and the purchase itself is kept, not refused. The line is then
 * attributed to that click's list: the search query or recommendation method, the variant, the
 * position. The attribution report and the purchase path use the same functions, so they agree.
 * @module
 */
import type { ResultListSource, StoredClick } from '../store/store.js';
import type { ClickOutcome } from '../types.js';
import { MAX_EVENT_TIME_SKEW_MS, modelEventTime } from './event-time.js';

export type { ClickOutcome } from '../types.js';

const SEP = '\u0000';

/** The recorded clicks a set of purchases may convert, indexed for {@link convertedClick}. */
export class ClickIndex {
  private readonly byClickId = new Map<string, StoredClick>();
  /** (session, refId) → clicks from a result list, by event time. */
  private readonly bySessionRef = new Map<string, StoredClick[]>();

  constructor(clicks: Iterable<StoredClick>) {
    for (const c of clicks) {
      if (c.click.clickId !== undefined && !this.byClickId.has(c.click.clickId)) this.byClickId.set(c.click.clickId, c);
      if (c.click.list === undefined) continue;
      const key = c.sessionId + SEP + c.click.refId;
      let list = this.bySessionRef.get(key);
      if (list === undefined) this.bySessionRef.set(key, (list = []));
      list.push(c);
    }
    for (const list of this.bySessionRef.values()) list.sort((a, b) => a.click.eventTimeMs - b.click.eventTimeMs || a.seq - b.seq);
  }

  /** The click with this clickId. */
  byId(clickId: string): StoredClick | undefined {
    return this.byClickId.get(clickId);
  }

  /**
   * The latest click from a result list of `sessionId` on `refId` with an event time in [since, until],
   * or in (until, until + {@link MAX_EVENT_TIME_SKEW_MS}] when it arrived by `arrivedBy` (see the module comment).
   */
  latest(sessionId: string, refId: string, since: number, until: number, arrivedBy: number): StoredClick | undefined {
    const list = this.bySessionRef.get(sessionId + SEP + refId);
    if (list === undefined) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i]!;
      const t = c.click.eventTimeMs;
      if (t > until && (t > until + MAX_EVENT_TIME_SKEW_MS || c.receivedAt > arrivedBy)) continue;
      return t >= since ? c : undefined;
    }
    return undefined;
  }
}

/** A purchased line as conversion reads it. */
export interface ConvertingLine {
  refId: string;
  clickId?: string;
}

/** A purchase as conversion reads it: its request's session, the time it names and when it reached aisle (ms). */
export interface PurchaseMoment {
  sessionId: string;
  eventTimeMs: number;
  receivedAt: number;
}

/**
 * The click a purchased line converts (see the module comment), when that click came from a result
 * list; `windowMs` is the website's attribution window.
 */
export function convertedClick(line: ConvertingLine, purchase: PurchaseMoment, windowMs: number, clicks: ClickIndex): StoredClick | undefined {
  const named = line.clickId === undefined ? undefined : clicks.byId(line.clickId);
  // A click on another product is not this line's click (a storefront that kept a stale clickId):
  // the line converts as it would without one.
  if (named !== undefined && named.click.refId === line.refId) return named.click.list === undefined ? undefined : named;
  const at = modelEventTime(purchase.eventTimeMs, purchase.receivedAt);
  return clicks.latest(purchase.sessionId, line.refId, at - windowMs, at, purchase.receivedAt);
}

/** The list fields of an outcome (query or method by the list's kind). */
function listFields(list: ResultListSource): Pick<ClickOutcome, 'kind' | 'query' | 'method' | 'variant' | 'experiment'> {
  const experiment = list.experiment === undefined ? {} : { experiment: list.experiment };
  return list.kind === 'search'
    ? { kind: 'search', query: list.source, variant: list.variant, ...experiment }
    : { kind: 'recommendation', method: list.source, variant: list.variant, ...experiment };
}

/** The outcome of a stored click from a result list (undefined for a click without one). */
export function clickOutcome(websiteId: string, click: StoredClick['click']): ClickOutcome | undefined {
  if (click.list === undefined) return undefined;
  return {
    websiteId, at: click.eventTimeMs, ...listFields(click.list), type: click.type, ...(click.queryId !== undefined && { queryId: click.queryId }),
    ...(click.tacticId !== undefined && { tacticId: click.tacticId }), ...(click.position !== undefined && { position: click.position }),
  };
}

/** The outcome of a purchased line attributed to `converted` (a click from a result list). */
export function conversionOutcome(websiteId: string, purchaseTimeMs: number, converted: StoredClick, revenue: number): ClickOutcome {
  return { ...clickOutcome(websiteId, converted.click)!, at: purchaseTimeMs, type: 'purchase', revenue };
}
