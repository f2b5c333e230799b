/**
 * The full-text index of an append: docs `n ..` added after a version's, their postings written by the
 * one writer (`doc-postings.ts`), as a build writes them. The postings of the version's one-go build
 * are shared (a new word only renumbers their term offsets); those of the docs appended since go to
 * the tail (`FullTextIndex.tail`), which is copied with the new ones: the cost follows the docs
 * appended since the last build or merge, not the catalog.
 *
 * Postings keep norm keys, not norms: the length totals move, and searches normalise with the live
 * means (no pass over every posting, see norm-keys.ts).
 * @module
 */
import { charMask, lowerBound, type CatalogState, type FullTextIndex, type PostingTail } from '../catalog-index.js';
import { sharedArray } from '../columns/shared-arrays.js';
import { STEP, type Steps } from '../steps.js';
import type { WrittenFullText } from './build-full-text.js';
import { DocPostingsWriter, PostingEntries, type TermNumbering } from './doc-postings.js';
import { extendFieldLengths } from './field-lengths.js';
import { lengthTotalsSteps, meanLengths, setLengthTotals } from './length-norms.js';
import { NormKeyBuilder } from './norm-keys.js';
import { copyPostingEntries, postingEntries } from './posting-tail.js';

const STEP_MASK = STEP - 1;

/** A tail without postings, starting at doc `fromDoc`, for a vocabulary of `terms` terms. */
function emptyTail(fromDoc: number, terms: number): PostingTail {
  return { fromDoc, termOffsets: new Uint32Array(terms + 1), postDocs: new Uint32Array(0), postKey: new Uint16Array(0) };
}

