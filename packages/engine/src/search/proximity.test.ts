import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Catalog } from '../catalog/catalog.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import { textValues } from '../catalog/field-values.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { valueWords } from '../catalog/full-text/value-words.js';
import type { Product } from '../types.js';
import { HEAVY_FIELD_SHARE, PROXIMITY_MAX_BONUS, proximityBonuses, proximityOf } from './proximity.js';
import { compileSearchPlan } from './search-plan.js';

/**
 * The re-tokenising implementation proximity had before the build kept the words (every heavy field's
 * values tokenised from the product): the reference the kept term ids must agree with.
 */
function referenceBonuses(state: CatalogState, docs: readonly number[], fieldWeights: readonly number[], termWords: ReadonlyMap<number, number>, words: number): number[] {
  const byWord = new Map([...termWords].map(([t, mask]) => [state.vocabulary[t], mask]));
  const maxWeight = Math.max(0, ...fieldWeights);
  return docs.map((doc) => {
    let bonus = 0;
    state.index.fullText.fieldIds.forEach((fid, f) => {
      if (maxWeight <= 0 || !(fieldWeights[f] > 0 && fieldWeights[f] >= maxWeight * HEAVY_FIELD_SHARE)) return;
      const values = textValues(state.store.get(doc)[state.index.fields[fid].name]).map((v) => tokenize(v));
      bonus = Math.max(bonus, proximityOf(values, byWord, words) * fieldWeights[f] / maxWeight);
    });
    return bonus * PROXIMITY_MAX_BONUS;
  });
}

const WORDS = ['red', 'cotton', 'shirt', 'blue', 'denim', 'shirts', 'xl', 'the', 'set'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 12 }).map((w) => w.join(' '));
const value = fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.constant(null));
const catalogArb = fc.array(fc.record({ title: value, description: value }), { minLength: 1, maxLength: 30 });
const queryArb = fc.array(fc.constantFrom(...WORDS, 'shi', 'cott'), { minLength: 2, maxLength: 4 }).map((w) => w.join(' '));

describe('proximity from the words the build kept', () => {
  it('gives every doc the bonus of the re-tokenising implementation, with default and with settings-made heavy fields', async () => {
    await fc.assert(fc.asyncProperty(catalogArb, queryArb, fc.constantFrom(undefined, { description: 3 }, { title: 1, description: 1 }), async (rows, q, weights) => {
      const catalog = new Catalog();
      await catalog.upsert(rows.map((r, i): Product => ({ refId: `p${i}`, ...r })));
      const { state } = catalog;
      const title = state.fieldByName.get('title');
      const column = title === undefined ? undefined : state.index.fields[title].text;
      if (column) expect(valueWords(column, state.vocabulary)).toBeDefined(); // the kept path is the one tested
      const { plan, extras } = compileSearchPlan(state, { website_id: 'w', client: 'c', q, start: 0, size: 10 });
      if (!extras.termWords) return;
      const fieldWeights = weights === undefined ? plan.fieldWeights
        : state.index.fullText.fieldIds.map((fid) => weights[state.index.fields[fid].name as keyof typeof weights] ?? 1);
      const docs = rows.map((_, d) => d);
      expect([...proximityBonuses(state, docs, fieldWeights, extras.termWords, plan.words.length)])
        .toEqual(referenceBonuses(state, docs, fieldWeights, extras.termWords, plan.words.length));
    }), { numRuns: 150 });
  });
  it('ranks a title holding the query words together, in order, first', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'apart', title: 'shirt in red cotton' }, { refId: 'together', title: 'red shirt cotton' }]);
    const { plan, extras } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q: 'red shirt', start: 0, size: 10 });
    const bonus = proximityBonuses(catalog.state, [0, 1], plan.fieldWeights, extras.termWords!, 2);
    expect(bonus[1]).toBe(PROXIMITY_MAX_BONUS);
    expect(bonus[0]).toBeLessThan(bonus[1]);
  });
});
