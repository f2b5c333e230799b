import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { MerchandisingRule } from '../config.js';
import { isAisleError } from '../errors.js';
import { checkRulesApply, compileMerchandising, placePins, ruleApplies } from './merchandising.js';

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

describe('rule boosts that cannot apply', () => {
  const request = { website_id: 'w', client: 'c', q: 'lamp', start: 0 };
  const rules = (): MerchandisingRule[] => [{
    id: 'r', query: 'lamp', boost: [{ scope: { brand: ['Acme'] }, weight: 2 }, { scope: { brand: { min: 1 } }, weight: 3 }],
  }];

  it('are refused by the settings check, naming the condition', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'lamp', brand: 'Acme' }]);
    let caught: unknown;
    try {
      checkRulesApply(catalog.state, rules());
    } catch (err) {
      caught = err;
    }
    expect(isAisleError(caught) && caught.code).toBe('SETTINGS_INVALID');
    expect((caught as Error).message).toMatch(/^settings\.rules\[0\]\.boost\[1\]\.scope\.brand names a text field/);
    expect(() => checkRulesApply(catalog.state, [{ id: 'ok', query: '', boost: [{ scope: { brand: { exists: true } }, weight: 2 }] }])).not.toThrow();
  });

  it('are skipped by searches and listed once per settings value', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'lamp', brand: 'Acme' }]);
    const saved = rules();
    const first = compileMerchandising(catalog.state, request, saved, 0);
    expect(first.merch?.boosts).toHaveLength(1); // the brand list applies, the broken boost does not
    expect(first.problems.map((e) => e.message)).toEqual([expect.stringMatching(/rule "r": boost\[1\]\.scope\.brand names a text field.*not applied/)]);
    expect(compileMerchandising(catalog.state, request, saved, 0).problems).toEqual([]);
    // New settings (a new value): listed again.
    expect(compileMerchandising(catalog.state, request, rules(), 0).problems).toHaveLength(1);
  });
});
