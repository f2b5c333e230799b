/**
 * The full-text index of a build (loads, rebuilds, merges): every doc's postings written by the one
 * writer (`doc-postings.ts`), then laid out as the main segment, per term in the sorted vocabulary's
 * order. Each distinct value of a field is tokenised once (its dictionary entry), not once per product:
 * low-cardinality fields (brand, category) cost almost nothing.
 * @module
 */
import { charMask, type FieldIndex, type FullTextIndex } from '../catalog-index.js';
import type { Dictionary } from '../columns/dictionary.js';
import { PagedBuilder, sharedArray, sharedCopy } from '../columns/shared-arrays.js';
import { codeAt, codeCount } from '../columns/text-column.js';
import { sortStrings, STEP, type Steps } from '../steps.js';
import { DocPostingsWriter, TermNumbering, TOKEN_WORK } from './doc-postings.js';
import { lengthStrideFor, newFieldLengths } from './field-lengths.js';
import { fieldWeightOf, isFullTextField } from './full-text-fields.js';
import { meanLengths, setLengthTotals } from './length-norms.js';
import { NormKeyBuilder, postKeysArray } from './norm-keys.js';
import { forEachWord, type WordSink } from './tokenizer.js';
import { keepValueWords, type TokenizedField } from './value-words.js';

const STEP_MASK = STEP - 1;

/** A full-text index with its sorted vocabulary and the words' character masks (typo tolerance). */
export interface WrittenFullText {
  fullText: FullTextIndex;
  vocabulary: string[];
  termMasks: Uint32Array;
}

/**
 * Writes docs `0 .. docCount` through `writer`: per doc, its full-text fields in order, each value's
 * words. Doc-major, then field: entries of a term come out sorted by doc then field, which scoring
 * relies on. In steps.
 */
function* writeDocs(docCount: number, tokenized: readonly TokenizedField[], writer: DocPostingsWriter): Steps<void> {
  // Yields by work (tokens read, entries written), not docs: STEP docs of ~30 tokens each held the
  // loop for 40-70 ms at a million products.
  let docWork = 0;
  for (let d = 0; d < docCount; d++) {
    if (docWork >= STEP * TOKEN_WORK) { docWork = 0; yield; }
    docWork++;
    for (let f = 0; f < tokenized.length; f++) {
      const { column, tokenOffsets, tokenIds } = tokenized[f];
      const count = codeCount(column, d);
      if (count === 0) continue;
      writer.beginField();
      for (let i = 0; i < count; i++) {
        const code = codeAt(column, d, i);
        for (let k = tokenOffsets[code]; k < tokenOffsets[code + 1]; k++) writer.add(tokenIds[k]);
      }
      docWork += writer.endField(d, f);
    }
  }
}

/**
 * The full-text index of `docCount` docs whose fields (`fields`, their values in `dictionaries`) are
 * built: the fields {@link isFullTextField} selects, in field order. In steps.
 */
