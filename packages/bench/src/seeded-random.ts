/**
 * The bench's one seeded pseudo-random source (mulberry32) and its Zipf sampler, so evaluations sample the same queries and
 * sessions on every run and machine.
 * @module
 */

/** A small seeded PRNG (mulberry32): uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws 0..n-1 with probability ∝ 1/(k+1)^s (inverse CDF over a cumulative table). */
export function zipf(n: number, s: number, rand: () => number): () => number {
  const cum = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) cum[k] = total += 1 / (k + 1) ** s;
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
