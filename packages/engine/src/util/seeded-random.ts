/**
 * Seeded randomness (the demo generators, interleaving's coin, test data): a small fast PRNG and the distributions a shop's data
 * follows (Zipf popularity, log-normal prices). Everything here is deterministic for a given seed.
 * @module
 */

/** A seeded pseudo-random source (mulberry32: 32-bit state, good enough for synthetic data). */
export class Random {
  private state: number;

  constructor(seed: number) {
    // Mix the seed so that nearby seeds (1, 2, 3) give unrelated sequences.
    this.state = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0x27d4eb2f) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A standard normal variate (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A log-normal variate: exp(mu + sigma·N(0,1)). */
  logNormal(mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal());
  }

  /** A geometric-ish positive integer with the given mean (at least 1). */
  geometric(mean: number): number {
    return 1 + Math.floor(-Math.log(1 - this.next()) * (mean - 1));
  }

  /** A version-4-shaped GUID made from this source's bits (deterministic for the seed). */
  guid(): string {
    const hex: string[] = [];
    for (let i = 0; i < 4; i++) hex.push(((this.next() * 4294967296) >>> 0).toString(16).padStart(8, '0'));
    const h = hex.join('');
    const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/**
 * Samples ranks 0..n-1 with probability proportional to 1/(rank+1)^s: a few values very common,
 * a long tail of rare ones, the way words, brands and product popularity are distributed.
 */
export class Zipf {
  private readonly cumulative: Float64Array;

  constructor(readonly n: number, readonly s = 1) {
    this.cumulative = new Float64Array(n);
    let sum = 0;
    for (let r = 0; r < n; r++) {
      sum += 1 / Math.pow(r + 1, s);
      this.cumulative[r] = sum;
    }
    for (let r = 0; r < n; r++) this.cumulative[r]! /= sum;
  }

  /** A rank in [0, n). */
  sample(random: Random): number {
    const u = random.next();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** A deterministic shuffle of `items` (Fisher–Yates with the given source); returns a new array. */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    const tmp = out[i]!;
    out[i] = out[j]!;
    out[j] = tmp;
  }
  return out;
}
