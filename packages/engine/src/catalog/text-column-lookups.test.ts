import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from './build-catalog-state.js';
import { numericOrderSteps } from './text-column-lookups.js';

/** The order by definition: docs with a value, by (value, doc) ascending. */
function reference(values: Float64Array): number[] {
  const docs: number[] = [];
  values.forEach((v, d) => { if (!Number.isNaN(v)) docs.push(d); });
  return docs.sort((a, b) => (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : a - b));
}

describe('numeric order', () => {
  it('lists the docs having a value by (value, doc), whatever the values (ties, NaN, -0, infinities)', () => {
    const value = fc.oneof(fc.constantFrom(Number.NaN, -0, 0, Infinity, -Infinity, 1, 2), fc.double({ noNaN: true }), fc.integer({ min: -5, max: 5 }));
    fc.assert(fc.property(fc.array(value, { maxLength: 300 }), (list) => {
      const values = Float64Array.from(list);
      const order = runSteps(numericOrderSteps(values));
      expect(order.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(Array.from(order)).toEqual(reference(values));
    }), { numRuns: 300 });
  });

  it('orders a column longer than a step of work and many runs', () => {
    const values = Float64Array.from({ length: 20_000 }, (_, d) => (d % 11 === 0 ? Number.NaN : (d * 7919) % 1000));
    expect(Array.from(runSteps(numericOrderSteps(values)))).toEqual(reference(values));
  });
});
