import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../steps.js';
import { Dictionary } from './dictionary.js';

describe('Dictionary', () => {
  it('gives each version its own values and codes while later ones extend the store in place', () => {
    const first = Dictionary.empty().writer();
    for (const v of ['red', 'blue', 'red', 'green']) first.codeFor(v);
    const v1 = first.dictionary();
    expect(v1.values()).toEqual(['red', 'blue', 'green']);
    const w2 = v1.writer();
    expect(w2.codeFor('blue')).toBe(1);
    expect(w2.codeFor('pink')).toBe(3);
    const v2 = w2.dictionary();
    expect([v1.size, v2.size]).toEqual([3, 4]);
    expect(v1.get('pink')).toBeUndefined();
    expect(v2.get('pink')).toBe(3);
    expect(v1.values()).toEqual(['red', 'blue', 'green']);
    // v1 is no longer the latest view: extending it again copies, v2 keeps its values.
    const w3 = v1.writer();
    expect(w3.codeFor('teal')).toBe(3);
    const v3 = w3.dictionary();
    expect(v3.values()).toEqual(['red', 'blue', 'green', 'teal']);
    expect(v2.values()).toEqual(['red', 'blue', 'green', 'pink']);
    expect(v2.get('teal')).toBeUndefined();
    expect(v3.get('pink')).toBeUndefined();
    // What values() gave is the caller's: a later writer of the store does not change it (a snapshot
    // encodes the values after yielding to appends).
    const held = v3.values();
    v3.writer().codeFor('cyan');
    expect(held).toEqual(['red', 'blue', 'green', 'teal']);
  });

  it('numbers a range of a text as codeFor numbers the same value, cutting it out only when new', () => {
    fc.assert(fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 60 }), fc.string({ maxLength: 3 }), (values, pad) => {
      const byValue = Dictionary.empty().writer();
      const byRange = Dictionary.empty().writer();
      for (const v of values) {
        const text = `${pad}${v}${pad}`;
        expect(byRange.codeForRange(text, pad.length, pad.length + v.length)).toBe(byValue.codeFor(v));
      }
      expect(byRange.dictionary().values()).toEqual(byValue.dictionary().values());
    }), { numRuns: 300 });
    // A value added twice: the range finds its latest code, as codeFor does.
    const w = Dictionary.empty().writer();
    w.codeFor('ab');
    w.add('ab');
    expect(w.codeForRange('xaby', 1, 3)).toBe(w.codeFor('ab'));
  });

  it('finds the latest code below a version size of a value added twice', () => {
    const w = Dictionary.empty().writer();
    w.codeFor('a');
    w.add('b');
    const v1 = w.dictionary();
    const w2 = v1.writer();
    w2.add('b');
    const v2 = w2.dictionary();
    expect([v1.get('b'), v2.get('b'), v2.get('a')]).toEqual([1, 2, 0]);
  });

  it('answers as a map of first codes, through growth, loads and background indexing', () => {
    fc.assert(fc.property(fc.array(fc.array(fc.string({ maxLength: 3 }), { maxLength: 40 }), { maxLength: 6 }), fc.boolean(), (batches, loaded) => {
      const model: string[] = [];
      let dictionary = loaded ? Dictionary.of([]) : Dictionary.empty();
      const versions: [Dictionary, string[]][] = [];
      for (const batch of batches) {
        const w = dictionary.writer();
        for (const v of batch) {
          const code = w.codeFor(v);
          if (!model.includes(v)) model.push(v);
          expect(code).toBe(model.indexOf(v));
        }
        dictionary = w.dictionary();
        if (loaded) {
          dictionary = Dictionary.of(dictionary.values().slice());
          runSteps(dictionary.indexSteps());
        }
        versions.push([dictionary, model.slice()]);
      }
      for (const [version, values] of versions) {
        expect(version.values()).toEqual(values);
        for (const v of ['', 'a', 'ab', ...model]) expect(version.codeOf(v)).toBe(values.indexOf(v));
      }
    }));
  });

  it('keeps every value findable while room is reserved in steps, older versions reading between steps', () => {
    const w = Dictionary.empty().writer();
    for (let i = 0; i < 5000; i++) w.codeFor(`v${i}`);
    const v1 = w.dictionary();
    const w2 = v1.writer();
    const steps = w2.reserveSteps(20000);
    steps.next();
    expect(v1.get('v4999')).toBe(4999);
    runSteps(steps);
    for (let i = 0; i < 20000; i++) w2.codeFor(`n${i}`);
    const v2 = w2.dictionary();
    expect([v1.get('n5'), v2.get('n5'), v2.get('v17')]).toEqual([undefined, 5005, 17]);
    const loaded = Dictionary.of(['a', 'b']).writer();
    runSteps(loaded.reserveSteps(3));
    expect([loaded.codeFor('b'), loaded.codeFor('c')]).toEqual([1, 2]);
  });
});
