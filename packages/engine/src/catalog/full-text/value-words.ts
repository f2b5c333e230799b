/**
 * The words of each doc's values in the heaviest full-text fields (by default the title), in order, as
 * term ids: what word proximity (search/proximity.ts) reads for the few dozen best matches of a query, so it
 * compares integers instead of tokenising product text on every search. The build already tokenises
 * each distinct value once (per dictionary code); this keeps that work for the heavy fields, remapped to
 * the sorted vocabulary's ids, instead of throwing it away.
 *
 * Kept beside the catalog version, not in it: a side table keyed by the field's text column, valid for
 * the vocabulary it was made with. A version without it (loaded from a snapshot, extended by an append,
 * a field that only the website's settings made heavy) is served by re-tokenising, which gives the same
 * words: nothing else of the catalog depends on it. Main thread only (proximity runs there).
 * @module
 */
import type { TextColumn } from '../catalog-index.js';
import type { Steps } from '../steps.js';
import { sharedArray } from '../columns/shared-arrays.js';
import { codeAt, codeCount, columnDocCount } from '../columns/text-column.js';

/** Fields whose weight is at least this share of the largest weight count for proximity. */
export const HEAVY_FIELD_SHARE = 0.75;

/** Words of a value looked at (a title's words; a long value's first ones). */
export const MAX_WORDS_PER_VALUE = 64;

/** Separates two values of a doc's field in word lists (values are not neighbours). */
export const VALUE_BREAK = -1;
/** {@link VALUE_BREAK} in 16-bit word ids. */
const NARROW_BREAK = 0xffff;

/**
 * The words of one field per doc: doc `d`'s are `ids[offsets[d] .. offsets[d+1])`, its values in order,
 * `breakMark` between two values. Per doc rather than per distinct value: proximity reads a doc's
 * words with two array reads instead of four (at 1M products each is a cache miss). Ids are 16-bit
 * while the vocabulary allows (2 bytes a title word instead of 4: -16 MB at 1M generated products).
 */
export interface ValueWords {
  offsets: Uint32Array;
  ids: Uint16Array | Int32Array;
  /** The id separating two values: {@link VALUE_BREAK}, or 0xffff in 16-bit ids. */
  breakMark: number;
}

interface Kept extends ValueWords {
  vocabulary: readonly string[];
}

const keptByColumn = new WeakMap<TextColumn, Kept>();

/** The kept words of `column`'s docs when they were made for `vocabulary`. */
export function valueWords(column: TextColumn, vocabulary: readonly string[]): ValueWords | undefined {
  const kept = keptByColumn.get(column);
  return kept && kept.vocabulary === vocabulary ? kept : undefined;
}

/** One full-text field as the build tokenised it: per dictionary code, its words as build-time term ids. */
export interface TokenizedField {
  column: TextColumn;
  weight: number;
  tokenOffsets: Uint32Array;
  tokenIds: Uint32Array;
}

/**
 * Build hook: keeps the words of the fields whose build-time weight is at least
 * {@link HEAVY_FIELD_SHARE} of the largest (at most {@link MAX_WORDS_PER_VALUE} per value), remapped
 * through `rank` (build-time term id → sorted vocabulary id). Time-sliced like the rest of the build.
 */
export function* keepValueWords(fields: readonly TokenizedField[], rank: Uint32Array, vocabulary: readonly string[], step: number): Steps<void> {
  let maxWeight = 0;
  for (const f of fields) if (f.weight > maxWeight) maxWeight = f.weight;
  for (const { column, weight, tokenOffsets, tokenIds } of fields) {
    if (weight <= 0 || weight < maxWeight * HEAVY_FIELD_SHARE) continue;
    const words = (code: number): number => Math.min(MAX_WORDS_PER_VALUE, tokenOffsets[code + 1] - tokenOffsets[code]);
    const docs = columnDocCount(column);
    const offsets = sharedArray(Uint32Array, docs + 1);
    for (let d = 0; d < docs; d++) {
      let length = 0;
      for (let i = 0, k = codeCount(column, d); i < k; i++) length += words(codeAt(column, d, i)) + (i > 0 ? 1 : 0);
      offsets[d + 1] = offsets[d] + length;
      if ((d + 1) % step === 0) yield;
    }
    const narrow = vocabulary.length < NARROW_BREAK;
    const ids = narrow ? sharedArray(Uint16Array, offsets[docs]) : sharedArray(Int32Array, offsets[docs]);
    const breakMark = narrow ? NARROW_BREAK : VALUE_BREAK;
    for (let d = 0, at = 0; d < docs; d++) {
      for (let i = 0, k = codeCount(column, d); i < k; i++) {
        if (i > 0) ids[at++] = breakMark;
        const code = codeAt(column, d, i);
        for (let k = 0, n = words(code); k < n; k++) ids[at++] = rank[tokenIds[tokenOffsets[code] + k]];
      }
      if ((d + 1) % step === 0) yield;
    }
    keptByColumn.set(column, { offsets, ids, breakMark, vocabulary });
  }
}
