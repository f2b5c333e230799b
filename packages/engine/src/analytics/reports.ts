/**
 * The searches and recommendations reports, computed from the roll-up totals of a window (pure): the
 * same arithmetic whichever store summed them.
 * @module
 */
import type { RecommendationReport, SearchReportLists } from '../engine-api.js';
import { roundForReport } from '../events/attribution.js';
import type { RollupCounters, RollupTotal } from '../store/store.js';

/**
 * `part / whole`, null when `whole` is 0: nothing served in the window is no rate, not 0 % (as decisions
 * 0073 and 0076 have it for the experiment reports). The searches report's rates divide by searches its
 * rows always have, so they stay numbers.
 */
const rateOf = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

const byCountThenQuery = (a: { query: string; count: number }, b: { query: string; count: number }) =>
  b.count - a.count || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0);

/** Searches with results that no click followed. */
function withoutClick(c: RollupCounters): number {
  return c.responses - c.noResults - c.clicked;
}

/** The searches report's lists from the window's search totals (one per query), `limit` entries each. */
export function searchReportOf(totals: readonly RollupTotal[], limit: number): SearchReportLists {
  const queries = totals.filter((t) => t.tactic === '');
  return {
    top: queries.filter((t) => t.counters.responses > 0).map(({ key: query, counters: c }) => ({
      query,
      count: c.responses,
      avgResults: c.results / c.responses,
      clicks: c.clicks,
      ctr: c.clicked / c.responses,
      avgClickPosition: c.positionedClicks === 0 ? null : c.clickPositions / c.positionedClicks,
      conversions: c.conversions,
      conversionRate: c.converted / c.responses,
      revenue: roundForReport(c.revenue),
    })).sort(byCountThenQuery).slice(0, limit),
    noResults: queries.filter((t) => t.counters.noResults > 0).map((t) => ({ query: t.key, count: t.counters.noResults })).sort(byCountThenQuery).slice(0, limit),
    noClicks: queries.filter((t) => withoutClick(t.counters) > 0).map((t) => ({ query: t.key, count: withoutClick(t.counters) })).sort(byCountThenQuery).slice(0, limit),
  };
}

/** The recommendations report from the window's recommendation totals (one per method, one per method and tactic). */
export function recommendationReportOf(totals: readonly RollupTotal[]): RecommendationReport['methods'] {
  const methods = new Map<string, RecommendationReport['methods'][number]>();
  const method = (name: string) => {
    let m = methods.get(name);
    if (m === undefined) methods.set(name, (m = { method: name, served: 0, items: 0, clicks: 0, ctr: null, conversions: 0, revenue: 0, tactics: [] }));
    return m;
  };
  for (const { key, tactic, counters: c } of totals) {
    if (tactic === '') Object.assign(method(key), { served: c.responses, items: c.results, clicks: c.clicks, ctr: rateOf(c.clicked, c.responses), conversions: c.conversions, revenue: roundForReport(c.revenue) });
    else method(key).tactics.push({ tactic, items: c.results, clicks: c.clicks, ctr: rateOf(c.clicks, c.results), conversions: c.conversions, revenue: roundForReport(c.revenue) });
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  for (const m of methods.values()) m.tactics.sort((a, b) => b.items - a.items || byName(a.tactic, b.tactic));
  return [...methods.values()].sort((a, b) => b.served - a.served || byName(a.method, b.method));
}
