import { describe, expect, it } from 'vitest';
import { cleanCandidates, runFill, type Tactic } from './cascade.js';

const list = (...items: string[]) => items.map((item, k) => ({ item, score: items.length - k }));

describe('runFill as a cascade', () => {
  it('leads with the first tactic with a non-empty result and completes the list from the next ones', () => {
    const calls: string[] = [];
    const tactics: Tactic<string>[] = [
      { label: 'A', run: () => (calls.push('A'), []) },
      { label: 'B', run: () => (calls.push('B'), list('x', 'y')) },
      { label: 'C', run: () => (calls.push('C'), list('z')) },
    ];
    const out = runFill(tactics, { accept: () => true, count: 10 });
    expect(out.label).toBe('B');
    expect(out.picked).toEqual([{ item: 'x', label: 'B' }, { item: 'y', label: 'B' }, { item: 'z', label: 'C' }]);
    expect(calls).toEqual(['A', 'B', 'C']);
    // Full after B: C is not asked.
    calls.length = 0;
    expect(runFill(tactics, { accept: () => true, count: 2 }).picked.map((p) => p.label)).toEqual(['B', 'B']);
    expect(calls).toEqual(['A', 'B']);
  });

  it('falls through a tactic whose items are all filtered out', () => {
    const tactics: Tactic<string>[] = [
      { label: 'A', run: () => list('input', 'gone') },
      { label: 'B', run: () => list('ok') },
    ];
    const out = runFill(tactics, { accept: (i) => i === 'ok', count: 10 });
    expect(out.label).toBe('B');
    expect(out.picked.map((p) => p.item)).toEqual(['ok']);
  });

  it('is empty when every tactic is empty', () => {
    expect(runFill([{ label: 'A', run: () => [] }], { accept: () => true, count: 3 })).toEqual({ label: undefined, picked: [], candidates: [] });
  });

  it('cuts to count but keeps all accepted candidates of the tactics that ran when asked (retail media)', () => {
    const out = runFill([{ label: 'A', run: () => list('a', 'b', 'c', 'd') }], { accept: () => true, count: 2, keepCandidates: true });
    expect(out.picked.map((p) => p.item)).toEqual(['a', 'b']);
    expect(out.candidates).toEqual(['a', 'b', 'c', 'd']);
  });

  it('checks only what it returns when the candidates are not kept', () => {
    const checked: string[] = [];
    const accept = (i: string) => { checked.push(i); return i !== 'b'; };
    const out = runFill([{ label: 'A', run: () => list('a', 'b', 'a', 'c', 'd', 'e') }], { accept, count: 2 });
    expect(out.picked.map((p) => p.item)).toEqual(['a', 'c']);
    expect(out.candidates).toEqual(['a', 'c']);
    expect(checked).toEqual(['a', 'b', 'c']);
  });

  it('with a boost, ranks every candidate before cutting even when they are not kept', () => {
    const out = runFill([{ label: 'A', run: () => list('a', 'b', 'c') }], { accept: () => true, count: 1, boost: (i) => (i === 'c' ? 10 : 1) });
    expect(out.picked.map((p) => p.item)).toEqual(['c']);
  });

  it('applies the boost multiplier before cutting (stable for ties)', () => {
    const out = runFill([{ label: 'A', run: () => [{ item: 'a', score: 3 }, { item: 'b', score: 2 }, { item: 'c', score: 1 }] }], {
      accept: () => true,
      count: 2,
      boost: (i) => (i === 'c' ? 2.5 : 1),
    });
    expect(out.picked.map((p) => p.item)).toEqual(['a', 'c']);
  });
});

describe('cleanCandidates', () => {
  it('drops duplicates (first wins) and rejected items', () => {
    const out = cleanCandidates([{ item: 1, score: 5 }, { item: 2, score: 4 }, { item: 1, score: 3 }, { item: 3, score: 2 }], { accept: (i) => i !== 2 });
    expect(out).toEqual([{ item: 1, score: 5 }, { item: 3, score: 2 }]);
  });
});

describe('runFill', () => {
  it('back-fills from later tactics without repeats, labelling each item', () => {
    const out = runFill(
      [
        { label: 'A', run: () => list('a', 'b') },
        { label: 'P', run: () => list('b', 'p1', 'p2', 'p3') },
      ],
      { accept: () => true, count: 4 },
    );
    expect(out.picked).toEqual([
      { item: 'a', label: 'A' },
      { item: 'b', label: 'A' },
      { item: 'p1', label: 'P' },
      { item: 'p2', label: 'P' },
    ]);
    expect(out.label).toBe('A');
  });

  it('does not run later tactics once full', () => {
    let ran = false;
    const out = runFill([{ label: 'A', run: () => list('a', 'b') }, { label: 'B', run: () => ((ran = true), list('c')) }], { accept: () => true, count: 2 });
    expect(out.picked).toHaveLength(2);
    expect(ran).toBe(false);
  });
});
