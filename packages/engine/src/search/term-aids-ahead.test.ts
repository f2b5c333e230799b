/**
 * The terms' search aids derived ahead (term-aids-ahead.ts): a search finds the blocks derived ahead
 * under its own weighted-norm table (it neither derives them again nor replaces them), answers exactly
 * as a catalog without them, and the background runner derives once per new main postings, never on a
 * catalog searched by the pool.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBound } from '../catalog/catalog-index.js';
import { Catalog } from '../catalog/catalog.js';
import { runSteps } from '../catalog/steps.js';
import type { WebsiteSettings } from '../config.js';
import type { Product, SearchRequest } from '../types.js';
import { executeSearch, searchTables } from './execute-search.js';
import { LANGUAGES, stemIndex, stemIndexSteps, stemOf } from './language.js';
import { cachedBlocks, deriveBlocks, deriveBlocksSteps } from './term-blocks.js';
import { TermAidsAhead, termAidsSteps } from './term-aids-ahead.js';

const WORDS = ['red', 'shirt', 'blue', 'cotton', 'xl', 'shirts', 'wool'];
const text = (max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: max }).map((w) => w.join(' '));
const rowArb = fc.record({ title: text(4), description: text(9), brand: fc.constantFrom('red', 'acme', 'blue shirt', '') });

const products = (rows: readonly { title: string; description: string; brand: string }[], prefix = 'p'): Product[] =>
  rows.map((r, i) => ({ refId: `${prefix}${i}`, ...r }));

const request = (q: string, size = 20): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size });

/** The blocks kept for `word`'s main postings over the whole catalog under `weighted` (undefined: none). */
function keptBlocks(catalog: Catalog, word: string, weighted: Float64Array) {
  const { vocabulary, index } = catalog.state;
  const id = lowerBound(vocabulary, word);
  expect(vocabulary[id]).toBe(word);
  const main = index.fullText;
  return cachedBlocks(main, main.termOffsets[id]!, main.termOffsets[id + 1]!, weighted);
}

/** Many docs with "red" in the title (blocks), a few words around it. */
const redShirts = (n: number, prefix = 'p'): Product[] =>
  Array.from({ length: n }, (_, i) => ({ refId: `${prefix}${i}`, title: `red ${WORDS[i % WORDS.length]} ${i % 3 === 0 ? 'shirt' : ''}`, brand: i % 5 === 0 ? 'red' : 'acme' }));

