import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Interner } from './interner.js';
import { ModelState } from './model-state.js';

describe('Interner (one string table)', () => {
  it('gives dense ids in first-seen order, finds them again and gives the names back', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { maxLength: 600 }), (names) => {
        const interner = new Interner();
        const expected = new Map<string, number>();
        for (const name of names) {
          if (!expected.has(name)) expected.set(name, expected.size);
          expect(interner.intern(name)).toBe(expected.get(name));
        }
        expect(interner.size).toBe(expected.size);
        for (const [name, id] of expected) {
          expect(interner.lookup(name)).toBe(id);
          expect(interner.name(id)).toBe(name);
        }
        expect(interner.lookup('\u0000never interned\u0000')).toBe(-1);
      }),
    );
  });

  it('holds many names across its growth steps, long names included', () => {
    const interner = new Interner();
    for (let i = 0; i < 50_000; i++) interner.intern(`p${i}`);
    const long = 'x'.repeat(10_000);
    const id = interner.intern(long);
    expect(interner.name(id)).toBe(long);
    expect(interner.lookup('p49999')).toBe(49_999);
    expect(interner.name(12_345)).toBe('p12345');
    expect(interner.size).toBe(50_001);
  });

  it('names ids that share a slot of the kept strings, and the ids of a loaded state, right', () => {
    const interner = new Interner();
    for (let i = 0; i < 5_000; i++) interner.intern(`p${i}`);
    // 7, 1031, 2055, … share one slot of the 1,024 kept names: asked in turn, each gets its own.
    for (let round = 0; round < 3; round++) for (const id of [7, 1_031, 2_055, 7, 4_103]) expect(interner.name(id)).toBe(`p${id}`);
    // Another interner's state gives the same ids other names: none of the kept strings may answer.
    const other = new Interner();
    for (let i = 0; i < 5_000; i++) other.intern(`q${i}`);
    const state = new ModelState();
    other.saveState(state, 'items');
    interner.loadState(state, 'items');
    for (const id of [7, 1_031, 2_055, 4_103]) expect(interner.name(id)).toBe(`q${id}`);
  });
});
