/**
 * BM25F length normalisation, declared once for whatever writes or reads postings (the full-text
 * writer, snapshots, norm keys, tombstones' live means): the constants, a posting's norm, the stored
 * field length, and the length totals (tokens and docs per full-text field) the mean lengths come from.
 * @module
 */
import type { FullTextIndex } from '../catalog-index.js';
import { STEP, type Steps } from '../steps.js';
import { lengthAt } from './field-lengths.js';

const STEP_MASK = STEP - 1;

/** BM25 length normalisation (the `b` parameter); `k1` is applied at query time. */
export const BM25_B = 0.75;
/** Term frequencies saturate here (postings store them in 16 bits while building). */
export const MAX_TF = 65535;
/**
 * Field lengths (tokens of a field in a doc) saturate here: `FullTextIndex.fieldLengths` holds them in
 * 16 bits. Longer fields (far beyond any product text; the product limits allow more only in arrays
 * of long values) count as this long for BM25F normalisation and the mean lengths alike.
 */
export const MAX_FIELD_LENGTH = 65535;

/** The length stored for a field of `tokens` tokens (saturated: see {@link MAX_FIELD_LENGTH}). */
export function storedFieldLength(tokens: number): number {
  return tokens < MAX_FIELD_LENGTH ? tokens : MAX_FIELD_LENGTH;
}

/** BM25F's length normalisation of a field `length` tokens long (see {@link postingNorm}). */
export function lengthNorm(length: number, avgLength: number): number {
  return 1 - BM25_B + (BM25_B * length) / avgLength;
}

/**
 * A posting's length-normalised term frequency, `tf / lengthNorm`, rounded to float32 (the precision
 * postings stored it in until snapshot format 5, so scores stay bit-identical to those builds). The one
 * definition searches score with, whatever built the postings (build, append, snapshot).
 */
export function postingNorm(tf: number, length: number, avgLength: number): number {
  return Math.fround(tf / lengthNorm(length, avgLength));
}

/** Tokens and docs having the field, per full-text field number (the inputs of the mean field lengths). */
export interface LengthTotals {
  readonly tokens: readonly number[];
  readonly docs: readonly number[];
}

/**
 * Length totals per full-text field (`fieldCount` of them) of the first `docCount` docs of
 * `fieldLengths` (`stride` slots a doc, see field-lengths.ts), in steps. Sums of integers: exact in any order, so totals kept up to date by
 * appends and deletes give the same means as a pass over a one-go build.
 */
export function* lengthTotalsOf(fieldLengths: Uint16Array, stride: number, fieldCount: number, docCount: number): Steps<LengthTotals> {
  const tokens = new Array<number>(fieldCount).fill(0);
  const docs = new Array<number>(fieldCount).fill(0);
  for (let d = 0; d < docCount; d++) {
    for (let f = 0; f < fieldCount; f++) {
      const len = lengthAt(fieldLengths, stride, f, d);
      if (len > 0) { tokens[f] += len; docs[f]++; }
    }
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return { tokens, docs };
}

/** Mean field length per full-text field over the docs having it (1 when none has). */
export function meanLengths(totals: LengthTotals): number[] {
  return totals.tokens.map((sum, f) => (totals.docs[f] === 0 ? 1 : sum / totals.docs[f]));
}

// Length totals of every doc of a full-text index (deleted docs included), kept beside it: derived by
// the build and by appends, or by one pass over the lengths on first need (a loaded snapshot).
const lengthTotalsCache = new WeakMap<FullTextIndex, LengthTotals>();

/** Records the length totals of `fullText` (built or appended to: the caller has them). */
export function setLengthTotals(fullText: FullTextIndex, totals: LengthTotals): void {
  lengthTotalsCache.set(fullText, totals);
}

/** The length totals of every doc of `fullText` (`docCount` docs), in steps the first time. */
export function* lengthTotalsSteps(fullText: FullTextIndex, docCount: number): Steps<LengthTotals> {
  let totals = lengthTotalsCache.get(fullText);
  if (!totals) {
    totals = yield* lengthTotalsOf(fullText.fieldLengths, fullText.lengthStride, fullText.fieldIds.length, docCount);
    lengthTotalsCache.set(fullText, totals);
  }
  return totals;
}
