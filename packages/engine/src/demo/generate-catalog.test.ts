import { describe, expect, it } from 'vitest';
import { BRANDS, CATEGORIES, generateCatalog, generateCatalogStream } from './generate-catalog.js';

describe('generateCatalog', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = generateCatalog({ count: 500, seed: 3 });
    const b = generateCatalog({ count: 500, seed: 3 });
    const c = generateCatalog({ count: 500, seed: 4 });
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).not.toEqual(JSON.stringify(c));
  });

  it('streams the same products as the array form', () => {
    const array = generateCatalog({ count: 300, seed: 9 });
    expect([...generateCatalogStream({ count: 300, seed: 9 })]).toEqual(array);
  });

  it('yields exactly count products with unique refIds', () => {
    for (const count of [0, 1, 2, 7, 1000]) {
      const products = generateCatalog({ count });
      expect(products).toHaveLength(count);
      expect(new Set(products.map((p) => p.refId)).size).toBe(count);
    }
  });

  it('gives every field its documented type', () => {
    const products = generateCatalog({ count: 2000, seed: 5 });
    const categoryNames = new Set(CATEGORIES.map((c) => c.name));
    let stringOrgPrice = 0;
    let missingRatings = 0;
    let withVector = 0;
    for (const p of products) {
      expect(typeof p.refId).toBe('string');
      expect(typeof p.title).toBe('string');
      expect(p.title as string).toContain(p.brand as string);
      expect(BRANDS).toContain(p.brand);
      expect(categoryNames.has(p.search_category as string)).toBe(true);
      expect(Array.isArray(p.categories)).toBe(true);
      expect((p.categories as string[]).at(-1)).toBe(p.search_category);
      expect(typeof p.price).toBe('number');
      expect(p.price as number).toBeGreaterThan(0);
      if (typeof p.org_price === 'string') {
        stringOrgPrice++;
        expect(p.org_price).toMatch(/^\d+\.\d\d$/);
      } else expect(typeof p.org_price).toBe('number');
      expect(Number(p.org_price)).toBeGreaterThanOrEqual(p.price as number);
      if (p.sale_price !== undefined) expect(p.sale_price).toBe(p.price);
      if (p.ratings === undefined) missingRatings++;
      else {
        expect(p.ratings as number).toBeGreaterThanOrEqual(1);
        expect(p.ratings as number).toBeLessThanOrEqual(5);
      }
      expect(Number.isInteger(p.availability)).toBe(true);
      expect(p.availability as number).toBeGreaterThanOrEqual(-1);
      expect(typeof p.height).toBe('number');
      expect(typeof p.type).toBe('string');
      expect(typeof p.style_id).toBe('string');
      if (p.image_vector !== undefined) {
        withVector++;
        expect(p.image_vector).toHaveLength(16);
        for (const x of p.image_vector as number[]) expect(Number.isFinite(x)).toBe(true);
      }
    }
    expect(stringOrgPrice).toBeGreaterThan(100);
    expect(missingRatings).toBeGreaterThan(100);
    expect(withVector / products.length).toBeGreaterThan(0.5);
    expect(withVector / products.length).toBeLessThan(0.9);
  });

  it('has skewed (Zipf-like) brands, categories and words, and all three availability kinds', () => {
    const products = generateCatalog({ count: 20_000, seed: 1 });
    const tally = (values: unknown[]): number[] => {
      const counts = new Map<unknown, number>();
      for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      return [...counts.values()].sort((a, b) => b - a);
    };
    const brands = tally(products.map((p) => p.brand));
    const categories = tally(products.map((p) => p.search_category));
    const words = tally(products.flatMap((p) => (p.title as string).toLowerCase().split(' ')));
    expect(brands.length).toBeGreaterThan(300);
    expect(categories.length).toBeGreaterThan(150);
    expect(brands[0]!).toBeGreaterThan(5 * brands[Math.floor(brands.length / 2)]!);
    expect(categories[0]!).toBeGreaterThan(5 * categories[Math.floor(categories.length / 2)]!);
    expect(words[0]!).toBeGreaterThan(20 * words[Math.floor(words.length / 2)]!);
    const availability = new Set(products.map((p) => (p.availability as number) > 0 ? 'stock' : p.availability));
    expect(availability).toEqual(new Set([-1, 0, 'stock']));
    const prices = products.map((p) => p.price as number).sort((a, b) => a - b);
    const median = prices[prices.length >> 1]!;
    expect(prices[prices.length - 1]!).toBeGreaterThan(10 * median); // long right tail
  });

  it('groups variants by style_id and puts a category\'s vectors closer together than random pairs', () => {
    const products = generateCatalog({ count: 3000, seed: 2 });
    const styles = new Map<string, typeof products>();
    for (const p of products) styles.set(p.style_id as string, [...(styles.get(p.style_id as string) ?? []), p]);
    const multi = [...styles.values()].filter((g) => g.length > 1);
    expect(multi.length).toBeGreaterThan(100);
    for (const group of multi) {
      expect(new Set(group.map((p) => p.brand)).size).toBe(1);
      expect(new Set(group.map((p) => p.search_category)).size).toBe(1);
    }
    const withVectors = products.filter((p) => p.image_vector);
    const cos = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
    let same = 0, sameN = 0, other = 0, otherN = 0;
    for (let i = 0; i < withVectors.length; i += 3) {
      for (let j = i + 1; j < Math.min(withVectors.length, i + 60); j++) {
        const a = withVectors[i]!, b = withVectors[j]!;
        const c = cos(a.image_vector as number[], b.image_vector as number[]);
        if (a.search_category === b.search_category) { same += c; sameN++; } else { other += c; otherN++; }
      }
    }
    expect(same / sameN).toBeGreaterThan(other / otherN + 0.2);
  });
});
