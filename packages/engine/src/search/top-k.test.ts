import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopK, topByScore } from './top-k.js';

describe('the best matches by score', () => {
  it('are those the heap keeps under relevance then doc order, in that order, with many ties', () => {
    const scores = fc.array(fc.constantFrom(0, 1, 2.5, 3000.25, 3001, 1e9), { maxLength: 300 }).map((s) => Float64Array.from(s));
    fc.assert(fc.property(scores, fc.nat(60), (list, asked) => {
      const limit = Math.min(asked, list.length);
      const top = new TopK(limit, (a, b) => (list[a] !== list[b] ? (list[a]! > list[b]! ? -1 : 1) : a - b));
      for (let k = 0; k < list.length; k++) top.offer(k);
      // A match list's docs ascend: here every other doc, so that a doc is not its position.
      const docs = Int32Array.from(list, (_, k) => 2 * k + 1);
      const page = topByScore(docs, list, list.length, limit);
      const positions = Array.from(top.sorted());
      expect(Array.from(page.topDocs)).toEqual(positions.map((k) => docs[k]));
      expect(Array.from(page.topScores)).toEqual(positions.map((k) => list[k]));
    }), { numRuns: 2000 });
  });
});
