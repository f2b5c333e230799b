/**
 * Words kept compiled (decision 0062) compile as they would anew: on the same catalog version and
 * settings, a kept word equals one compiled under fresh tables; a new version, other typo settings,
 * the widening or a word's place (last or not) each give their own compilation.
 */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import type { SearchRequest } from '../types.js';
import { resolveRelevance, type ResolvedRelevance } from './relevance-settings.js';
import { compileSearchPlan, type PlanWord } from './search-plan.js';

const request = (q: string): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size: 20 });

/** The plan words of `q` (their term ids named by their words, comparable across versions). */
function wordsOf(state: CatalogState, q: string, relevance: ResolvedRelevance, widenTypos = false): { word: string; terms: string[]; qualities: number[]; idfs: number[] }[] {
  return compileSearchPlan(state, request(q), relevance, { widenTypos }).plan.words.map((w: PlanWord) => ({
    word: w.word, terms: w.termIds.map((t) => state.vocabulary[t]!), qualities: w.qualities, idfs: w.idfs,
  }));
}

async function catalogOf(titles: readonly string[]): Promise<Catalog> {
  const catalog = new Catalog();
  await catalog.upsert(titles.map((title, i) => ({ refId: `p${i}`, title })));
  return catalog;
}

describe('words kept compiled', () => {
  it('compile as they would under fresh tables, on every version', async () => {
    const catalog = await catalogOf(['walnut desk', 'walking shoes', 'wall clock', 'red walnut chair', 'shirt', 'skirt']);
    const relevance = resolveRelevance(undefined);
    const queries = ['wal', 'walnut wal', 'walnut', 'shirt', 'shrit', 'wal desk', 'desk wal', 'nothing'];
    for (const q of queries) {
      const first = wordsOf(catalog.state, q, relevance);
      expect(wordsOf(catalog.state, q, relevance)).toEqual(first);
      expect(first).toEqual(wordsOf(catalog.state, q, resolveRelevance(undefined)));
    }
    // A new version: new terms complete the last word, frequencies and idfs change.
    await catalog.upsert([{ refId: 'n1', title: 'walrus toy' }, { refId: 'n2', title: 'walnut box' }]);
    for (const q of queries) expect(wordsOf(catalog.state, q, relevance)).toEqual(wordsOf(catalog.state, q, resolveRelevance(undefined)));
    expect(wordsOf(catalog.state, 'wal', relevance)[0]!.terms).toContain('walrus');
    await catalog.delete(['p1']);
    expect(wordsOf(catalog.state, 'wal', relevance)[0]!.terms).not.toContain('walking');
  });

  it('follow the typo settings, the widening and the word\'s place', async () => {
    const catalog = await catalogOf(['shirt', 'skirt', 'shorts', 'sorts of things']);
    const relevance = resolveRelevance(undefined);
    const typo = wordsOf(catalog.state, 'shrit', relevance)[0]!.terms;
    expect(typo).toContain('shirt');
    expect(wordsOf(catalog.state, 'shrit', resolveRelevance({ typoTolerance: { enabled: false } }))[0]!.terms).toEqual([]);
    expect(wordsOf(catalog.state, 'shirt', relevance)[0]!.terms).not.toContain('skirt');
    expect(wordsOf(catalog.state, 'shirt', relevance, true)[0]!.terms).toContain('skirt');
    expect(wordsOf(catalog.state, 'shirt', relevance)[0]!.terms).not.toContain('skirt');
    // The last word completes; the same word before another does not.
    expect(wordsOf(catalog.state, 'sh', relevance)[0]!.terms).toEqual(expect.arrayContaining(['shirt', 'shorts']));
    expect(wordsOf(catalog.state, 'sh things', relevance)[0]!.terms).not.toContain('shirt');
  });
});
