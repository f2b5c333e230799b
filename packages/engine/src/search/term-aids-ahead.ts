/**
 * The terms' search aids derived ahead of the searches: once a catalog version has a new vocabulary,
 * its stem index (language.ts: a stemmer run per term, 35,000 for the 20k Flipkart catalog, which the
 * first query of each vocabulary waited for; after an append, from the previous vocabulary's index,
 * stemming only the new words); once it has new main postings (a build, a
 * replace, a merge), the block maxima of every term that a one-term ranking would derive
 * them for (term-blocks.ts, top-of-term.ts) and the doc bitsets of every term that has one
 * (term-docs.ts) are derived in background time slices, under the weighted norms the searches score
 * with. Derived on first use instead, they were paid by the first search of each term: a never-asked
 * query of a common word scored every posting of it to derive its blocks, and a two-word query read
 * every entry of a frequent term for its bitset. In the peers' run at 100k generated products (each
 * query asked once, after a build), that was a sixth of a search's CPU on the mean (decision 0069).
 *
 * What is derived is what searches would derive and keep anyway (the same functions, the same keys:
 * blocks per posting arrays, range and weighted-norm table; bitsets per posting arrays and range), so
 * the memory is the bound those modules document when every eligible term has been searched: 1.3 MB of
 * bitsets and ~0.5 MB of blocks at 100k, ~12.5 MB and ~5 MB at 1M. Only catalogs searched inline:
 * from the pool's threshold, each worker matches its own range and derives its own. Versions appended
 * from a build share its main postings: their aids are kept, nothing is derived again; under settings
 * whose weights differ from those in force when the version came, blocks are derived on first use as
 * before.
 * @module
 */
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogIndex, CatalogState } from '../catalog/catalog-index.js';
import { runInSlices } from '../catalog/build/time-slices.js';
import { STEP, type Steps } from '../catalog/steps.js';
import { deriveBlocksAhead } from './top-of-term.js';
import { stemIndexSteps, type Language } from './language.js';
import { termDocBits } from './term-docs.js';

/**
 * Derives, in steps, the blocks under `weighted` and the doc bitsets of every term of `index`'s main
 * postings over the docs [lo, hi) (a search's range: the whole catalog inline), as the searches of
 * that range would derive them on first use. Yields every {@link STEP} entries read or so.
 */
export function* termAidsSteps(index: CatalogIndex, weighted: Float64Array, lo: number, hi: number): Steps<void> {
  const main = index.fullText;
  const terms = main.termOffsets.length - 1;
  let work = 0;
  for (let id = 0; id < terms; id++) {
    work += 1 + (yield* deriveBlocksAhead(index, id, lo, hi, weighted));
    // A bitset is one pass over the term's entries (none for a term of few or sparse entries).
    if (termDocBits(main, id, lo, hi) !== undefined) work += main.termOffsets[id + 1]! - main.termOffsets[id]!;
    if (work >= STEP) {
      work = 0;
      yield;
    }
  }
}

/** What the searches of a catalog version run with now (execute-search.ts `searchTables`). */
export interface SearchTables {
  /** Their weighted-norm table (the very object: blocks are kept per table). */
  weighted: Float64Array;
  /** The language they stem words in. */
  lang: Language;
}

/** What {@link TermAidsAhead} needs of the engine. */
export interface TermAidsAheadOptions {
  /** The searches' tables for a version of the catalog now. */
  tables: (state: CatalogState) => SearchTables;
  /** Catalog size from which searches run on the pool (Infinity without one): no blocks nor bitsets are derived ahead there. */
  poolFrom: number;
  /** Where a failure goes (nobody waits for this work). */
  onError: (err: unknown) => void;
  /** Time slice length (ms), default the catalog's. */
  sliceMs?: number;
}

/**
 * Keeps a catalog's search aids derived ahead of its searches: {@link refresh} on every new version
 * derives, in background slices, the stem index of a version whose vocabulary is new (language.ts:
 * plans are compiled on the calling thread, pool or not), then the blocks and bitsets of one whose main
 * postings are new ({@link termAidsSteps}). One run at a time; versions published meanwhile are looked
 * at once it ends.
 */
export class TermAidsAhead {
  /** The main postings of the last version whose blocks and bitsets were derived. */
  private derivedFor: Uint32Array | undefined;
  /** The vocabulary of the last version whose stem index was derived. */
  private stemmedFor: readonly string[] | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly catalog: Catalog, private readonly options: TermAidsAheadOptions) {}

  /** A version was published: derives its aids in the background when its vocabulary or main postings are new. */
  refresh(): void {
    if (this.closed) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.derive().catch(this.options.onError).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  /** Resolves when no derivation runs (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Derives nothing more (the engine closes): a derivation running stops at its next step; resolves then. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
  }

  private async derive(): Promise<void> {
    const state = this.catalog.state;
    const { index, vocabulary } = state;
    const postDocs = index.fullText.postDocs;
    const newPostings = index.docCount < this.options.poolFrom && postDocs !== this.derivedFor;
    if (!newPostings && vocabulary === this.stemmedFor) return;
    const { weighted, lang } = this.options.tables(state);
    // The last vocabulary's stems are kept: an append's vocabulary is it and the batch's new words.
    const previous = this.stemmedFor;
    const open = (): boolean => !this.closed;
    function* steps(): Steps<void> {
      yield* whileOpen(stemIndexSteps(vocabulary, lang, previous), open);
      if (newPostings) yield* whileOpen(termAidsSteps(index, weighted, 0, index.docCount), open);
    }
    await runInSlices(steps(), this.options.sliceMs);
    if (this.closed) return;
    this.stemmedFor = vocabulary;
    if (newPostings) this.derivedFor = postDocs;
  }
}

/** `steps` run while `open()` holds: a step is taken only then (what a step derives is kept whole or not at all). */
function* whileOpen(steps: Steps<unknown>, open: () => boolean): Steps<void> {
  while (open()) {
    if (steps.next().done) return;
    yield;
  }
}