/** A letters-only word per number (stemmable): "ba", "bb", … */
const wordOf = (i: number): string => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}ing`;

/** Whether `vocabulary`'s stem index for English is kept (a derivation in steps would yield first: it has over 512 terms). */
const stemIndexKept = (vocabulary: readonly string[]): boolean => stemIndexSteps(vocabulary, LANGUAGES.get('en')!).next().done === true;

describe('term aids derived ahead', () => {
  it('are the ones a search looks up: derived under its weighted norms, kept by it', async () => {
    for (const settings of [undefined, { fieldWeights: { title: 3, brand: 0.5 } } satisfies WebsiteSettings]) {
      const catalog = new Catalog();
      await catalog.upsert(redShirts(400));
      const weighted = searchTables(catalog, catalog.state, settings).weighted;
      runSteps(termAidsSteps(catalog.state.index, weighted, 0, catalog.state.index.docCount));
      const blocks = keptBlocks(catalog, 'red', weighted);
      expect(blocks).toBeDefined();
      // A search under another table would derive its own blocks for the range, replacing these.
      const payload = await executeSearch(catalog, request('red'), { settings });
      expect(payload.total_results).toBe(400);
      expect(keptBlocks(catalog, 'red', weighted)).toBe(blocks);
    }
  });

  it("derive a frequent term's blocks in steps, the blocks a search derives in one go", async () => {
    const catalog = new Catalog();
    await catalog.upsert(redShirts(6_000));
    const weighted = searchTables(catalog, catalog.state, undefined).weighted;
    const main = catalog.state.index.fullText;
    const t = lowerBound(catalog.state.vocabulary, 'red');
    const [from, to] = [main.termOffsets[t]!, main.termOffsets[t + 1]!];
    const steps = deriveBlocksSteps(main, from, to, undefined, weighted);
    let yields = 0;
    while (!steps.next().done) yields++;
    // Over 4,096 entries: derived in more than one step.
    expect(to - from).toBeGreaterThan(4_096);
    expect(yields).toBeGreaterThan(0);
    const ahead = cachedBlocks(main, from, to, weighted)!;
    const copy = { ends: Array.from(ahead.ends), docs: Array.from(ahead.docs), maxTfw: Array.from(ahead.maxTfw) };
    let visited = 0;
    deriveBlocks(main, from, to, undefined, weighted, () => visited++);
    const once = cachedBlocks(main, from, to, weighted)!;
    expect(once).not.toBe(ahead);
    expect({ ends: Array.from(once.ends), docs: Array.from(once.docs), maxTfw: Array.from(once.maxTfw) }).toEqual(copy);
    expect(visited).toBe(6_000);
  });

  it('leave every answer as it is without them', async () => {
    let compared = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { minLength: 150, maxLength: 500 }), fc.array(rowArb, { maxLength: 40 }),
      fc.array(fc.constantFrom(...WORDS, 'red shirt', 'blue cotton', 'shirt xl', 'wool red', 'shi'), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 30 }),
      async (built, appended, queries, size) => {
        const ahead = new Catalog();
        const plain = new Catalog();
        for (const catalog of [ahead, plain]) await catalog.upsert(products(built));
        runSteps(termAidsSteps(ahead.state.index, searchTables(ahead, ahead.state, undefined).weighted, 0, ahead.state.index.docCount));
        // Appended docs (the posting tail) are searched beside the main postings' aids.
        if (appended.length > 0) for (const catalog of [ahead, plain]) await catalog.upsert(products(appended, 'a'));
        for (const q of queries) {
          expect(await executeSearch(ahead, request(q, size))).toEqual(await executeSearch(plain, request(q, size)));
          compared++;
        }
      },
    ), { numRuns: 25 });
    expect(compared).toBeGreaterThan(25);
  });

  it('are derived by the runner once per new main postings, and not for a catalog the pool searches', async () => {
    const catalog = new Catalog();
    await catalog.upsert(redShirts(300));
    const errors: unknown[] = [];
    const options = { tables: (state: typeof catalog.state) => searchTables(catalog, state, undefined), onError: (err: unknown) => errors.push(err) };
    const pooled = new TermAidsAhead(catalog, { ...options, poolFrom: catalog.state.index.docCount });
    pooled.refresh();
    await pooled.settled();
    expect(keptBlocks(catalog, 'red', searchTables(catalog, catalog.state, undefined).weighted)).toBeUndefined();

    const aids = new TermAidsAhead(catalog, { ...options, poolFrom: Infinity });
    aids.refresh();
    aids.refresh(); // while the first runs: looked at again once it ends, nothing new to derive
    await aids.settled();
    expect(keptBlocks(catalog, 'red', searchTables(catalog, catalog.state, undefined).weighted)).toBeDefined();
    // An append shares the main postings (their mean lengths, so the table, moved): nothing derived again.
    await catalog.upsert(redShirts(20, 'a'));
    aids.refresh();
    await aids.settled();
    expect(keptBlocks(catalog, 'red', searchTables(catalog, catalog.state, undefined).weighted)).toBeUndefined();
    // A replace makes new main postings: derived for them.
    await catalog.replace(redShirts(350, 'r'));
    aids.refresh();
    await aids.settled();
    expect(keptBlocks(catalog, 'red', searchTables(catalog, catalog.state, undefined).weighted)).toBeDefined();
    expect(errors).toEqual([]);
  });

  it('include the stem index of each new vocabulary, also for a catalog the pool searches', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 600 }, (_, i) => ({ refId: `p${i}`, title: `${wordOf(i)} shirt` })));
    expect(catalog.state.vocabulary.length).toBeGreaterThan(600);
    expect(stemIndexKept(catalog.state.vocabulary)).toBe(false);
    const aids = new TermAidsAhead(catalog, { tables: (state) => searchTables(catalog, state, undefined), poolFrom: 0, onError: (err) => { throw err; } });
    aids.refresh();
    await aids.settled();
    expect(stemIndexKept(catalog.state.vocabulary)).toBe(true);
    // An append of new words makes a new vocabulary: its index too.
    await catalog.upsert([{ refId: 'new', title: 'knitted jumpers' }]);
    expect(stemIndexKept(catalog.state.vocabulary)).toBe(false);
    aids.refresh();
    await aids.settled();
    expect(stemIndexKept(catalog.state.vocabulary)).toBe(true);
    const { byStem, ofTerm } = stemIndex(catalog.state.vocabulary, LANGUAGES.get('en')!);
    expect(byStem.get('jumper')).toEqual([catalog.state.vocabulary.indexOf('jumpers')]);
    expect(ofTerm[catalog.state.vocabulary.indexOf('jumpers')]).toBe('jumper');
  });

  it('stop deriving when closed, and derive nothing after', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 600 }, (_, i) => ({ refId: `p${i}`, title: `${wordOf(i)} red shirt` })));
    const aids = new TermAidsAhead(catalog, { tables: (state) => searchTables(catalog, state, undefined), poolFrom: Infinity, onError: (err) => { throw err; } });
    aids.refresh();
    await aids.close();
    aids.refresh();
    await aids.settled();
    expect(stemIndexKept(catalog.state.vocabulary)).toBe(false);
    expect(keptBlocks(catalog, 'red', searchTables(catalog, catalog.state, undefined).weighted)).toBeUndefined();
  });

  it('give each term the stem a stemmer run gives it, and each stem its terms', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.stringMatching(/^[a-zé0-9]{1,12}$/), { maxLength: 1200 }), fc.constantFrom(...LANGUAGES.values()), (words, lang) => {
      const vocabulary = [...words].sort();
      const { byStem, ofTerm } = stemIndex(vocabulary, lang);
      const terms: number[] = [];
      vocabulary.forEach((word, t) => {
        expect(ofTerm[t]).toBe(stemOf(lang, word));
        if (ofTerm[t] !== undefined) expect(byStem.get(ofTerm[t]!)).toContain(t);
        else terms.push(t);
      });
      expect([...byStem.values()].flat().length).toBe(vocabulary.length - terms.length);
    }), { numRuns: 40 });
  });

  it('stem only the new words of a vocabulary grown from one whose index is kept', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z]{1,10}$/), { maxLength: 900 }), fc.array(fc.boolean(), { maxLength: 900 }), (words, inOld) => {
      const en = LANGUAGES.get('en')!;
      let stemmed: string[] = [];
      // A language of its own (its own cache entries), counting the stemmer's runs.
      const counting = { ...en, code: `count-${Math.random()}`, stem: (w: string) => { stemmed.push(w); return en.stem(w); } };
      const vocabulary = [...words].sort();
      const old = vocabulary.filter((_, i) => inOld[i] ?? false);
      runSteps(stemIndexSteps(old, counting));
      stemmed = [];
      const { byStem, ofTerm } = runSteps(stemIndexSteps(vocabulary, counting, old));
      expect(ofTerm).toEqual(vocabulary.map((w) => stemOf(en, w)));
      expect([...byStem.entries()].sort()).toEqual([...stemIndex(vocabulary, en).byStem.entries()].sort());
      const fresh = new Set(vocabulary.filter((w) => !old.includes(w)));
      expect(stemmed.every((w) => fresh.has(w))).toBe(true);
    }), { numRuns: 40 });
  });

  it('leave a stem index a search derived while they ran as it is', () => {
    const vocabulary = Array.from({ length: 2000 }, (_, i) => `${wordOf(i)}${i >= 676 ? 's' : ''}`).sort();
    const en = LANGUAGES.get('en')!;
    const steps = stemIndexSteps(vocabulary, en);
    steps.next();
    const bySearch = stemIndex(vocabulary, en);
    let next = steps.next();
    while (!next.done) next = steps.next();
    expect(next.value).toBe(bySearch);
    expect(stemIndex(vocabulary, en)).toBe(bySearch);
  });
});
