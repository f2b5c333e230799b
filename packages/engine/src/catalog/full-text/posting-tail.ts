/**
 * The postings of a full-text index as one segment: the main postings with the tail's (docs appended
 * since the build, see `FullTextIndex.tail`) merged in per term — the layout a one-go build writes,
 * which snapshots store.
 * @module
 */
import { STEP, type Steps } from '../steps.js';
import type { FullTextIndex, PostingSegment } from '../catalog-index.js';
import { postKeysArray } from './norm-keys.js';
import { sharedArray } from '../columns/shared-arrays.js';

/** The entry arrays of a posting segment of `entries` entries, zeroed, on shared memory, for `keyCount` norm keys. */
export function postingEntries(entries: number, keyCount: number): Omit<PostingSegment, 'termOffsets'> {
  return { postDocs: sharedArray(Uint32Array, entries), postKey: postKeysArray(entries, keyCount) };
}

/** Copies the entries `[from, to)` of `source` into `target` from entry `at`. */
export function copyPostingEntries(source: PostingSegment, from: number, to: number, target: Omit<PostingSegment, 'termOffsets'>, at: number): void {
  target.postDocs.set(source.postDocs.subarray(from, to), at);
  target.postKey.set(source.postKey.subarray(from, to), at);
}

/** `fullText`'s postings as one segment (the main arrays themselves when there is no tail), in steps. */
export function* flatPostingsSteps(fullText: FullTextIndex): Steps<PostingSegment> {
  const { tail, termCount: T } = fullText;
  if (!tail) return fullText;
  const termOffsets = sharedArray(Uint32Array, T + 1);
  for (let t = 0; t < T; t++) {
    termOffsets[t + 1] = termOffsets[t] + fullText.termOffsets[t + 1] - fullText.termOffsets[t] + tail.termOffsets[t + 1] - tail.termOffsets[t];
  }
  const flat = postingEntries(termOffsets[T], fullText.normKeys.keyFields.length);
  let work = 0;
  for (let t = 0; t < T; t++) {
    let at = termOffsets[t];
    for (const segment of [fullText, tail]) {
      const from = segment.termOffsets[t];
      const to = segment.termOffsets[t + 1];
      copyPostingEntries(segment, from, to, flat, at);
      at += to - from;
      work += to - from;
    }
    if (++work >= STEP) { work = 0; yield; }
  }
  return { termOffsets, ...flat };
}
