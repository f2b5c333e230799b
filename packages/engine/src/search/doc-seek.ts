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

/**
 * First index in `docs[from, to)` whose doc is >= `doc`, when `docs[from] < doc` and the answer is likely
 * near: by galloping (steps growing while the docs stay below `doc`: the answer lies in
 * `(from + step / 2, from + step]`), then a binary search of the last step.
 */
export function gallop(docs: Uint32Array | Int32Array, from: number, to: number, doc: number): number {
  let step = 1;
  while (from + step < to && docs[from + step] < doc) step *= 2;
  return seek(docs, from + (step >>> 1) + 1, Math.min(from + step, to), doc);
}
