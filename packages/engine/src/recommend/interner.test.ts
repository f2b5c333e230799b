import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Interner } from './interner.js';

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
});
