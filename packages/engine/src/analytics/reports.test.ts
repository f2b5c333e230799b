import { describe, expect, it } from 'vitest';
import { emptyCounters } from '../store/analytics-rows.js';
import type { RollupCounters, RollupTotal } from '../store/store.js';
import { recommendationReportOf, searchReportOf } from './reports.js';

const total = (key: string, c: Partial<RollupCounters>, tactic = ''): RollupTotal => ({ key, tactic, counters: { ...emptyCounters(), ...c } });

describe('report arithmetic', () => {
  it('computes ctr, positions and conversion rates per query, and the lists', () => {
    const report = searchReportOf([
      total('sofa', { responses: 10, results: 50, noResults: 2, clicks: 6, positionedClicks: 4, clickPositions: 10, clicked: 4, conversions: 3, converted: 2, revenue: 120 }),
      total('lamp', { responses: 4, results: 0, noResults: 4 }),
      total('rug', { responses: 4, results: 8 }),
      total('ghost', { clicks: 1 }),
    ], 10);
    expect(report.top).toEqual([
      { query: 'sofa', count: 10, avgResults: 5, clicks: 6, ctr: 0.4, avgClickPosition: 2.5, conversions: 3, conversionRate: 0.2, revenue: 120 },
      { query: 'lamp', count: 4, avgResults: 0, clicks: 0, ctr: 0, avgClickPosition: null, conversions: 0, conversionRate: 0, revenue: 0 },
      { query: 'rug', count: 4, avgResults: 2, clicks: 0, ctr: 0, avgClickPosition: null, conversions: 0, conversionRate: 0, revenue: 0 },
    ]);
    expect(report.noResults).toEqual([{ query: 'lamp', count: 4 }, { query: 'sofa', count: 2 }]);
    // Searches with results and no click: sofa 10 - 2 - 4, rug 4 (ties by query).
    expect(report.noClicks).toEqual([{ query: 'rug', count: 4 }, { query: 'sofa', count: 4 }]);
    expect(searchReportOf([total('a', { responses: 1 }), total('b', { responses: 2 })], 1).top.map((t) => t.query)).toEqual(['b']);
  });

  it('rounds revenue as the attribution report does (6 decimals), not to the float sum of the prices', () => {
    // Prices summed as floats: the demo's report showed revenue 58.470000000000006.
    const revenue = 58.17 + 0.1 + 0.2;
    expect(revenue).not.toBe(58.47);
    const [method] = recommendationReportOf([total('ProductDetail', { responses: 1, results: 2, revenue }), total('ProductDetail', { results: 2, revenue }, 'Retail Media')]);
    expect(method).toMatchObject({ revenue: 58.47, tactics: [{ revenue: 58.47 }] });
    expect(searchReportOf([total('sofa', { responses: 1, revenue })], 10).top[0]).toMatchObject({ revenue: 58.47 });
  });

  it('computes a method ctr over responses served and a tactic ctr over items', () => {
    expect(recommendationReportOf([
      total('ViewedTogether', { responses: 10, results: 40, clicks: 5, clicked: 4, conversions: 2, revenue: 30 }),
      total('ViewedTogether', { results: 30, clicks: 4, conversions: 2, revenue: 30 }, 'Viewed With'),
      total('ViewedTogether', { results: 10, clicks: 1 }, 'Popular Items'),
      total('PopularItems', { responses: 2, results: 8 }),
    ])).toEqual([
      { method: 'ViewedTogether', served: 10, items: 40, clicks: 5, ctr: 0.4, conversions: 2, revenue: 30, tactics: [
        { tactic: 'Viewed With', items: 30, clicks: 4, ctr: 4 / 30, conversions: 2, revenue: 30 },
        { tactic: 'Popular Items', items: 10, clicks: 1, ctr: 0.1, conversions: 0, revenue: 0 },
      ] },
      { method: 'PopularItems', served: 2, items: 8, clicks: 0, ctr: 0, conversions: 0, revenue: 0, tactics: [] },
    ]);
  });

  it('gives no rate (null, not 0) where nothing was served in the window: 0 of 0 is not 0 %', () => {
    // A list served in the hour before the window and clicked inside it: the window holds the click, not the list.
    expect(recommendationReportOf([
      total('ViewedTogether', { clicks: 1, conversions: 1, revenue: 5 }),
      total('ViewedTogether', { clicks: 1 }, 'Viewed With'),
    ])).toEqual([
      { method: 'ViewedTogether', served: 0, items: 0, clicks: 1, ctr: null, conversions: 1, revenue: 5, tactics: [
        { tactic: 'Viewed With', items: 0, clicks: 1, ctr: null, conversions: 0, revenue: 0 },
      ] },
    ]);
    // A tactic's rate only: its method served lists, the tactic no item of them in the window.
    const [method] = recommendationReportOf([total('PopularItems', { responses: 2, results: 8, clicked: 1, clicks: 1 }), total('PopularItems', { clicks: 1 }, 'Popular Items')]);
    expect(method).toMatchObject({ ctr: 0.5, tactics: [{ items: 0, clicks: 1, ctr: null }] });
  });
});