/** Term offsets of unchanged postings for the term ids of a grown vocabulary (`oldIdOfNew[t]`: -1 for a new word). */
function* renumberedOffsets(termOffsets: Uint32Array, oldIdOfNew: Int32Array): Steps<Uint32Array> {
  const T = oldIdOfNew.length;
  const out = sharedArray(Uint32Array, T + 1);
  for (let t = 0; t < T; t++) {
    const o = oldIdOfNew[t];
    out[t + 1] = o >= 0 ? termOffsets[o + 1] : out[t];
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  return out;
}

/**
 * `base`'s full-text index with docs `n .. n + k)` appended, given per new doc and full-text field
 * (`fieldIds`: the base's, then those the append adds) the words of its distinct values in order, as
 * ids of `numbering`. In steps.
 */
export function* appendFullText(
  base: CatalogState, n: number, docTerms: readonly (readonly (readonly number[])[])[], numbering: TermNumbering, fieldIds: number[],
): Steps<WrittenFullText> {
  const old = base.index.fullText;
  const oldVocabulary = base.vocabulary;
  // Fields numbered after the old ones are new: no old doc has a length or a posting in them.
  const oldF = old.fieldIds.length;
  const F = fieldIds.length;
  const k = docTerms.length;
  const N = n + k;
  const words = numbering.terms;
  // New words, sorted; old term t moves to t + (new words before it).
  const freshSorted: string[] = [];
  for (const w of words) {
    const at = lowerBound(oldVocabulary, w);
    if (at >= oldVocabulary.length || oldVocabulary[at] !== w) freshSorted.push(w);
  }
  freshSorted.sort();
  const vocabulary: string[] = new Array(oldVocabulary.length + freshSorted.length);
  const newIdOfOld = new Uint32Array(oldVocabulary.length);
  const isFresh = new Uint8Array(vocabulary.length);
  for (let i = 0, j = 0, t = 0; t < vocabulary.length; t++) {
    if (j < freshSorted.length && (i >= oldVocabulary.length || freshSorted[j] < oldVocabulary[i])) {
      vocabulary[t] = freshSorted[j++];
      isFresh[t] = 1;
    } else {
      newIdOfOld[i] = t;
      vocabulary[t] = oldVocabulary[i++];
    }
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  // The writer counts the batch's own term ids (a few arrays as long as the batch's words, not the
  // vocabulary); each is looked up in the grown vocabulary once.
  const termIdOf = new Uint32Array(words.length);
  for (let w = 0; w < words.length; w++) termIdOf[w] = lowerBound(vocabulary, words[w]);
  // The new docs' lengths go into the rows' room, in place (a new field too, in a spare slot; beyond
  // them, the lengths laid out again).
  const { fieldLengths, stride: lengthStride } = yield* extendFieldLengths(old.fieldLengths, old.lengthStride, n, F, N);
  const normKeys = NormKeyBuilder.from(old.normKeys);
  const oldTotals = yield* lengthTotalsSteps(old, n);
  const newFields = new Array<number>(F - oldF).fill(0);
  const written = new PostingEntries();
  const writer = new DocPostingsWriter(words.length, fieldLengths, lengthStride, normKeys, { tokens: [...oldTotals.tokens, ...newFields], docs: [...oldTotals.docs, ...newFields] }, written);
  for (let j = 0; j < k; j++) {
    for (let f = 0; f < F; f++) {
      const terms = docTerms[j][f];
      if (terms.length === 0) continue;
      writer.beginField();
      for (const t of terms) writer.add(t);
      writer.endField(n + j, f);
    }
  }
  yield;
  const totals = writer.lengthTotals();
  // A new field's docs are all new: its mean is the one over them, the live one.
  const avgFieldLengths = F === oldF ? old.avgFieldLengths : [...old.avgFieldLengths, ...meanLengths({ tokens: totals.tokens.slice(oldF), docs: totals.docs.slice(oldF) })];
  const T = vocabulary.length;
  const oldIdOfNew = new Int32Array(T).fill(-1);
  for (let i = 0; i < newIdOfOld.length; i++) oldIdOfNew[newIdOfOld[i]] = i;
  // The main postings (docs before the tail) are shared; only their term offsets follow the new term ids.
  const termOffsets = freshSorted.length === 0 ? old.termOffsets : yield* renumberedOffsets(old.termOffsets, oldIdOfNew);
  // The tail: per new term id, its entries of the previous tail then its new ones.
  const oldTail = old.tail ?? emptyTail(n, oldVocabulary.length);
  const { terms: entryTerms, docs: entryDocs, keys: entryKeys } = written;
  const added = written.length;
  const addCount = new Uint32Array(T);
  for (let i = 0; i < added; i++) addCount[termIdOf[entryTerms.get(i)]]++;
  const tailOffsets = sharedArray(Uint32Array, T + 1);
  for (let t = 0; t < T; t++) {
    const o = oldIdOfNew[t];
    const oldCount = o >= 0 ? oldTail.termOffsets[o + 1] - oldTail.termOffsets[o] : 0;
    tailOffsets[t + 1] = tailOffsets[t] + oldCount + addCount[t];
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  const entries = tailOffsets[T];
  const tailEntries = postingEntries(entries, normKeys.count);
  const { postDocs, postKey } = tailEntries;
  const termDocFreq = sharedArray(Uint32Array, T);
  let work = 0;
  for (let t = 0; t < T; t++) {
    const o = oldIdOfNew[t];
    if (o >= 0) {
      const from = oldTail.termOffsets[o];
      const to = oldTail.termOffsets[o + 1];
      copyPostingEntries(oldTail, from, to, tailEntries, tailOffsets[t]);
      termDocFreq[t] = old.termDocFreq[o];
      work += 1 + to - from;
    }
    if (++work >= STEP) { work = 0; yield; }
  }
  // New entries, at the end of their terms' lists (in emission order: doc, then field).
  const cursor = new Uint32Array(T);
  for (let t = 0; t < T; t++) cursor[t] = tailOffsets[t + 1] - addCount[t];
  const lastDocOfTerm = new Int32Array(T).fill(-1);
  for (let i = 0; i < added; i++) {
    const t = termIdOf[entryTerms.get(i)];
    const d = entryDocs.get(i);
    const at = cursor[t]++;
    postDocs[at] = d;
    postKey[at] = entryKeys.get(i);
    if (lastDocOfTerm[t] !== d) { termDocFreq[t]++; lastDocOfTerm[t] = d; }
  }
  const termMasks = new Uint32Array(T);
  for (let t = 0; t < T; t++) termMasks[t] = isFresh[t] ? charMask(vocabulary[t]) : base.termMasks[oldIdOfNew[t]];
  const fullText: FullTextIndex = {
    fieldIds, termCount: T, termOffsets, postDocs: old.postDocs, postKey: old.postKey,
    normKeys: normKeys.table(), termDocFreq, fieldLengths, lengthStride, avgFieldLengths,
    tail: { fromDoc: oldTail.fromDoc, termOffsets: tailOffsets, postDocs, postKey },
  };
  setLengthTotals(fullText, totals);
  return { fullText, vocabulary, termMasks };
}
