import { describe, expect, it } from 'vitest';
import { editWord, sampleKnownItems, seededRandom, titleWords } from '../src/relevance/known-item.js';

/** Plain OSA distance. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

describe('known-item queries', () => {
  const products = Array.from({ length: 200 }, (_, i) => ({ refId: `p${i}`, title: `Brand${i % 7} comfortable running shoes model ${i}` }));
  it('are deterministic for a seed', () => {
    expect(sampleKnownItems(products, 20, 1)).toEqual(sampleKnownItems(products, 20, 1));
    expect(sampleKnownItems(products, 20, 1)).not.toEqual(sampleKnownItems(products, 20, 2));
  });
  it('make each one-edit variant exactly one edit from the clean query, never on the first letter', () => {
    for (const item of sampleKnownItems(products, 50, 3)) {
      const clean = item.queries.clean!;
      expect(titleWords(item.title).join(' ')).toContain(clean);
      for (const v of ['substitution', 'deletion', 'insertion', 'transposition'] as const) {
        const q = item.queries[v];
        if (q === undefined) continue;
        expect(osa(clean, q)).toBe(1);
        const changed = q.split(' ').findIndex((w, i) => w !== clean.split(' ')[i]);
        expect(q.split(' ')[changed][0]).toBe(clean.split(' ')[changed][0]);
      }
      if (item.queries['two typos']) expect(osa(clean, item.queries['two typos'])).toBeLessThanOrEqual(2);
    }
  });
  it('edits words as asked', () => {
    const random = seededRandom(5);
    expect(editWord('shoes', 'deletion', random)!.length).toBe(4);
    expect(editWord('shoes', 'insertion', random)!.length).toBe(6);
    expect(editWord('aaaa', 'transposition', random)).toBeUndefined();
  });
});
