/**
 * Retail-media spend per ad set, summed over purchase lines that carry (verified or flagged)
 * retail-media data. Spend is CPA × units over verified lines; CPC and CPM are summed as given, once
 * per verified line. Flagged lines (HMAC invalid, timeStamp out of window) count in `flagged` and never
 * in spend.
 * @module
 */
import type { AttributionReport } from '../engine-api.js';
import type { PurchaseProductData } from '../store/store.js';

interface AdSetTotals {
  units: number;
  revenue: number;
  spend: number;
  clicksCost: number;
  milleCost: number;
  flagged: number;
}

/** Accumulates the retail-media lines of an attribution report. */
export class RetailMediaSpend {
  private readonly adSets = new Map<string, AdSetTotals>();
  /** The flagged lines, in the order met. */
  readonly flagged: AttributionReport['flagged'] = [];

  /** Adds one purchase line (`lineRevenue` = price × quantity); lines without retail-media data are ignored. */
  add(orderId: string, line: PurchaseProductData, lineRevenue: number): void {
    const rm = line.retailMedia;
    if (rm === undefined) return;
    let a = this.adSets.get(rm.adSetId);
    if (a === undefined) this.adSets.set(rm.adSetId, (a = { units: 0, revenue: 0, spend: 0, clicksCost: 0, milleCost: 0, flagged: 0 }));
    if (rm.flag !== undefined) {
      a.flagged++;
      this.flagged.push({ orderId, refId: line.refId, reason: rm.flag });
      return;
    }
    a.units += line.quantity;
    a.revenue += lineRevenue;
    a.spend += (rm.costPerAction ?? 0) * line.quantity;
    a.clicksCost += rm.costPerClick ?? 0;
    a.milleCost += rm.costPerMille ?? 0;
  }

  /** The report's per-ad-set lines, by ad-set id; money rounded with `round`. */
  lines(round: (n: number) => number): AttributionReport['retailMedia'] {
    return [...this.adSets.entries()].map(([adSetId, a]) => ({
      adSetId, units: a.units, revenue: round(a.revenue), spend: round(a.spend), clicksCost: round(a.clicksCost), milleCost: round(a.milleCost), flagged: a.flagged,
    })).sort((x, y) => (x.adSetId < y.adSetId ? -1 : 1));
  }
}

/** Whether a line's retail-media data counts (present and verified). */
export function isVerifiedRetailMedia(line: Pick<PurchaseProductData, 'retailMedia'>): boolean {
  return line.retailMedia !== undefined && line.retailMedia.flag === undefined;
}
