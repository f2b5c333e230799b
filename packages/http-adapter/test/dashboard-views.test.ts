/**
 * The dashboard views' pure parts: how typed values become a PATCH, which field an API error names,
 * the reports' date windows and their bars, an experiment's comparison cells. The views themselves run in Chromium (dashboard.e2e.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { fieldErrors, parseTyped } from '../dashboard/src/catalog-view.js';
import { esc } from '../dashboard/src/api.js';
import { comparisonCells, interleavingHtml, reportHtml, type Comparison } from '../dashboard/src/experiments-view.js';
import { barsSvg, rangeOfDays } from '../dashboard/src/reports-view.js';

describe('catalog browser', () => {
  it('sends what was typed as the field\'s kind when it fits, else as the text typed (the API decides)', () => {
    expect(parseTyped('string', ' 12 ')).toBe(' 12 ');
    expect(parseTyped('number', ' 12.5 ')).toBe(12.5);
    expect(parseTyped('number', 'cheap')).toBe('cheap');
    expect(parseTyped('number', '')).toBe('');
    expect(parseTyped('boolean', 'false')).toBe(false);
    expect(parseTyped('boolean', 'no')).toBe('no');
    expect(parseTyped('json', '["a", 1]')).toEqual(['a', 1]);
    expect(() => parseTyped('json', '[')).toThrow(SyntaxError);
  });

  it('puts each refused change next to the field it names', () => {
    const pinned = 'product 1: product "P1": field "price" is pinned to type number and takes a number or a numeric string';
    const deep = 'element 1: product "P1": field "spec.a.a" is nested deeper than 16 levels';
    const errors = fieldErrors({ errors: { $: [pinned, deep, 'body must be an array'] }, records: [{ refId: 'P1', field: 'price', value: 'x', message: pinned }] });
    expect(Object.fromEntries(errors)).toEqual({ price: [pinned], spec: [deep], '': ['body must be an array'] });
    expect(fieldErrors(undefined).size).toBe(0);
    expect(fieldErrors('not json').size).toBe(0);
  });
});

describe('insights', () => {
  it('turns UTC days into the reports\' window, both days included; an empty day leaves its side open', () => {
    expect(rangeOfDays('2026-11-01', '2026-11-30')).toEqual({ from: '2026-11-01T00:00:00Z', to: '2026-11-30T23:59:59Z' });
    expect(rangeOfDays('', '2026-11-30')).toEqual({ to: '2026-11-30T23:59:59Z' });
    expect(rangeOfDays('', '')).toEqual({});
  });

  it('draws one bar per row, as long as its share of the longest (or of max), labels escaped', () => {
    const svg = barsSvg('Top <searches>', [{ label: 'a<b>', value: 10, text: '10' }, { label: 'x'.repeat(30), value: 5, text: '5' }, { label: 'none', value: 0, text: '0' }]);
    const widths = [...svg.matchAll(/<rect class="bar" [^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([200, 100, 0]);
    expect(svg).toContain('aria-label="Top &lt;searches&gt;"');
    expect(svg).toContain('a&lt;b&gt;');
    expect(svg).not.toContain('<b>');
    expect(svg).toContain(`<title>${'x'.repeat(30)}</title>${'x'.repeat(22)}…`);
    const halves = [...barsSvg('CTR', [{ label: 'q', value: 0.5, text: '50%' }], 1).matchAll(/width="([\d.]+)" height/g)].map((m) => Number(m[1]));
    expect(halves).toEqual([100]);
    expect(barsSvg('none', [])).toContain('viewBox="0 0 440 4"');
  });
});

describe('experiments', () => {
  const test = 'two-proportion z test (pooled, two-sided) over users';
  const interval = 'delta method on the log ratio (95 %)';
  const wilson = 'Wilson score interval (95 %)';
  const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

  it('shows a comparison in percent with its interval, the test on the p-value', () => {
    const html = comparisonCells({ relativeDifference: 0.3, low: 0.017, high: 0.662, interval, pValue: 0.0355, test, significant: true });
    expect(text(html)).toBe('30.0 % [1.7, 66.2] 0.0355 significant');
    expect(html).toContain(`title="${test}"`);
    // The interval's method too, on the difference.
    expect(html).toContain(`title="${interval}"`);
  });

  it('shows null as "not computable" with the reason, never 0 % or NaN (decision 0073)', () => {
    const note = "The control's rate is 0 and the variant's is not: a relative difference to 0 is not defined; compare the rates and the p-value.";
    const controlAtZero: Comparison = { relativeDifference: null, low: null, high: null, interval, pValue: 0.0012, test, significant: false, note };
    const html = comparisonCells(controlAtZero);
    expect(text(html)).toBe(`not computable ${esc(note)} 0.00120 —`);
    expect(html).not.toMatch(/NaN|0\.0 %/);
    const tooFew = comparisonCells({ relativeDifference: null, low: null, high: null, interval, pValue: null, test, significant: false, note: 'Not compared: the control has 1 user; a comparison needs at least 2 per variant.' });
    expect(text(tooFew)).toMatch(/^not computable Not compared: the control has 1 user; .* not computable —$/);
    // A stated difference whose interval is missing, or open upwards.
    expect(text(comparisonCells({ relativeDifference: -1, low: null, high: null, interval, pValue: 0.2, test, significant: false, note: 'No interval.' }))).toMatch(/^-100\.0 % interval not computable No interval\./);
    expect(text(comparisonCells({ relativeDifference: -1, low: -1, high: null, interval, pValue: 0.3, test, significant: false, note: 'MOVER-R.' }))).toMatch(/^-100\.0 % \[-100\.0, no upper end\] MOVER-R\./);
    expect(comparisonCells({ ...controlAtZero, note: '<b>' })).toContain('&lt;b&gt;');
  });

  it('shows a variant without users as "no data yet", never 0.00 % with an interval of no width', () => {
    const none = { value: null, low: null, high: null, interval: wilson };
    const report = {
      id: 'e', name: 'e', kind: 'search', method: 'ab', status: 'running', from: '2026-11-30T00:00:00.000Z', variants: [] as never[],
      minUsers: { ctr: null, conversionRate: null },
    };
    const page = text(reportHtml({
      ...report,
      variants: [
        { name: 'control', weight: 1, users: 1, searches: 2, clicks: 1, ctr: { value: 0.5, low: 0.09, high: 0.9, interval: wilson }, conversions: 0, conversionRate: { value: 0, low: 0, high: 0.79, interval: wilson }, revenue: 0, revenuePerUser: { value: 0, low: null, high: null, interval: "Student's t interval of the mean (95 %)" } },
        { name: 'b', weight: 1, users: 0, searches: 0, clicks: 0, ctr: none, conversions: 0, conversionRate: none, revenue: 0, revenuePerUser: none },
      ],
    }));
    expect(page).toContain('b 0 0 0 no data yet 0 no data yet 0 no data yet');
    expect(page).toContain('control 1 2 1 50.00 %');
    expect(page).not.toMatch(/NaN/);
  });

  it('shows an interleaving sign test without preferring users as "not computable" with its note, never p = 1', () => {
    const note = 'no user preferred either ranking yet (no clicks, or as many on each): nothing to test';
    const signTest = 'binomial sign test (two-sided, ties dropped) over users';
    const none = interleavingHtml({ credits: { a: 0, b: 0 }, users: 3, preferring: { a: 0, b: 0 }, preferred: null, pValue: null, test: signTest, note });
    expect(text(none)).toContain(`3 users · p = not computable (${signTest}) · preferred: none yet ${note}`);
    expect(text(interleavingHtml({ credits: { a: 1, b: 9 }, users: 9, preferring: { a: 1, b: 8 }, preferred: null, pValue: 0.0391, test: signTest }))).toContain('p = 0.0391');
  });
});
