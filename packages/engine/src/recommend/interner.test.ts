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

  it('keeps one-byte names until a wider one, and saves and loads either width (two-byte checkpoints of before included)', () => {
    const names = ['SKU-1', 'café', 'SKU-2', 'Ünïcode ÿ'];
    const wide = [...names, 'ŝtyle-Ω', 'SKU-3', '😀'];
    for (const list of [names, wide]) {
      const interner = new Interner();
      for (const name of list) interner.intern(name);
      const state = new ModelState();
      interner.saveState(state, 'items');
      expect(state.arrays.get('items.units')).toBeInstanceOf(list === names ? Uint8Array : Uint16Array);
      const loaded = new Interner();
      loaded.loadState(state, 'items');
      list.forEach((name, id) => {
        expect(loaded.name(id)).toBe(name);
        expect(loaded.lookup(name)).toBe(id);
      });
      // A loaded one-byte table widens for a wider name, as a built one does.
      const id = loaded.intern('ŵider');
      expect(loaded.name(id)).toBe('ŵider');
      expect(loaded.name(0)).toBe('SKU-1');
    }
    // The checkpoint keeps the layout of before: a hash per name (FNV-1a of its code units), made for it.
    const fnv = (name: string) => { let h = 0x811c9dc5; for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193); return h >>> 0; };
    const saved = new ModelState();
    const hashed = new Interner();
    for (const name of wide) hashed.intern(name);
    hashed.saveState(saved, 'items');
    const hashes = saved.arrays.get('items.hashes')!;
    expect(hashes.length).toBe(saved.arrays.get('items.ends')!.length);
    wide.forEach((name, id) => expect(hashes[id]).toBe(fnv(name)));
    // A checkpoint written before one-byte names: its units are two bytes.
    const old = new ModelState();
    const before = new Interner();
    for (const name of names) before.intern(name);
    before.saveState(old, 'items');
    const units = old.arrays.get('items.units')!;
    const twoByte = new Uint16Array(units.length);
    twoByte.set(units);
    old.putArray('items.units', twoByte);
    const loaded = new Interner();
    loaded.loadState(old, 'items');
    names.forEach((name, id) => expect(loaded.lookup(name)).toBe(id));
    expect(loaded.name(loaded.intern('SKU-9'))).toBe('SKU-9');
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

  it('finds every name, and saves a whole table, while a growth moves the old ids a few at a time', () => {
    const interner = new Interner();
    // 257 names make the first growth (512 slots at most half full) begin; the next ones run while it moves ids.
    for (let i = 0; i < 300; i++) {
      expect(interner.intern(`n${i}`)).toBe(i);
      // Every name so far, moved or not, is found; a name never interned is not.
      for (let j = 0; j <= i; j++) expect(interner.lookup(`n${j}`)).toBe(j);
      expect(interner.lookup(`n${i + 1}`)).toBe(-1);
      // Interning a known name again gives its id, not a new one.
      expect(interner.intern(`n${i >> 1}`)).toBe(i >> 1);
    }
    // Saved in the middle of the second growth (begun at 513 names): the saved table holds every id.
    const grown = new Interner();
    for (let i = 0; i < 520; i++) grown.intern(`g${i}`);
    const state = new ModelState();
    grown.saveState(state, 'items');
    const slots = state.arrays.get('items.slots')!;
    expect([...slots].filter((id1) => id1 !== 0).sort((a, b) => a - b)).toEqual(Array.from({ length: 520 }, (_, i) => i + 1));
    const loaded = new Interner();
    loaded.loadState(state, 'items');
    for (let i = 0; i < 520; i++) expect(loaded.lookup(`g${i}`)).toBe(i);
    expect(loaded.lookup('g520')).toBe(-1);
    // The interner goes on after its save (the growth finished there) as before it.
    for (let i = 520; i < 2_000; i++) expect(grown.intern(`g${i}`)).toBe(i);
    for (let i = 0; i < 2_000; i++) expect(grown.lookup(`g${i}`)).toBe(i);
  });

  it('saves in steps the names interned when the save began, whatever is interned between its steps', () => {
    // 600 names (the growth begun at 513 ended at 577), with names interned after every step: enough for
    // the next growth (at 1,025) to begin and end meanwhile, and for the units to widen.
    const names = Array.from({ length: 600 }, (_, i) => `s${i}`);
    const reference = new Interner();
    for (const name of names) reference.intern(name);
    const expected = new ModelState();
    reference.saveState(expected, 'items');
    const interner = new Interner();
    for (const name of names) interner.intern(name);
    const state = new ModelState();
    const steps = interner.saveStateSteps(state, 'items');
    let later = 0;
    while (!steps.next().done) for (let k = 0; k < 300; k++) interner.intern(later++ === 700 ? 'wïdé-Ω' : `later${later}`);
    expect(later).toBeGreaterThan(600);
    expect(state.values).toEqual(expected.values);
    expect([...state.arrays.keys()].sort()).toEqual([...expected.arrays.keys()].sort());
    for (const [name, array] of expected.arrays) expect(state.arrays.get(name)).toEqual(array);
    // The saved state loads as the names of when it began; the interner itself went on with the later ones.
    const loaded = new Interner();
    loaded.loadState(state, 'items');
    names.forEach((name, id) => expect(loaded.lookup(name)).toBe(id));
    expect(loaded.lookup('later1')).toBe(-1);
    expect(interner.lookup('later1')).toBe(600);
    expect(interner.name(interner.lookup('wïdé-Ω'))).toBe('wïdé-Ω');
    // Begun in the middle of a growth (520 names): the growth ends in its steps first, and with nothing
    // interned meanwhile the state is the one saveState gives.
    const growing = new Interner();
    const grown = new Interner();
    for (let i = 0; i < 520; i++) { growing.intern(`g${i}`); grown.intern(`g${i}`); }
    const inOne = new ModelState();
    grown.saveState(inOne, 'items');
    const inSteps = new ModelState();
    for (const _ of growing.saveStateSteps(inSteps, 'items'));
    expect(inSteps.values).toEqual(inOne.values);
    for (const [name, array] of inOne.arrays) expect(inSteps.arrays.get(name)).toEqual(array);
  });
});
