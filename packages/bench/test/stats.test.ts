import { describe, expect, it } from 'vitest';
import { scalingSvg } from '../src/scaling.js';
import { mb, ms, quantile, ratio, summarize } from '../src/stats.js';

describe('stats', () => {
  it('summarises a sample (nearest-rank quantiles)', () => {
    const s = summarize([5, 1, 4, 2, 3]);
    expect(s).toMatchObject({ n: 5, median: 3, p99: 5, mean: 3, max: 5 });
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('formats figures and ratios', () => {
    expect(ms(0.04123)).toBe('0.041');
    expect(ms(1.234)).toBe('1.23');
    expect(ms(812.4)).toBe('812');
    expect(ratio(10, 2)).toBe('×5.0');
    expect(ratio(200, 2)).toBe('×100');
    expect(ratio(1, 50)).toBe('×0.02');
    expect(ratio(1, 0)).toBe('–');
    expect(mb(1048576 * 466)).toBe('466');
  });

  it('draws a well-formed scaling plot', () => {
    const result = (median: number, memoryBytes: number) => ({
      engine: 'aisle' as const, name: 'aisle', products: 1, buildMs: 1, memoryBytes, rssBytes: 1, totals: {}, errors: {},
      latency: { text: { n: 1, median, p99: median, mean: median, max: median } },
    });
    const svg = scalingSvg([
      { size: 10_000, workers: 1, result: result(0.5, 10e6) },
      { size: 100_000, workers: 1, result: result(3, 90e6) },
      { size: 1_000_000, workers: 1, error: 'timed out' },
    ], [1, 2]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.endsWith('</svg>')).toBe(true);
    expect(svg).toContain('<polyline');
    expect(svg).not.toContain('NaN');
  });
});
