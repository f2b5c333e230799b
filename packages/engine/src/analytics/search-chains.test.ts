import { describe, expect, it } from 'vitest';
import { CHAIN_WINDOW_MS, ChainBuffer, collapseChains, continuesChain, type ChainSearch } from './search-chains.js';

const s = (query: string, at: number, session: string | null = 'a'): ChainSearch => ({ query, at, session: session ?? undefined });
const counted = (searches: ChainSearch[]) => collapseChains(searches).map((c) => [c.search.query, c.absorbed.map((a) => a.query)]);

describe('search-as-you-type chains', () => {
  it('counts w, wa, … wardrobe as one search for wardrobe', () => {
    expect(counted(['w', 'wa', 'war', 'ward', 'wardrobe'].map((q, i) => s(q, i * 300)))).toEqual([['wardrobe', ['w', 'wa', 'war', 'ward']]]);
  });

  it('chains step by step: each search within 10 s of the one it continues', () => {
    expect(counted([s('w', 0), s('wa', 9_000), s('war', 18_000)])).toEqual([['war', ['w', 'wa']]]);
    expect(counted([s('w', 0), s('wa', CHAIN_WINDOW_MS + 1)])).toEqual([['w', []], ['wa', []]]);
  });

  it('keeps searches of other sessions, other queries and without a session apart', () => {
    expect(counted([s('sofa', 0), s('sofa bed', 1_000, 'b'), s('lamp', 2_000), s('so', 3_000, null), s('sofa', 4_000, null)]))
      .toEqual([['sofa', []], ['sofa bed', []], ['lamp', []], ['so', []], ['sofa', []]]);
  });

  it('absorbs an earlier search into any later one it prefixes, even after another query', () => {
    expect(counted([s('w', 0), s('lamp', 1_000), s('wardrobe', 2_000)])).toEqual([['lamp', []], ['wardrobe', ['w']]]);
  });

  it('counts the same query repeated within the window once', () => {
    expect(counted([s('sofa', 0), s('sofa', 5_000)])).toEqual([['sofa', ['sofa']]]);
  });

  it('does not continue a chain backwards in time or into a shorter query', () => {
    expect(continuesChain(s('wardrobe', 0), s('war', 1_000))).toBe(false);
    expect(continuesChain(s('war', 1_000), s('wardrobe', 0))).toBe(false);
  });

  it('hands out a search from the buffer only once no later search can absorb it', () => {
    const buffer = new ChainBuffer<ChainSearch>();
    buffer.add(s('wa', 0));
    expect(buffer.finished(CHAIN_WINDOW_MS)).toEqual([]);
    buffer.add(s('wal', CHAIN_WINDOW_MS));
    expect(buffer.finished(2 * CHAIN_WINDOW_MS)).toEqual([]);
    expect(buffer.size).toBe(1);
    expect(buffer.finished(2 * CHAIN_WINDOW_MS + 1)).toEqual([{ search: s('wal', CHAIN_WINDOW_MS), absorbed: [s('wa', 0)] }]);
    expect(buffer.size).toBe(0);
  });
});
