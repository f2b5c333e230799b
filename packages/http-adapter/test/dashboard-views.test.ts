/**
 * The dashboard views' pure parts: how typed values become a PATCH, which field an API error names,
 * the reports' date windows and their bars. The views themselves run in Chromium (dashboard.e2e.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { fieldErrors, parseTyped } from '../dashboard/src/catalog-view.js';
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
