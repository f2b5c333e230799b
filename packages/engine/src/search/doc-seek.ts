/**
 * Binary search in a sorted list of doc ids: a leaf, so that the condition algebra and the text
 * matcher share it without the condition algebra importing the search plan.
 * @module
 */

/** First index in `docs[from, to)` whose doc is >= `doc` (postings, or a match list's `Int32Array`). */
export function seek(docs: Uint32Array | Int32Array, from: number, to: number, doc: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

