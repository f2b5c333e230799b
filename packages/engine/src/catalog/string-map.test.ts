import { describe, expect, it } from 'vitest';
import { sortStrings, STEP } from './build-catalog-state.js';
import { StringMap } from './string-map.js';

const drain = <T>(steps: Generator<void, T, void>): T => {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
};

describe('StringMap', () => {
  it('behaves as a Map<string, V> (get, has, set, size, entries)', () => {
    const map = new StringMap<number>();
    const reference = new Map<string, number>();
    const keys = Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? `SKU-${String(i).padStart(7, '0')}` : i % 3 === 1 ? String(i / 4) : `a long product title number ${i} with words`));
    keys.push('', 'é', 'x'.repeat(100));
    keys.forEach((k, i) => { map.set(k, i); reference.set(k, i); });
    map.set(keys[0], -1);
    reference.set(keys[0], -1);
    expect(map.size).toBe(reference.size);
    for (const k of keys) expect(map.get(k)).toBe(reference.get(k));
    expect(map.has('nope')).toBe(false);
    expect(map.get('nope')).toBeUndefined();
    expect(new Map(map.entries())).toEqual(reference);
  });
});

describe('sortStrings', () => {
  it('sorts in steps exactly as Array.prototype.sort', () => {
    const words = Array.from({ length: 3 * STEP + 17 }, (_, i) => `${(i * 7919) % 10007}${i % 5 === 0 ? 'É' : 'z'}${i % 11}`);
    expect(drain(sortStrings(words))).toEqual(words.slice().sort());
    expect(drain(sortStrings([]))).toEqual([]);
    expect(drain(sortStrings(['b', 'a']))).toEqual(['a', 'b']);
  });
});

describe('StringMap.positions', () => {
  const keys = Array.from({ length: 5000 }, (_, i) => `k${i % 4000}`); // 1000 keys given twice: the last position wins
  const reference = new Map<string, number>();
  keys.forEach((k, i) => reference.set(k, i));
  const asMap = (map: StringMap<number>) => new Map([...map.entries()]);

  it('fills on first use: the same entries as setting each key at its position', () => {
    const map = StringMap.positions(keys.length, (i) => keys[i]);
    expect(map.get('k3999')).toBe(3999);
    expect(map.get('k10')).toBe(4010);
    expect(map.size).toBe(reference.size);
    expect(asMap(map)).toEqual(reference);
  });

  it('fills in steps, and any call in between completes it', () => {
    const map = StringMap.positions(keys.length, (i) => keys[i]);
    const steps = map.fillSteps(1000);
    steps.next();
    steps.next();
    expect(map.has('k4')).toBe(true);
    expect(map.with([['new', 1]]).get('new')).toBe(1);
    expect(map.without(['k1']).has('k1')).toBe(false);
    expect(asMap(map)).toEqual(reference);
    expect(steps.next().done).toBe(true);
    const stepped = StringMap.positions(keys.length, (i) => keys[i]);
    drain(stepped.fillSteps(STEP));
    expect(asMap(stepped)).toEqual(reference);
    expect(StringMap.positions(0, () => '').size).toBe(0);
  });
});
