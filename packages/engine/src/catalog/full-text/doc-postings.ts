/**
 * The one writer of a full-text index's per-document data — a doc's postings (term, doc, norm key), its
 * field lengths and the length totals — for every path that indexes documents: a build (loads,
 * rebuilds, merges: `build-full-text.ts`) and an append (`append-full-text.ts`). As in a segmented index
 * with a single writer, the paths differ only in where the written postings go (a {@link PostingSink}:
 * counted then placed in a new main segment, or kept for the tail after it); what a doc contributes is
 * decided here, once, so a fix to it (a saturation, a layout, a key) is made in one place and an append
 * stays equal to a rebuild of the same products.
 * @module
 */
import { DictionaryWriter } from '../columns/dictionary.js';
import type { Steps } from '../steps.js';
import { PagedBuilder, sharedArray } from '../columns/shared-arrays.js';
import type { NormKeyBuilder } from './norm-keys.js';
import { MAX_TF, storedFieldLength, type LengthTotals } from './length-norms.js';

/**
 * Work units a token (tokenised, or read and written as a posting entry) counts for against the
 * catalog's step (`STEP`, steps.ts): it costs tens of times a doc's slot in a column pass.
 */
export const TOKEN_WORK = 16;

/**
 * Words numbered in first-seen order: a writer's own term ids (dense, so per-term counters are typed
 * arrays), mapped to the sorted vocabulary's ids once the words are all known. The words and their
 * table are a dictionary's (`dictionary.ts`: codes in first-seen order are the ids), so a word given as
 * a range of a text ({@link idOfRange}) is looked up in place and cut out only when it is new.
 */
export class TermNumbering {
  /** The words by id. */
  readonly terms: string[] = [];
  private readonly table = new DictionaryWriter({ values: this.terms });

  /** The id of `word`, numbered now when new. */
  idOf(word: string): number {
    return this.table.codeFor(word);
  }

  /** {@link idOf} of `text.slice(start, end)` (see `forEachWord`, tokenizer.ts). */
  idOfRange(text: string, start: number, end: number): number {
    return this.table.codeForRange(text, start, end);
  }

  /**
   * Makes room for `count` more words, in steps: the table's growth otherwise rehashes every word in
   * one go (tens of milliseconds at a million words) inside the number of the word that fills it.
   */
  reserveSteps(count: number): Steps<void> {
    return this.table.reserveSteps(count);
  }
}

/** Mutable length totals: tokens and docs having the field, per full-text field number. */
interface RunningTotals {
  tokens: number[];
  docs: number[];
}

/** Where a {@link DocPostingsWriter}'s entries go: one call per entry, in emission order. */
export interface PostingSink {
  /** An entry: the term (the writer's caller's id), the doc, the norm key. */
  entry(term: number, doc: number, key: number): void;
}

/**
 * A {@link PostingSink} keeping the entries in emission order, on pages: an append's few entries, laid
 * out as the tail once they are all written. A build does not keep them (`build-full-text.ts` counts,
 * then places): at a million products they are tens of millions of entries, hundreds of MB that live
 * until the build ends and are then freed at once.
 */
export class PostingEntries implements PostingSink {
  readonly terms = new PagedBuilder(Uint32Array);
  readonly docs = new PagedBuilder(Uint32Array);
  readonly keys = new PagedBuilder(Uint32Array);

  get length(): number {
    return this.terms.length;
  }

  entry(term: number, doc: number, key: number): void {
    this.terms.push(term);
    this.docs.push(doc);
    this.keys.push(key);
  }
}

/**
 * Writes the docs' fields one at a time: {@link beginField}, {@link add} per token (a term id below the
 * `termCount` given), {@link endField}. Entries go to the sink doc-major, then field: per term they are
 * sorted by doc then field, as scoring expects, when docs are written in ascending order.
 */
export class DocPostingsWriter {
  private readonly totals: RunningTotals;
  // Per term, the field pass that last counted it and its count in that pass: no clearing per field.
  private readonly stamp: Int32Array;
  private readonly tf: Uint32Array;
  // The terms of the field being written (a typed array and its count: no array resized per field).
  private readonly touched: Uint32Array;
  private touchedCount = 0;
  private pass = 0;
  private length = 0;

  /**
   * @param termCount Term ids given to {@link add} are below this.
   * @param fieldLengths The index's lengths (`field-lengths.ts` layout), written for every field ended.
   * @param stride Slots per doc in that layout (`FullTextIndex.lengthStride`).
   * @param normKeys The index's norm keys (a new table, or an appended one's continued).
   * @param totals Length totals of the docs before the first one written (zeros for a build); the
   *   written docs' are added to a copy ({@link lengthTotals}).
   * @param sink Where the entries go.
   */
  constructor(
    termCount: number,
    private readonly fieldLengths: Uint16Array,
    private readonly stride: number,
    private readonly normKeys: NormKeyBuilder,
    totals: LengthTotals,
    private readonly sink: PostingSink,
  ) {
    this.stamp = sharedArray(Int32Array, termCount);
    this.tf = sharedArray(Uint32Array, termCount);
    this.touched = sharedArray(Uint32Array, termCount);
    this.totals = { tokens: totals.tokens.slice(), docs: totals.docs.slice() };
  }

  /** Starts a field of a doc. */
  beginField(): void {
    this.pass++;
    this.length = 0;
    this.touchedCount = 0;
  }

  /** Counts one token of the field being written. */
  add(term: number): void {
    this.length++;
    if (this.stamp[term] !== this.pass) {
      this.stamp[term] = this.pass;
      this.tf[term] = 1;
      this.touched[this.touchedCount++] = term;
    } else this.tf[term]++;
  }

  /**
   * Ends full-text field `f` of doc `d`: stores its length (saturated), adds it to the totals, writes
   * one entry per distinct term with its (field, term frequency, length) norm key. Returns the work
   * done, in the units of {@link TOKEN_WORK} (a token read counts 1, an entry written `TOKEN_WORK`).
   */
  endField(d: number, f: number): number {
    const stored = storedFieldLength(this.length);
    this.fieldLengths[d * this.stride + f] = stored; // the layout of `lengthAt`
    if (stored > 0) {
      this.totals.tokens[f] += stored;
      this.totals.docs[f]++;
    }
    for (let k = 0; k < this.touchedCount; k++) {
      const term = this.touched[k];
      this.sink.entry(term, d, this.normKeys.keyOf(f, Math.min(MAX_TF, this.tf[term]), stored));
    }
    return this.length + this.touchedCount * TOKEN_WORK;
  }

  /** The length totals of the docs before and those written. */
  lengthTotals(): LengthTotals {
    return this.totals;
  }
}
