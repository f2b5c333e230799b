import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { evictionEstimate, NeighbourTable } from './neighbour-table.js';

describe('NeighbourTable', () => {
  it('accumulates weights per edge and reports them', () => {
    const t = new NeighbourTable(8, 2);
    t.add(0, 1, 1);
    t.add(0, 1, 2);
    t.add(0, 2, 0.5);
    t.add(5000, 3, 1);
    expect(t.weight(0, 1)).toBe(3);
    expect(t.weight(0, 2)).toBe(0.5);
    expect(t.weight(1, 0)).toBe(0);
    expect(t.weight(5000, 3)).toBe(1);
    expect(t.degree(0)).toBe(2);
    const seen: [number, number][] = [];
    t.forEachNeighbour(0, (b, w) => seen.push([b, w]));
    expect(seen.sort()).toEqual([[1, 3], [2, 0.5]]);
  });

  it('maxMarkedWeight gives the largest weight among the marked neighbours only', () => {
    const t = new NeighbourTable(8);
    t.add(1, 2, 3);
    t.add(1, 3, 5);
    t.add(1, 4, 1);
    const marks = new Int32Array(4); // item 4 lies beyond the marks: never marked
    marks[2] = 7;
    marks[3] = 6; // an older stamp
    expect(t.maxMarkedWeight(1, marks, 7)).toBe(3);
    marks[3] = 7;
    expect(t.maxMarkedWeight(1, marks, 7)).toBe(5);
    expect(t.maxMarkedWeight(1, marks, 8)).toBe(0);
    expect(t.maxMarkedWeight(9, marks, 7)).toBe(0);
  });

  it('keeps at most cap neighbours and never evicts a heavy one', () => {
    const t = new NeighbourTable(4, 16);
    t.add(0, 100, 50);
    for (let b = 1; b <= 40; b++) t.add(0, b, 1);
    expect(t.degree(0)).toBe(4);
    expect(t.weight(0, 100)).toBe(50);
    // The newest neighbour replaced the weakest; it ranks by what it earned since (not the inherited part).
    expect(t.weight(0, 40)).toBe(1);
    t.add(0, 40, 2);
    expect(t.weight(0, 40)).toBe(3);
  });

  it('matches exact counts while under the cap, across block growth and many items', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 15 })), { maxLength: 400 }), (edges) => {
        const t = new NeighbourTable(16, 1);
        const exact = new Map<string, number>();
        for (const [a, b] of edges) {
          t.add(a, b, 1);
          exact.set(`${a}:${b}`, (exact.get(`${a}:${b}`) ?? 0) + 1);
        }
        for (const [key, w] of exact) {
          const [a, b] = key.split(':').map(Number) as [number, number];
          expect(t.weight(a, b)).toBe(w);
        }
      }),
    );
  });

  it('addAll counts a target listed twice once, on the short path too', () => {
    const t = new NeighbourTable(1000, 1);
    t.addAll(1, [5, 5], 0.5);
    t.addAll(2, [5, 5, 5], 0.5);
    expect(t.weight(1, 5)).toBe(0.5);
    expect(t.weight(2, 5)).toBe(0.5);
    expect(t.degree(1)).toBe(1);
  });

  it('addAll equals repeated add for distinct targets while under the cap', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 12 })), { maxLength: 60 }),
        (batches) => {
          const batched = new NeighbourTable(1000, 1);
          const single = new NeighbourTable(1000, 1);
          for (const [a, bs] of batches) {
            batched.addAll(a, bs, 0.5);
            for (const b of new Set(bs)) if (b !== a) single.add(a, b, 0.5);
          }
          for (let a = 0; a <= 20; a++) {
            expect(batched.degree(a)).toBe(single.degree(a));
            single.forEachNeighbour(a, (b, w) => expect(batched.weight(a, b)).toBe(w));
          }
        },
      ),
    );
  });

  it('addAll past the cap replaces the weakest entries and keeps the strong ones', () => {
    const t = new NeighbourTable(4);
    t.add(0, 100, 50);
    t.add(0, 101, 40);
    t.add(0, 1, 1);
    t.add(0, 2, 2);
    t.addAll(0, [0, 5, 6, 7, 100], 1);
    expect(t.degree(0)).toBe(4);
    expect(t.weight(0, 100)).toBe(51);
    expect(t.weight(0, 101)).toBe(40);
    expect(t.weight(0, 1)).toBe(0);
    expect(t.weight(0, 2)).toBe(0);
    // As with three add() calls: 5 replaced 1, 6 replaced 2, then 7 replaced 5 (the weakest by estimate).
    const seq = new NeighbourTable(4);
    seq.add(0, 100, 50);
    seq.add(0, 101, 40);
    seq.add(0, 1, 1);
    seq.add(0, 2, 2);
    for (const b of [5, 6, 7, 100]) seq.add(0, b, 1);
    for (const b of [1, 2, 5, 6, 7, 100, 101]) expect(t.weight(0, b)).toBe(seq.weight(0, b));
  });

  it('addAll on a full list equals the reference: update the listed targets, then each newcomer replaces the weakest (weight, position)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 12, maxLength: 12 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 3, maxLength: 20 }),
        fc.integer({ min: 1, max: 4 }),
        (initial, bs, w) => {
          const cap = 12;
          const t = new NeighbourTable(cap);
          // Neighbours 100..111 with small integer weights (ties included).
          initial.forEach((weight, i) => t.add(1, 100 + i, weight));
          const targets = [...bs.map((b) => (b < 12 ? 100 + b : b)), 1];
          // weight = estimate (as the table keeps it), error = inherited part.
          const ref: { id: number; weight: number; error: number }[] = initial.map((weight, i) => ({ id: 100 + i, weight, error: 0 }));
          const distinct = [...new Set(targets)].filter((b) => b !== 1);
          const listed = new Set(ref.map((e) => e.id));
          for (const e of ref) if (distinct.includes(e.id)) e.weight += w;
          for (const b of distinct) {
            if (listed.has(b)) continue;
            let min = 0;
            for (let k = 1; k < ref.length; k++) if (ref[k]!.weight < ref[min]!.weight) min = k;
            const inherited = ref[min]!.weight;
            const kept = evictionEstimate(inherited, w);
            ref[min] = { id: b, weight: kept, error: kept - w };
          }
          t.addAll(1, targets, w);
          const got: [number, number][] = [];
          t.forEachNeighbour(1, (b, earned) => got.push([b, earned]));
          expect(got).toEqual(ref.map((e) => [e.id, e.weight - e.error]));
        },
      ),
    );
  });

  it('addAll with maxEvictions admits at most that many newcomers into a full list; evict=false none', () => {
    const t = new NeighbourTable(4);
    for (const [b, w] of [[100, 50], [101, 40], [1, 1], [2, 2]] as const) t.add(0, b, w);
    t.addAll(0, [5, 6, 7, 100], 1, true, 1);
    expect(t.weight(0, 100)).toBe(51);
    expect(t.weight(0, 5)).toBe(1);
    expect(t.weight(0, 6) + t.weight(0, 7)).toBe(0);
    expect(t.degree(0)).toBe(4);
    t.addAll(0, [8, 9, 101], 1, false);
    expect(t.weight(0, 101)).toBe(41);
    expect(t.weight(0, 8) + t.weight(0, 9)).toBe(0);
    // Not full: free places are filled, then at most maxEvictions newcomers replace entries.
    const u = new NeighbourTable(4);
    u.add(0, 100, 5);
    u.addAll(0, [1, 2, 3, 4, 5, 6], 1, true, 1);
    expect(u.degree(0)).toBe(4);
    // 1, 2, 3 fill the free places; 4 replaces the weakest (1); 5 and 6 are dropped.
    expect([1, 2, 3, 4, 5, 6].filter((b) => u.weight(0, b) > 0)).toEqual([2, 3, 4]);
  });

  it('paged slabs (blocks across many small pages) give exactly the results of one large page', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 40 }),
            fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 10 }),
            fc.integer({ min: 1, max: 4 }),
            fc.integer({ min: 0, max: 5 }),
          ),
          { maxLength: 300 },
        ),
        (ops) => {
          const small = new NeighbourTable(16, 1, 4); // pages of 16 entries: every block move crosses pages
          const large = new NeighbourTable(16, 1);
          for (const [a, bs, w, kind] of ops) {
            for (const t of [small, large]) {
              if (kind === 0) t.add(a, bs[0]!, w);
              else if (kind === 1) t.addAll(a, bs, w, false);
              else if (kind === 2) t.addAll(a, bs, w, true, 2);
              else if (kind === 3) t.scale(0.5);
              else t.addAll(a, bs, w);
            }
          }
          for (let a = 0; a <= 40; a++) {
            expect(small.degree(a)).toBe(large.degree(a));
            const got: [number, number][] = [];
            const want: [number, number][] = [];
            small.forEachNeighbour(a, (b, w) => got.push([b, w]));
            large.forEachNeighbour(a, (b, w) => want.push([b, w]));
            expect(got).toEqual(want);
          }
          expect(small.usedBytes).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('keeps the inherited part of an evicting neighbour for eviction as its earned weight grows, and ignores ids beyond 24 bits', () => {
    const t = new NeighbourTable(2);
    t.add(0, 1, 10);
    t.add(0, 2, 20);
    t.add(0, 3, 1); // replaces 1: earned 1, and 10 inherited for eviction purposes
    expect(t.weight(0, 3)).toBe(1);
    t.add(0, 4, 1); // 3 (estimate ≈ 11) is weaker than 2 (20): 4 replaces it
    expect(t.weight(0, 3)).toBe(0);
    expect(t.weight(0, 4)).toBe(1);
    for (let i = 0; i < 20; i++) t.add(0, 4, 1);
    expect(t.weight(0, 4)).toBe(21);
    t.add(0, 5, 1); // now 2 (20) is the weakest: 4's estimate ≈ 21 + 11
    expect(t.weight(0, 2)).toBe(0);
    expect(t.weight(0, 4)).toBe(21);
    t.add(0, 1 << 24, 5);
    t.add(1 << 24, 0, 5);
    expect(t.degree(0)).toBe(2);
    expect(t.degree(1 << 24)).toBe(0);
  });

  it('a weak signal (evict = false) fills the block it finds, or a first one, but never grows it', () => {
    const t = new NeighbourTable(16);
    t.addAll(0, [1, 2, 3, 4, 5, 6], 1, false);
    expect(t.degree(0)).toBe(4);
    t.addAll(0, [1, 7, 8], 1, false);
    expect(t.weight(0, 1)).toBe(2);
    expect(t.weight(0, 7)).toBe(0);
    t.addAll(0, [9, 10, 11], 1); // a strong signal grows the block (4 → 8)
    expect(t.degree(0)).toBe(7);
    t.addAll(0, [12, 13, 14], 1, false); // one free place left in the block of 8
    expect(t.degree(0)).toBe(8);
    expect(t.usedBytes).toBe(new NeighbourTable(16).usedBytes + (4 + 8) * 8);
  });

  it('scales all weights', () => {
    const t = new NeighbourTable(4);
    t.add(1, 2, 4);
    t.scale(0.5);
    expect(t.weight(1, 2)).toBe(2);
  });
});
