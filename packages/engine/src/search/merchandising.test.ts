import { describe, expect, it } from 'vitest';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { placePins, ruleApplies } from './merchandising.js';

const list = (...docs: number[]) => Int32Array.from(docs);

describe('placePins', () => {
  it('places pins at their positions, the ranked docs around them, each doc once', () => {
    expect([...placePins(list(10, 11, 12, 13), [{ doc: 12, position: 0 }, { doc: 99, position: 2 }], 10)]).toEqual([12, 10, 99, 11, 13]);
  });
  it('gives a taken position to the first pin listed, the next one just after', () => {
    expect([...placePins(list(1, 2, 3), [{ doc: 7, position: 1 }, { doc: 8, position: 1 }], 10)]).toEqual([1, 7, 8, 2, 3]);
  });
  it('puts pins beyond the end last, in position order, and cuts at the limit', () => {
    expect([...placePins(list(1, 2), [{ doc: 9, position: 40 }, { doc: 8, position: 20 }], 10)]).toEqual([1, 2, 8, 9]);
    expect([...placePins(list(1, 2, 3, 4), [{ doc: 9, position: 0 }], 2)]).toEqual([9, 1]);
    expect([...placePins(list(), [{ doc: 9, position: 3 }], 5)]).toEqual([9]);
  });
});

describe('ruleApplies', () => {
  const q = (s: string) => tokenize(s);
  it('matches exactly or by consecutive whole words, within the time window', () => {
    expect(ruleApplies({ id: 'a', query: 'Red Shoe' }, q('red  shoe'), 0)).toBe(true);
    expect(ruleApplies({ id: 'a', query: 'red shoe' }, q('red shoes'), 0)).toBe(false);
    expect(ruleApplies({ id: 'a', query: 'red shoe', match: 'contains' }, q('big red shoe sale'), 0)).toBe(true);
    expect(ruleApplies({ id: 'a', query: 'red shoe', match: 'contains' }, q('shoe red'), 0)).toBe(false);
    expect(ruleApplies({ id: 'a', query: '', match: 'contains' }, q(''), 0)).toBe(true);
    expect(ruleApplies({ id: 'a', query: '' }, q('x'), 0)).toBe(false);
    const window = { id: 'w', query: '', match: 'contains' as const, from: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z' };
    expect(ruleApplies(window, [], Date.parse('2025-12-31T23:59:59Z'))).toBe(false);
    expect(ruleApplies(window, [], Date.parse('2026-01-01T00:00:00Z'))).toBe(true);
    expect(ruleApplies(window, [], Date.parse('2026-02-01T00:00:00Z'))).toBe(false);
  });
});
