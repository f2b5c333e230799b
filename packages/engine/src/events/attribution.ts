/**
 * The attribution report of one website, computed from its stored purchase events. Pure.
 *
 * A product line's revenue is price × quantity. A line is *attributed* when it carries any of
 * recommenderId, widgetId, campaignId, tacticId (each inherited from the event when the product has
 * none), atsModel, retailBoostCollectionCampaignId, or retail-media data that verified. Per dimension,
 * `revenue` and `units` sum the lines carrying that key and `orders` counts the distinct orders with at
 * least one such line; `totals.attributedRevenue` is the sum over attributed lines. Retail-media spend and
 * flagged lines come from the retail-media module (`RetailMediaSpend`).
 *
 * With clicks (`ClickConversions`), a line that converts a click on a result list (click-attribution.ts)
 * is attributed too, and counted under its search query or recommendation method and under the kind of
 * list and the click's position; `totals.clickAttributedRevenue` sums those lines.
 *
 * Money is added in one currency only once the website names it ({@link inWebsiteCurrency}): a purchase
 * in another currency counts in the orders and units but adds its money to `otherCurrencies` alone (EUR
 * and USD added together were no figure of either). A website that names none adds every purchase's
 * money, as before currencies were told apart: most shops sell in one currency and state it on every
 * purchase, and their revenue must not vanish from the reports on an upgrade.
 * @module
 */
import type { AttributionLine, AttributionReport } from '../engine-api.js';
import { isVerifiedRetailMedia, RetailMediaSpend } from '../retail-media/index.js';
import type { PurchaseEventData, ResultListKind } from '../store/store.js';
import { convertedClick, type ClickIndex } from './click-attribution.js';

/** How a stored purchase event reached aisle: its request's `sessionId`, and when it arrived (ms). */
export interface PurchaseArrival {
  sessionId: string;
  receivedAt: number;
}

/** The clicks purchases may convert, and how (see click-attribution.ts). */
export interface ClickConversions {
  clicks: ClickIndex;
  /** The website's attribution window (ms). */
  windowMs: number;
  /** The session and the arrival of a purchase event. */
  arrivalOf: (event: PurchaseEventData) => PurchaseArrival;
}

/** What a report counts of the purchases in one other currency than the website's (its `otherCurrencies`). */
type OtherCurrencyTotals = Omit<AttributionReport['otherCurrencies'][number], 'currency'>;

/** The currency a website's revenue figures are in: its `settings.currency`, upper-cased; undefined while unset. */
export function websiteCurrencyOf(settings: { currency?: string } | undefined): string | undefined {
  return settings?.currency?.toUpperCase();
}

/**
 * Whether a purchase's money counts in the website's revenue figures (every report's): the website names
 * no currency (every purchase counts, whatever it states), or the purchase states none (a shop selling in
 * one currency need not say which) or the website's. Pure; the one rule of the attribution report and of
 * the conversions the other reports count.
 */
export function inWebsiteCurrency(currencyCode: string | undefined, websiteCurrency: string | undefined): boolean {
  return websiteCurrency === undefined || currencyCode === undefined || currencyCode === websiteCurrency;
}

/** Money and counts are rounded to this many decimals in the reports (attribution, searches, recommendations). */
export const REPORT_DECIMALS = 6;

/** `n` rounded to {@link REPORT_DECIMALS}: a sum of prices as floats reads 58.470000000000006 otherwise. */
export function roundForReport(n: number): number {
  const f = 10 ** REPORT_DECIMALS;
  return Math.round(n * f) / f;
}

class LineTable {
  private readonly lines = new Map<string, { revenue: number; units: number; orders: Set<string> }>();

  add(key: string | undefined, orderId: string, revenue: number, units: number): void {
    if (key === undefined) return;
    let line = this.lines.get(key);
    if (line === undefined) this.lines.set(key, (line = { revenue: 0, units: 0, orders: new Set() }));
    line.revenue += revenue;
    line.units += units;
    line.orders.add(orderId);
  }

