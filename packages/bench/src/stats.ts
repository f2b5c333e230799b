/**
 * Small statistics and formatting helpers for latency samples.
 * @module
 */

/** Summary of a latency sample, in milliseconds. */
export interface LatencySummary {
  n: number;
  median: number;
  p99: number;
  mean: number;
  max: number;
}

/** The q-quantile (0..1) of an ascending-sorted sample (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    mean: sorted.length ? sum / sorted.length : NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}

/** A millisecond figure with 3 significant digits (0.0412, 1.23, 45.6, 812). */
export function ms(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  if (x >= 1) return x.toFixed(2);
  return x.toPrecision(2).replace(/^0\.0*$/, '0');
}

/** A ratio as "×12" (peer figure / aisle figure; >1 means aisle is faster or smaller). */
export function ratio(peer: number | undefined, aisle: number | undefined): string {
  if (peer === undefined || aisle === undefined || !Number.isFinite(peer) || !Number.isFinite(aisle) || aisle <= 0) return '–';
  const r = peer / aisle;
  return r >= 10 ? `×${r.toFixed(0)}` : r >= 0.1 ? `×${r.toFixed(1)}` : `×${r.toPrecision(1)}`;
}

/** Memory in MB with no decimals past 10 MB. */
export function mb(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '–';
  const v = bytes / 1048576;
  return v >= 10 ? v.toFixed(0) : v.toFixed(1);
}
