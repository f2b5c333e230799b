/**
 * A term's score in a doc, as every matching path computes it (text-matches.ts, every-word-walk.ts,
 * top-of-term.ts): a leaf, so that those modules share it without importing one another.
 * @module
 */
import { BM25_K1 } from './search-plan.js';

// A word matched exactly outranks any BM25 difference: tiers are far above BM25 magnitudes.
export const MATCH_TIER = 1000;

/** A term's score in a doc: its tier plus BM25F of the doc's weighted term frequency `tfw` (> 0). */
export function termScore(tier: number, idf: number, tfw: number): number {
  return tier + (idf * tfw * (BM25_K1 + 1)) / (tfw + BM25_K1);
}