  toLines(): AttributionLine[] {
    return [...this.lines.entries()]
      .map(([key, l]) => ({ key, revenue: roundForReport(l.revenue), orders: l.orders.size, units: l.units }))
      .sort((a, b) => b.revenue - a.revenue || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

/** Converted lines per (kind of list, position). */
class PositionTable {
  private readonly lines = new Map<string, { kind: ResultListKind; position: number; revenue: number; units: number; orders: Set<string> }>();

  add(kind: ResultListKind, position: number, orderId: string, revenue: number, units: number): void {
    const key = `${kind}:${position}`;
    let line = this.lines.get(key);
    if (line === undefined) this.lines.set(key, (line = { kind, position, revenue: 0, units: 0, orders: new Set() }));
    line.revenue += revenue;
    line.units += units;
    line.orders.add(orderId);
  }

  toLines(): AttributionReport['byClickPosition'] {
    return [...this.lines.values()]
      .map((l) => ({ kind: l.kind, position: l.position, revenue: roundForReport(l.revenue), orders: l.orders.size, units: l.units }))
      .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.position - b.position));
  }
}

/** Whether a product line counts as attributed (see the module comment). */
export function isAttributedLine(event: PurchaseEventData, product: PurchaseEventData['products'][number]): boolean {
  return (product.recommenderId ?? event.recommenderId ?? product.widgetId ?? product.campaignId ?? event.campaignId
    ?? product.tacticId ?? event.tacticId ?? product.atsModel ?? product.retailBoostCollectionCampaignId) !== undefined
    || isVerifiedRetailMedia(product);
}

/**
 * Builds the report over `events` whose event time lies in [from, to] (ms, both optional).
 * Every event must belong to `websiteId` and appear once (the store guarantees one row per order).
 */
export function buildAttributionReport(
  websiteId: string,
  events: Iterable<PurchaseEventData>,
  range: { from?: string; to?: string; fromMs?: number; toMs?: number } = {},
  conversions?: ClickConversions,
  currency?: string,
): AttributionReport {
  const otherCurrencies = new Map<string, OtherCurrencyTotals>();
  const bySearchQuery = new LineTable();
  const byRecommendationMethod = new LineTable();
  const byClickPosition = new PositionTable();
  let clickAttributedRevenue = 0;
  const byRecommender = new LineTable();
  const byWidget = new LineTable();
  const byCampaign = new LineTable();
  const byTactic = new LineTable();
  const byAtsModel = new LineTable();
  const retailMedia = new RetailMediaSpend();
  const priceBeat = new Map<string, { discount: number; orders: number; reused: number }>();
  let revenue = 0;
  let attributedRevenue = 0;
  let orders = 0;
  let units = 0;

  for (const event of events) {
    if (range.fromMs !== undefined && event.eventTimeMs < range.fromMs) continue;
    if (range.toMs !== undefined && event.eventTimeMs > range.toMs) continue;
    orders++;
    const orderId = event.orderId;
    const arrival = conversions?.arrivalOf(event);
    // A purchase in another currency: its money is counted apart, and adds 0 to every figure below.
    let other: OtherCurrencyTotals | undefined;
    if (!inWebsiteCurrency(event.currencyCode, currency)) {
      other = otherCurrencies.get(event.currencyCode!);
      if (other === undefined) otherCurrencies.set(event.currencyCode!, (other = { orders: 0, units: 0, revenue: 0, attributedRevenue: 0 }));
      other.orders++;
    }
    for (const p of event.products) {
      const money = p.price * p.quantity;
      const lineRevenue = other === undefined ? money : 0;
      revenue += lineRevenue;
      units += p.quantity;
      const converted = conversions && convertedClick(p, { ...arrival!, eventTimeMs: event.eventTimeMs }, conversions.windowMs, conversions.clicks);
      const list = converted?.click.list;
      if (list !== undefined) {
        clickAttributedRevenue += lineRevenue;
        (list.kind === 'search' ? bySearchQuery : byRecommendationMethod).add(list.source, orderId, lineRevenue, p.quantity);
        if (converted!.click.position !== undefined) byClickPosition.add(list.kind, converted!.click.position, orderId, lineRevenue, p.quantity);
      }
      if (list !== undefined || isAttributedLine(event, p)) {
        attributedRevenue += lineRevenue;
        if (other !== undefined) other.attributedRevenue += money;
      }
      if (other !== undefined) {
        other.units += p.quantity;
        other.revenue += money;
      }
      byRecommender.add(p.recommenderId ?? event.recommenderId, orderId, lineRevenue, p.quantity);
      byWidget.add(p.widgetId, orderId, lineRevenue, p.quantity);
      const campaign = p.campaignId ?? event.campaignId;
      byCampaign.add(campaign, orderId, lineRevenue, p.quantity);
      if (p.retailBoostCollectionCampaignId !== undefined && p.retailBoostCollectionCampaignId !== campaign) {
        byCampaign.add(p.retailBoostCollectionCampaignId, orderId, lineRevenue, p.quantity);
      }
      byTactic.add(p.tacticId ?? event.tacticId, orderId, lineRevenue, p.quantity);
      byAtsModel.add(p.atsModel, orderId, lineRevenue, p.quantity);
      retailMedia.add(orderId, p, lineRevenue);
    }
    const codesInOrder = new Set<string>();
    for (const promo of event.priceBeatPromotions) {
      let pb = priceBeat.get(promo.code);
      if (pb === undefined) priceBeat.set(promo.code, (pb = { discount: 0, orders: 0, reused: 0 }));
      if (other === undefined) pb.discount += promo.discount;
      if (!codesInOrder.has(promo.code)) pb.orders++;
      codesInOrder.add(promo.code);
      if (promo.reused === true) pb.reused++;
    }
  }

  return {
    websiteId,
    ...(range.from !== undefined && { from: range.from }),
    ...(range.to !== undefined && { to: range.to }),
    currency: currency ?? null,
    otherCurrencies: [...otherCurrencies].sort(([a], [b]) => (a < b ? -1 : 1)).map(([code, o]) => ({
      currency: code, orders: o.orders, units: o.units, revenue: roundForReport(o.revenue), attributedRevenue: roundForReport(o.attributedRevenue),
    })),
    totals: { revenue: roundForReport(revenue), orders, units, attributedRevenue: roundForReport(attributedRevenue), clickAttributedRevenue: roundForReport(clickAttributedRevenue) },
    byRecommender: byRecommender.toLines(),
    byWidget: byWidget.toLines(),
    byCampaign: byCampaign.toLines(),
    byTactic: byTactic.toLines(),
    byAtsModel: byAtsModel.toLines(),
    bySearchQuery: bySearchQuery.toLines(),
    byRecommendationMethod: byRecommendationMethod.toLines(),
    byClickPosition: byClickPosition.toLines(),
    retailMedia: retailMedia.lines(roundForReport),
    priceBeat: [...priceBeat.entries()].map(([code, pb]) => ({ code, discount: roundForReport(pb.discount), orders: pb.orders, reused: pb.reused }))
      .sort((x, y) => (x.code < y.code ? -1 : 1)),
    flagged: retailMedia.flagged,
  };
}
