/**
 * What the query sets are drawn from: a sample of the catalog (its first products), a seeded random
 * source, and the reference tokenisation every adapter and the plain scan share.
 * @module
 */
import type { Product, SearchRequest } from '../types.js';

/** Lower-cased, accent-folded words of two or more letters/digits: the reference tokenisation. */
export function words(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2);
}

/** A seeded random source (mulberry32), so every run asks the same queries. */
export class SeededRandom {
  private state: number;
  constructor(seed: number) {
    this.state = (seed * 2654435761) >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** The catalog sample the queries come from, with the lookups the builders need. */
export class QuerySample {
  /** Products with a title of at least one word. */
  readonly titled: Product[];
  /** Products with a string brand and a numeric price. */
  readonly branded: Product[];
  /** Products with a string search_category. */
  readonly categorised: Product[];
  /** Brands by frequency in the sample, most common first. */
  readonly popularBrands: string[];

  constructor(products: readonly Product[]) {
    this.titled = products.filter((p) => words(p.title).length > 0);
    this.branded = products.filter((p) => typeof p.brand === 'string' && p.brand !== '' && typeof p.price === 'number' && words(p.title).length > 0);
    this.categorised = products.filter((p) => typeof p.search_category === 'string' && p.search_category !== '');
    const brandCounts = new Map<string, number>();
    for (const p of this.branded) brandCounts.set(p.brand as string, (brandCounts.get(p.brand as string) ?? 0) + 1);
    this.popularBrands = [...brandCounts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([b]) => b);
  }

  /** One or two consecutive title words of a random product (common words come up more often, as in real traffic). */
  queryText(random: SeededRandom, maxWords: 1 | 2 = 2): string {
    const title = words(random.pick(this.titled).title).filter((w) => !/^\d+$/.test(w));
    if (title.length === 0) return 'the';
    const start = Math.floor(random.next() * title.length);
    const two = maxWords === 2 && random.next() < 0.5 && start + 1 < title.length;
    return two ? `${title[start]} ${title[start + 1]}` : title[start]!;
  }
}

/** The fixed part of every request body. */
export function baseRequest(q: string): SearchRequest {
  return { website_id: 'bench', client: 'bench', q, start: 0, size: 20 };
}
