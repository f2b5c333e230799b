import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, planOutcomes, ROLLUP_GRAINS, rollupRowsOf, windowRanges } from './analytics-rows.js';
import type { ResponseOutcome } from './store.js';

const sizeOf = Object.fromEntries(ROLLUP_GRAINS.map((g) => [g.grain, g.ms]));

/** The hours a window's ranges hold, each once (throws on an overlap). */
function hoursCovered(from: number, to: number): number[] {
  const hours: number[] = [];
  for (const r of windowRanges({ fromHour: from, toHour: to })) {
    for (let start = r.from; start <= r.to; start += sizeOf[r.grain]!) for (let h = start; h < start + sizeOf[r.grain]!; h += HOUR_MS) hours.push(h);
  }
  const sorted = [...hours].sort((a, b) => a - b);
  expect(new Set(sorted).size).toBe(sorted.length);
  return sorted;
}

describe('roll-up arithmetic', () => {
  it('covers exactly the hours of any window, with few ranges', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 200; i++) {
      const from = Math.floor(random() * 400 * 24) * HOUR_MS + Math.floor(random() * HOUR_MS);
      const to = from + Math.floor(random() * 120 * DAY_MS);
      const expected: number[] = [];
      for (let h = Math.floor(from / HOUR_MS) * HOUR_MS; h <= to; h += HOUR_MS) expected.push(h);
      expect(hoursCovered(from, to)).toEqual(expected);
      expect(windowRanges({ fromHour: from, toHour: to }).length).toBeLessThanOrEqual(2 * ROLLUP_GRAINS.length);
    }
    expect(windowRanges({ fromHour: 10 * HOUR_MS, toHour: 9 * HOUR_MS })).toEqual([]);
    expect(windowRanges({ fromHour: 0, toHour: 128 * DAY_MS - 1 })).toEqual([{ grain: 'd64', from: 0, to: 64 * DAY_MS }]);
  });

  it('adds each delta to one row of every grain, merging rows of one key', () => {
    const at = 70 * DAY_MS + 5 * HOUR_MS;
    const rows = rollupRowsOf([
      { websiteId: 'w', kind: 'search', hour: at, key: 'sofa', tactic: '', counters: { responses: 1, results: 4 } },
      { websiteId: 'w', kind: 'search', hour: at, key: 'sofa', tactic: '', counters: { responses: 1, revenue: 2.5 } },
    ]);
    expect(rows.map((r) => [r.grain, r.start, r.counters.responses, r.counters.results, r.counters.revenue])).toEqual([
      ['h', at, 2, 4, 2.5], ['d', 70 * DAY_MS, 2, 4, 2.5], ['d4', 68 * DAY_MS, 2, 4, 2.5], ['d16', 64 * DAY_MS, 2, 4, 2.5], ['d64', 64 * DAY_MS, 2, 4, 2.5],
    ]);
  });

  it('flags a response once across outcomes of one batch and counts outcomes of unknown responses under their own key', () => {
    const click = (queryId: string): ResponseOutcome => ({ websiteId: 'w', kind: 'search', queryId, at: 5 * HOUR_MS, key: 'typed', counters: { clicks: 1 }, flag: 'clicked' });
    const found = new Map([['a', { queryId: 'final', at: HOUR_MS, key: 'sofa', clicked: false, converted: false }], ['b', { queryId: 'final', at: HOUR_MS, key: 'sofa', clicked: false, converted: false }]]);
    const plan = planOutcomes([click('a'), click('b'), click('gone')], found);
    expect(plan.flags).toEqual([{ queryId: 'final', flag: 'clicked' }]);
    expect(plan.deltas.map((d) => [d.key, d.hour, d.counters])).toEqual([
      ['sofa', HOUR_MS, { clicks: 1, clicked: 1 }], ['sofa', HOUR_MS, { clicks: 1 }], ['typed', 5 * HOUR_MS, { clicks: 1 }],
    ]);
  });
});
