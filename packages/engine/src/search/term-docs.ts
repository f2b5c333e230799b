/**
 * Per-term doc bitsets of the main postings, for the probes of a query of several words
 * (text-matches.ts): the docs of the rarest word are looked up in every other word's postings, and
 * most of them are not there (at 100k generated products, a median two-word query keeps a third of its
 * rarest word's docs). A bit per doc answers "not there" with one read, where a probe gallops through
 * the postings to find out; only the docs whose bit is set are galloped to and scored.
 *
 * A term's bitset over a doc range holds a bit for each doc of the range having an entry of the term
 * in the main postings (deleted docs and entries of fields of weight 0 included: it only tells which
 * docs a probe can skip, never which ones match). Only for terms whose bitset is no larger than their
 * doc ids in the range ({@link BITSET_DOCS_PER_ENTRY}), so that the bitsets of a thread take at most
 * the memory of the postings they stand for. Derived by a thread's first probe of the term in the
 * range (one pass over its entries there) and kept per posting arrays (weakly) and term, as
 * term-blocks.ts keeps its blocks: the main postings of a version are shared by the versions appended
 * from it (term ids change, entries do not). A pool worker matches one range of the catalog
 * (search-pool.ts), so its bitsets cover that range only: a bitset of the whole catalog on every
 * worker would hold each doc's bit once per worker.
 * @module
 */
import type { FullTextIndex } from '../catalog/catalog-index.js';
import { seek } from './doc-seek.js';

/**
 * Docs per entry of a term, at most, for it to have a bitset: a bit per doc up to its last doc, 32 per
 * 32-bit doc id of its entries, takes then no more memory than its doc ids.
 */
const BITSET_DOCS_PER_ENTRY = 32;

/** Entries a term has at least for a bitset: a few entries are probed as fast as a bitset is read. */
const MIN_BITSET_ENTRIES = 64;

/** A term's bitset over the docs `[lo, hi)` (undefined: the term has too few or too sparse entries there). */
interface KnownBits {
  lo: number;
  hi: number;
  bits: Uint32Array | undefined;
}

// Per doc-id array of the main postings (each worker has its own views), per term's first entry: the
// bitset of the range last asked for (a thread asks for one range, or the whole catalog).
const known = new WeakMap<Uint32Array, Map<number, KnownBits>>();

/**
 * The doc bitset of term `id`'s main postings over the docs `[lo, hi)`: bit `d & 31` of word
 * `(d >>> 5) - (lo >>> 5)` set when the term has an entry for doc `d` (lo ≤ d < hi); docs past its
 * words have none. Undefined for a term of few entries or sparse docs in the range (see the module doc).
 */
export function termDocBits(main: FullTextIndex, id: number, lo: number, hi: number): Uint32Array | undefined {
  const { postDocs, termOffsets } = main;
  const from = termOffsets[id];
  const to = termOffsets[id + 1];
  // The main postings end where the tail starts: the same key before and after appends.
  const end = main.tail ? Math.min(hi, main.tail.fromDoc) : hi;
  // No range of the term has more entries than the term; a range from 0 holding all of a sparse term's
  // entries (the whole catalog) is as sparse: answered without a look-up.
  if (to - from < MIN_BITSET_ENTRIES) return undefined;
  const last = postDocs[to - 1];
  if (lo === 0 && last < end && last >= BITSET_DOCS_PER_ENTRY * (to - from)) return undefined;
  let byTerm = known.get(postDocs);
  if (!byTerm) known.set(postDocs, (byTerm = new Map()));
  const kept = byTerm.get(from);
  if (kept !== undefined && kept.lo === lo && kept.hi === end) return kept.bits;
  const bits = deriveBits(postDocs, seek(postDocs, from, to, lo), to, lo, end);
  byTerm.set(from, { lo, hi: end, bits });
  return bits;
}

/** The bitset of the entries `[i, to)` of `postDocs` whose doc is below `hi`, over the docs from `lo`. */
function deriveBits(postDocs: Uint32Array, i: number, to: number, lo: number, hi: number): Uint32Array | undefined {
  const end = seek(postDocs, i, to, hi);
  const base = (lo >>> 5) << 5;
  if (end - i < MIN_BITSET_ENTRIES || postDocs[end - 1] - base >= BITSET_DOCS_PER_ENTRY * (end - i)) return undefined;
  const bits = new Uint32Array(((postDocs[end - 1] - base) >>> 5) + 1);
  for (; i < end; i++) {
    const d = postDocs[i] - base;
    bits[d >>> 5] |= 1 << (d & 31);
  }
  return bits;
}
