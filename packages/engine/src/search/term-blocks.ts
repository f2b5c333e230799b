/**
 * Per-block raw statistics of one term's postings, for score upper bounds (block-max top-k, see
 * top-of-term.ts): a term's entries cut into blocks of up to {@link BLOCK_DOCS} docs, and per block its
 * distinct docs, whether some doc has the term in more than one field, and per full-text field the
 * highest term frequency and the shortest field length of its entries. Raw counts, not scores: a
 * search turns them into a bound with its own field weights and mean lengths (which settings and
 * changes move), so nothing here goes stale when those do.
 *
 * Derived by a thread's second search of the term (while scoring it) and kept per posting arrays
 * (weakly): the main postings of a version are shared by the versions appended from it (their term
 * ids change, the entries do not), so the key is the arrays and the range's first entry, not the term
 * id. A pool worker's range may cut a term: its blocks are those of the entries in its range.
 * @module
 */
import type { NormKeyTable } from '../catalog/full-text/norm-keys.js';
import type { PostingSegment } from '../catalog/catalog-index.js';

/**
 * Docs a block holds at most. Smaller blocks give tighter bounds (a block holding one short field with
 * the word rarely holds nothing better) but more bounds to compute: measured on the peers' generated
 * 100k catalog, 32 leaves 97 % of a one-word query's blocks below its final top-k bar, 64 leaves 95 %.
 */
export const BLOCK_DOCS = 32;

/** The blocks of one term's entries `[from, to)`. */
export interface TermBlocks {
  /** Block `b` holds the entries `[b === 0 ? from : ends[b - 1], ends[b])`. */
  ends: Uint32Array;
  /** Distinct docs of block `b` (deleted ones included). */
  docs: Uint8Array;
  /** 1 when some doc of block `b` has the term in more than one field (its score sums entries). */
  multiField: Uint8Array;
  /** Highest term frequency of field `f` in block `b`: `maxTf[b * fieldCount + f]` (0: no entry of the field). */
  maxTf: Uint16Array;
  /** Shortest field length of field `f` among block `b`'s entries: `minLength[b * fieldCount + f]`. */
  minLength: Uint16Array;
}

/**
 * The blocks of the entries `[from, to)` (`to` kept to tell a cached range from another one starting
 * there); none yet when the range was searched once ({@link isFirstSearch}).
 */
interface CachedBlocks {
  to: number;
  blocks?: TermBlocks;
}

// Per entry arrays of a segment (each worker has its own views), per first entry of a range: its blocks.
const blocksCache = new WeakMap<PostingSegment['postKey'], Map<number, CachedBlocks>>();

/** Whether this is the thread's first search of the entries `[from, to)` of `segment` (it is then recorded). */
export function isFirstSearch(segment: PostingSegment, from: number, to: number): boolean {
  let byStart = blocksCache.get(segment.postKey);
  if (!byStart) blocksCache.set(segment.postKey, (byStart = new Map()));
  if (byStart.get(from)?.to === to) return false;
  byStart.set(from, { to });
  return true;
}

/** The blocks of the entries `[from, to)` of `segment` when a search on this thread derived them ({@link deriveBlocks}). */
export function cachedBlocks(segment: PostingSegment, from: number, to: number): TermBlocks | undefined {
  const cached = blocksCache.get(segment.postKey)?.get(from);
  return cached?.to === to ? cached.blocks : undefined;
}

/**
 * Derives the blocks of one term's entries `[from, to)` of `segment` (from < to) in one pass, keeps
 * them for {@link cachedBlocks}, and calls `visit` with each live doc and its weighted term frequency
 * (the sum of `weighted` over its entries, in entry order, as text-matches.ts scores it): the search
 * deriving them scores the entries in the same pass, so it costs little more than scoring them did.
 */
export function deriveBlocks(
  segment: PostingSegment, from: number, to: number, normKeys: NormKeyTable, fieldCount: number,
  deleted: Uint32Array | undefined, weighted: Float64Array, visit: (doc: number, tfw: number) => void,
): void {
  const { postDocs, postKey } = segment;
  const { keyFields, keyTfs, keyLengths } = normKeys;
  // Blocks are at most as many as the docs, which are at most the entries.
  const most = Math.ceil((to - from) / BLOCK_DOCS) + 1;
  const ends = new Uint32Array(most);
  const docs = new Uint8Array(most);
  const multiField = new Uint8Array(most);
  const maxTf = new Uint16Array(most * fieldCount);
  const minLength = new Uint16Array(most * fieldCount).fill(0xffff);
  let b = 0;
  let i = from;
  while (i < to) {
    const base = b * fieldCount;
    let n = 0;
    while (i < to && n < BLOCK_DOCS) {
      const d = postDocs[i];
      const first = i;
      let tfw = 0;
      // Deleted docs count in the statistics too: the same postings serve versions with fewer deletions.
      do {
        const key = postKey[i++];
        tfw += weighted[key];
        const at = base + keyFields[key];
        if (keyTfs[key] > maxTf[at]) maxTf[at] = keyTfs[key];
        if (keyLengths[key] < minLength[at]) minLength[at] = keyLengths[key];
      } while (i < to && postDocs[i] === d);
      if (i - first > 1) multiField[b] = 1;
      n++;
      if (tfw > 0 && (deleted === undefined || (deleted[d >>> 5] & (1 << (d & 31))) === 0)) visit(d, tfw);
    }
    docs[b] = n;
    ends[b++] = i;
  }
  // Views, not copies: the spare room is at most one block's.
  const blocks = { ends: ends.subarray(0, b), docs: docs.subarray(0, b), multiField: multiField.subarray(0, b), maxTf: maxTf.subarray(0, b * fieldCount), minLength: minLength.subarray(0, b * fieldCount) };
  let byStart = blocksCache.get(segment.postKey);
  if (!byStart) blocksCache.set(segment.postKey, (byStart = new Map()));
  byStart.set(from, { to, blocks });
}
