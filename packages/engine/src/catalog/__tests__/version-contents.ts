/**
 * A catalog version's contents as plain values, for comparing a version made by a fast path (append,
 * merge) with the one a build of the same products makes. Test-only.
 * @module
 */
import { expect } from 'vitest';
import type { CatalogState, PostingSegment } from '../catalog-index.js';
import { numericPerDoc } from '../columns/numeric-column.js';
import { productsOf } from '../columns/product-store.js';
import { ensureNumericOrder } from '../columns/text-column-lookups.js';
import { foldedInverted } from '../columns/text-column.js';
import { liveLengthAverages } from '../changes/tombstones.js';
import { lengthAt } from '../full-text/field-lengths.js';
import { flatPostingsSteps } from '../full-text/posting-tail.js';
import { runSteps } from '../steps.js';
import { normalisedPosting } from '../../search/text-matches.js';

/** Everything a version holds, as plain values (the lazily derived orders derived on both sides). */
export function contents(state: CatalogState): unknown {
  const arr = (a: ArrayLike<number> | undefined) => (a ? Array.from(a) : undefined);
  state.index.fields.forEach((f, fid) => { if (f.numeric) ensureNumericOrder(state, fid); });
  const ft = state.index.fullText;
  // An appended version keeps the new docs' postings in a tail: compared merged, as a build lays them out.
  const postings = runSteps(flatPostingsSteps(ft));
  return {
    docCount: state.index.docCount,
    fields: state.index.fields.map((f) => ({
      name: f.name, kind: f.kind, numeric: f.numeric && arr(numericPerDoc(f, state.index.docCount)), order: arr(f.order),
      text: f.text && {
        offsets: arr(f.text.offsets), codes: arr(f.text.codes), single: arr(f.text.single), singleType: f.text.single?.constructor.name,
        // Appended docs of older codes sit in the column's tail: compared folded, as a build lays them out.
        dictSize: f.text.dictSize, valueOffsets: arr(foldedInverted(f.text).valueOffsets), valueDocs: arr(foldedInverted(f.text).valueDocs),
      },
    })),
    fullText: {
      fieldIds: ft.fieldIds, termCount: ft.termCount, termOffsets: arr(postings.termOffsets), postDocs: arr(postings.postDocs),
      // Term frequencies, and what scoring reads: each one normalised with the live means.
      tfs: postingTfs(state, postings), norms: effectiveNorms(state, postings), termDocFreq: arr(ft.termDocFreq),
      // Per doc, its fields' lengths: spare slots (their number follows the version's history) left out.
      fieldLengths: Array.from({ length: state.index.docCount }, (_, d) => ft.fieldIds.map((_, f) => lengthAt(ft.fieldLengths, ft.lengthStride, f, d))),
      fieldLengthsType: ft.fieldLengths.constructor.name,
    },
    dictionaries: state.dictionaries.map((d) => d.values()),
    vocabulary: state.vocabulary,
    termMasks: arr(state.termMasks),
    refIds: [...state.docByRefId.entries()].sort((a, b) => a[1] - b[1]),
    vectors: state.vectors && { dimension: state.vectors.dimension, data: arr(state.vectors.data), rowOf: arr(state.vectors.rowOf) },
    products: productsOf(state.store),
  };
}

/** Per posting, the normalised frequency a search scores with (text-matches.ts). */
function effectiveNorms(state: CatalogState, postings: PostingSegment): number[] {
  const averages = liveLengthAverages(state) ?? state.index.fullText.avgFieldLengths;
  return Array.from(postings.postDocs, (_, i) => normalisedPosting(state.index, postings, averages, i));
}

/** Per posting its field and term frequency, through its norm key (whose length must be the doc's). */
function postingTfs(state: CatalogState, postings: PostingSegment): number[][] {
  const { normKeys, fieldLengths, lengthStride } = state.index.fullText;
  return Array.from(postings.postKey, (key, i) => {
    const f = normKeys.keyFields[key];
    expect(normKeys.keyLengths[key]).toBe(lengthAt(fieldLengths, lengthStride, f, postings.postDocs[i]));
    return [f, normKeys.keyTfs[key]];
  });
}
