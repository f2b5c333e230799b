/**
 * Per-term doc bitsets of the main postings, for the probes of a query of several words
 * (text-matches.ts): the docs of the rarest word are looked up in every other word's postings, and
 * most of them are not there (at 100k generated products, a median two-word query keeps a third of its
 * rarest word's docs). A bit per doc answers "not there" with one read, where a probe gallops through
 * the postings to find out; only the docs whose bit is set are galloped to and scored.
 *
 * A term's bitset holds a bit for each doc having an entry of the term in the main postings (deleted
 * docs and entries of fields of weight 0 included: it only tells which docs a probe can skip, never
 * which ones match). Only for terms whose bitset is no larger than their doc ids
 * ({@link BITSET_DOCS_PER_ENTRY}), so that the bitsets of a thread take at most the memory of the
 * postings they stand for. Derived by a thread's first probe of the term (one pass over its entries)
 * and kept per posting arrays (weakly) and first entry, as term-blocks.ts keeps its blocks: the main
 * postings of a version are shared by the versions appended from it (term ids change, entries do not).
 * @module
 */
import type { PostingSegment } from '../catalog/catalog-index.js';

/**
 * Docs per entry of a term, at most, for it to have a bitset: a bit per doc up to its last doc, 32 per
 * 32-bit doc id of its entries, takes then no more memory than its doc ids.
 */
const BITSET_DOCS_PER_ENTRY = 32;

/** Entries a term has at least for a bitset: a few entries are probed as fast as a bitset is read. */
const MIN_BITSET_ENTRIES = 64;

// Per doc-id array of a segment (each worker has its own views), per first entry of a term.
const bitsets = new WeakMap<Uint32Array, Map<number, Uint32Array>>();

/**
 * The doc bitset of one term's entries `[from, to)` of `segment`: bit `d` (word `d >>> 5`, bit
 * `d & 31`) set when one of them is for doc `d`; docs past its words have no entry. Undefined for a
 * term of few entries or sparse docs (see the module doc).
 */
export function termDocBits(segment: PostingSegment, from: number, to: number): Uint32Array | undefined {
  const { postDocs } = segment;
  if (to - from < MIN_BITSET_ENTRIES || postDocs[to - 1] >= BITSET_DOCS_PER_ENTRY * (to - from)) return undefined;
  let byStart = bitsets.get(postDocs);
  if (!byStart) bitsets.set(postDocs, (byStart = new Map()));
  let bits = byStart.get(from);
  if (bits === undefined) {
    bits = new Uint32Array((postDocs[to - 1] >>> 5) + 1);
    for (let i = from; i < to; i++) {
      const d = postDocs[i];
      bits[d >>> 5] |= 1 << (d & 31);
    }
    byStart.set(from, bits);
  }
  return bits;
}
