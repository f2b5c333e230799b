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
 *
 * Beside a term's bitset, its highest weighted term frequency per weighted-norm table ({@link termMaxTfw}):
 * what top-of-words.ts bounds a word's score in any doc with.
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

/** What a thread keeps of one term's main entries. */
interface TermDocs {
  bits: Uint32Array;
  /** Per weighted-norm table, the highest weighted term frequency of the term's docs (deleted ones included). */
  maxTfw: WeakMap<Float64Array, number>;
}

// Per doc-id array of a segment (each worker has its own views), per first entry of a term.
const terms = new WeakMap<Uint32Array, Map<number, TermDocs>>();

/** What this thread keeps of the term whose entries are `[from, to)` of `segment` (derived on first use), or undefined (see the module doc). */
function termDocs(segment: PostingSegment, from: number, to: number): TermDocs | undefined {
  const { postDocs } = segment;
  if (to - from < MIN_BITSET_ENTRIES || postDocs[to - 1] >= BITSET_DOCS_PER_ENTRY * (to - from)) return undefined;
  let byStart = terms.get(postDocs);
  if (!byStart) terms.set(postDocs, (byStart = new Map()));
  let known = byStart.get(from);
  if (known === undefined) {
    const bits = new Uint32Array((postDocs[to - 1] >>> 5) + 1);
    for (let i = from; i < to; i++) {
      const d = postDocs[i];
      bits[d >>> 5] |= 1 << (d & 31);
    }
    byStart.set(from, (known = { bits, maxTfw: new WeakMap() }));
  }
  return known;
}

/**
 * The doc bitset of one term's entries `[from, to)` of `segment`: bit `d` (word `d >>> 5`, bit
 * `d & 31`) set when one of them is for doc `d`; docs past its words have no entry. Undefined for a
 * term of few entries or sparse docs (see the module doc).
 */
export function termDocBits(segment: PostingSegment, from: number, to: number): Uint32Array | undefined {
  return termDocs(segment, from, to)?.bits;
}

/**
 * The highest weighted term frequency (`tfw`, summed as text-matches.ts sums it) of the docs of one
 * term's entries `[from, to)` of `segment` under `weighted`, deleted docs included (a maximum over more
 * docs is still above every live one); undefined for a term without a bitset ({@link termDocBits}).
 */
export function termMaxTfw(segment: PostingSegment, from: number, to: number, weighted: Float64Array): number | undefined {
  const known = termDocs(segment, from, to);
  if (known === undefined) return undefined;
  let max = known.maxTfw.get(weighted);
  if (max === undefined) {
    const { postDocs, postKey } = segment;
    max = 0;
    let i = from;
    while (i < to) {
      const d = postDocs[i];
      let tfw = 0;
      do tfw += weighted[postKey[i++]];
      while (i < to && postDocs[i] === d);
      if (tfw > max) max = tfw;
    }
    known.maxTfw.set(weighted, max);
  }
  return max;
}
