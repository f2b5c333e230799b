import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { mergeSuggestions, vocabularyCompletions } from './query-suggestions.js';

describe('vocabulary completions', () => {
  it('completes the last word by the words most found, kept per version: a delete reorders them, a new limit is honoured', async () => {
    const catalog = new Catalog();
    await catalog.upsert([
      ...Array.from({ length: 3 }, (_, i) => ({ refId: `s${i}`, title: 'red shirt' })),
      ...Array.from({ length: 2 }, (_, i) => ({ refId: `o${i}`, title: 'blue shoes' })),
      { refId: 'h', title: 'short' },
    ]);
    const before = catalog.state;
    expect(vocabularyCompletions(before, 'red sh', 10)).toEqual(['red shirt', 'red shoes', 'red short']);
    // Asked again (kept), and with a smaller limit (derived again for it).
    expect(vocabularyCompletions(before, 'blue sh', 10)).toEqual(['blue shirt', 'blue shoes', 'blue short']);
    expect(vocabularyCompletions(before, 'sh', 2)).toEqual(['shirt', 'shoes']);
    await catalog.delete(['s0', 's1']);
    // The new version's live frequencies: shoes 2, shirt 1, short 1 (ties alphabetical); the old version's answer stays its own.
    expect(vocabularyCompletions(catalog.state, 'sh', 10)).toEqual(['shoes', 'shirt', 'short']);
    expect(vocabularyCompletions(before, 'sh', 10)).toEqual(['shirt', 'shoes', 'short']);
    // The word itself is no completion; nothing to complete gives nothing.
    expect(vocabularyCompletions(catalog.state, 'shirt', 10)).toEqual([]);
    expect(vocabularyCompletions(catalog.state, '  ', 10)).toEqual([]);
    expect(mergeSuggestions('Red  SH', ['red shirt'], ['red shirt', 'red sh', 'red shoes'], 5)).toEqual(['red shirt', 'red shoes']);
  });
});