export function* buildFullText(
  docCount: number, fields: FieldIndex[], dictionaries: readonly Dictionary[], fieldWeights: Record<string, number> | undefined,
): Steps<WrittenFullText> {
  const n = docCount;
  const fieldIds: number[] = [];
  fields.forEach((f, i) => {
    if (isFullTextField(f, fieldIds.length, fieldWeights)) fieldIds.push(i);
  });
  // Per field: tokens of code c are tokenIds[tokenOffsets[c] .. tokenOffsets[c+1]).
  const numbering = new TermNumbering();
  const tokenized: TokenizedField[] = [];
  for (const fid of fieldIds) {
    const dictionary = dictionaries[fid];
    const tokenOffsets = sharedArray(Uint32Array, dictionary.size + 1);
    const tokenIds = new PagedBuilder(Uint32Array);
    // Yields by tokens, not values: tokenising takes microseconds a value (a million titles), so a
    // step of STEP values held the loop for tens of milliseconds.
    let work = 0;
    // Words as ranges of the folded value: a string is made only of a word not numbered yet.
    const words: WordSink = {
      word: (text, start, end) => {
        work += TOKEN_WORK;
        tokenIds.push(numbering.idOfRange(text, start, end));
      },
    };
    for (let c = 0; c < dictionary.size; c++) {
      if (work >= STEP) {
        work = 0;
        // Room for the next step's new words (a value's words count TOKEN_WORK each): the table
        // grows here, in steps, rather than in one go inside a word's number.
        yield* numbering.reserveSteps(STEP);
        yield;
      }
      forEachWord(dictionary.at(c), words);
      tokenOffsets[c + 1] = tokenIds.length;
      work++;
    }
    const ids = sharedArray(Uint32Array, tokenIds.length);
    yield* tokenIds.copyTo(ids);
    tokenized.push({ column: fields[fid].text!, weight: fieldWeightOf(fields[fid].name, fieldWeights), tokenOffsets, tokenIds: ids });
  }
  const terms = numbering.terms;
  // The vocabulary is sorted so a prefix is a contiguous range of term ids (binary search). Every word
  // is numbered once the values are tokenised, so the ranks are known before any posting is written.
  const vocabulary = yield* sortStrings(terms);
  const rank = sharedArray(Uint32Array, terms.length);
  for (let id = 0; id < vocabulary.length; id++) {
    rank[numbering.idOf(vocabulary[id])] = id;
    if ((id & STEP_MASK) === STEP_MASK) yield;
  }
  // The docs are written twice: once to count each term's entries (and number the norm keys, write the
  // lengths and totals), then to place each entry at its term's cursor. Kept in emission order, the
  // entries were three arrays of tens of millions at a million products (~360 MB on ~1,400 pages), read
  // once into place, then all freed at once by a later major collection (decisions/0060).
  // Spare slots per doc: a field added later takes one in place (field-lengths.ts).
  const lengthStride = lengthStrideFor(fieldIds.length);
  const fieldLengths = newFieldLengths(lengthStride, n);
  const normKeys = new NormKeyBuilder();
  const zeros = new Array<number>(fieldIds.length).fill(0);
  const termOffsets = sharedArray(Uint32Array, terms.length + 1);
  const counter = new DocPostingsWriter(terms.length, fieldLengths, lengthStride, normKeys, { tokens: zeros, docs: zeros }, {
    entry: (term) => { termOffsets[rank[term] + 1]++; },
  });
  yield* writeDocs(n, tokenized, counter);
  const totals = counter.lengthTotals();
  const avgFieldLengths = meanLengths(totals);
  for (let t = 0; t < terms.length; t++) termOffsets[t + 1] += termOffsets[t];
  const entries = termOffsets[terms.length];
  const cursor = sharedCopy(termOffsets, terms.length);
  const postDocs = sharedArray(Uint32Array, entries);
  // A norm key, not the normalised value: 2 bytes instead of a float32's 4, and searches normalise with
  // the live means (`normsOf`), which appends and deletes move. The first pass numbered every key, so
  // the width is known; the second finds the same keys (same docs, same order).
  const postKey = postKeysArray(entries, normKeys.count);
  const placer = new DocPostingsWriter(terms.length, fieldLengths, lengthStride, normKeys, { tokens: zeros, docs: zeros }, {
    entry: (term, doc, key) => {
      const at = cursor[rank[term]]++;
      postDocs[at] = doc;
      postKey[at] = key;
    },
  });
  yield* writeDocs(n, tokenized, placer);
  // Per doc, the words of its values are copied: a doc costs what a token pass does.
  yield* keepValueWords(tokenized, rank, vocabulary, STEP / TOKEN_WORK);
  const termMasks = sharedArray(Uint32Array, terms.length);
  for (let t = 0; t < terms.length; t++) {
    termMasks[t] = charMask(vocabulary[t]);
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  const termDocFreq = sharedArray(Uint32Array, terms.length);
  let work = 0;
  for (let t = 0; t < terms.length; t++) {
    let df = 0;
    for (let i = termOffsets[t]; i < termOffsets[t + 1]; i++) if (i === termOffsets[t] || postDocs[i] !== postDocs[i - 1]) df++;
    termDocFreq[t] = df;
    work += 1 + termOffsets[t + 1] - termOffsets[t];
    if (work >= STEP) { work = 0; yield; }
  }
  const fullText: FullTextIndex = { fieldIds, termCount: terms.length, termOffsets, postDocs, postKey, normKeys: normKeys.table(), termDocFreq, fieldLengths, lengthStride, avgFieldLengths };
  setLengthTotals(fullText, totals);
  return { fullText, vocabulary, termMasks };
}
