/**
 * Per-block maxima of one term's postings, for block-max top-k (see top-of-term.ts): a term's entries
 * cut into blocks of up to {@link BLOCK_DOCS} docs, and per block its distinct docs and the highest
 * weighted term frequency of its docs (`tfw`, the sum over a doc's entries of the weighted norm of
 * each, as text-matches.ts scores them) under one weighted-norm table — one per set of field weights
 * and mean field lengths (`weightedNormsOf`). The maxima are exact, not bounds, so nothing about the
 * order of rounded sums needs arguing; they belong to that table, and blocks kept for another table
 * (the settings' weights changed, appends or deletes moved the means) are derived again.
 *
 * Derived by a thread's first search of the term under a table (while scoring it) and kept per
 * posting arrays (weakly): the main postings of a version are shared by the versions appended from it
 * (their term ids change, the entries do not), so the key is the arrays and the range's first entry,
 * not the term id. A pool worker's range may cut a term: its blocks are those of the entries in its range.
 * @module
 */
import type { PostingSegment } from '../catalog/catalog-index.js';
import { STEP, type Steps } from '../catalog/steps.js';

/**
 * Docs a block holds at most. Smaller blocks pass over more (a block holding one short field with the
 * word rarely holds nothing better) but cost more checks: measured on the peers' generated 100k
 * catalog, 32 leaves 97 % of a one-word query's blocks at or below its final top-k bar, 64 leaves 95 %.
 */
export const BLOCK_DOCS = 32;

/** The blocks of one term's entries `[from, to)` under one weighted-norm table. */
export interface TermBlocks {
  /** Block `b` holds the entries `[b === 0 ? from : ends[b - 1], ends[b])`. */
  ends: Uint32Array;
  /** Distinct docs of block `b` (deleted ones included). */
  docs: Uint8Array;
  /** The highest weighted term frequency of block `b`'s docs (deleted ones included). */
  maxTfw: Float64Array;
}

/** The blocks of the entries `[from, to)` under `weighted` (`to` kept to tell a range from another one starting there). */
interface KnownRange {
  to: number;
  weighted: Float64Array;
  blocks: TermBlocks;
}

// Per entry arrays of a segment (each worker has its own views), per first entry of a range.
const ranges = new WeakMap<PostingSegment['postKey'], Map<number, KnownRange>>();

/** The blocks of the entries `[from, to)` of `segment` under `weighted`, when a search on this thread derived them ({@link deriveBlocks}). */
export function cachedBlocks(segment: PostingSegment, from: number, to: number, weighted: Float64Array): TermBlocks | undefined {
  const known = ranges.get(segment.postKey)?.get(from);
  return known?.to === to && known.weighted === weighted ? known.blocks : undefined;
}

/** A derivation of one term's blocks in progress: the entries read up to `i`, the blocks made so far. */
interface BlockBuilder {
  segment: PostingSegment;
  from: number;
  to: number;
  deleted: Uint32Array | undefined;
  weighted: Float64Array;
  ends: Uint32Array;
  docs: Uint8Array;
  maxTfw: Float64Array;
  /** Blocks made, and the next entry to read. */
  b: number;
  i: number;
}

function startBlocks(segment: PostingSegment, from: number, to: number, deleted: Uint32Array | undefined, weighted: Float64Array): BlockBuilder {
  // Blocks are at most as many as the docs, which are at most the entries.
  const most = Math.ceil((to - from) / BLOCK_DOCS) + 1;
  return { segment, from, to, deleted, weighted, ends: new Uint32Array(most), docs: new Uint8Array(most), maxTfw: new Float64Array(most), b: 0, i: from };
}

/** Makes whole blocks until the entry `until` is read (the last may end past it), calling `visit` with each live doc. */
function addBlocks(builder: BlockBuilder, until: number, visit: (doc: number, tfw: number) => void): void {
  const { segment: { postDocs, postKey }, to, deleted, weighted, ends, docs, maxTfw } = builder;
  let { b, i } = builder;
  const stop = Math.min(until, to);
  while (i < stop) {
    let n = 0;
    let max = 0;
    while (i < to && n < BLOCK_DOCS) {
      const d = postDocs[i];
      let tfw = 0;
      do tfw += weighted[postKey[i++]];
      while (i < to && postDocs[i] === d);
      n++;
      // Deleted docs count in the maximum too (a maximum over more docs is still above every live one).
      if (tfw > max) max = tfw;
      if (tfw > 0 && (deleted === undefined || (deleted[d >>> 5] & (1 << (d & 31))) === 0)) visit(d, tfw);
    }
    docs[b] = n;
    maxTfw[b] = max;
    ends[b++] = i;
  }
  builder.b = b;
  builder.i = i;
}

/** Keeps the blocks of a finished derivation for {@link cachedBlocks}. */
function keepBlocks({ segment, from, to, weighted, ends, docs, maxTfw, b }: BlockBuilder): void {
  let byStart = ranges.get(segment.postKey);
  if (!byStart) ranges.set(segment.postKey, (byStart = new Map()));
  // Views, not copies: the spare room is at most one block's.
  byStart.set(from, { to, weighted, blocks: { ends: ends.subarray(0, b), docs: docs.subarray(0, b), maxTfw: maxTfw.subarray(0, b) } });
}

/**
 * Derives the blocks of one term's entries `[from, to)` of `segment` (from < to) under `weighted` in
 * one pass, keeps them for {@link cachedBlocks}, and calls `visit` with each live doc and its weighted
 * term frequency: the search deriving them scores the entries in the same pass, and a block's maximum
 * is one comparison a doc: no match list is written, so it costs less than the plain path's scoring
 * (×0.8 measured: decision 0057).
 */
export function deriveBlocks(
  segment: PostingSegment, from: number, to: number, deleted: Uint32Array | undefined, weighted: Float64Array,
  visit: (doc: number, tfw: number) => void,
): void {
  const builder = startBlocks(segment, from, to, deleted, weighted);
  addBlocks(builder, to, visit);
  keepBlocks(builder);
}

/** A visit that scores nothing (blocks derived ahead of any search). */
function ignoreDoc(): void {}

/**
 * {@link deriveBlocks} ahead of the searches, in steps of about {@link STEP} entries: the most frequent
 * term at 1M products has a million entries, 41 ms in one step (issue #27 item 3, a profile of a replace).
 */
export function* deriveBlocksSteps(segment: PostingSegment, from: number, to: number, deleted: Uint32Array | undefined, weighted: Float64Array): Steps<void> {
  const builder = startBlocks(segment, from, to, deleted, weighted);
  for (;;) {
    addBlocks(builder, builder.i + STEP, ignoreDoc);
    if (builder.i >= to) break;
    yield;
  }
  keepBlocks(builder);
}
