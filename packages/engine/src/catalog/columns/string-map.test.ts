import { describe, expect, it } from 'vitest';
import { sortStrings, STEP } from '../steps.js';
import { StringMap } from './string-map.js';

const drain = <T>(steps: Generator<void, T, void>): T => {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
};

describe('StringMap', () => {
  it('behaves as a Map<string, V> (get, has, set, delete, size, entries)', () => {
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
    for (const k of keys.filter((_, i) => i % 2 === 0)) expect(map.delete(k)).toBe(reference.delete(k));
    expect(map.delete('nope')).toBe(false);
    expect(map.size).toBe(reference.size);
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
