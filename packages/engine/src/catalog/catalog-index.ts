/**
 * The shapes of a built catalog. A {@link CatalogIndex} holds only numbers and typed arrays on
 * SharedArrayBuffers, so it can be posted to a search worker (structured clone shares the memory,
 * copies nothing). A {@link CatalogState} adds what only the owning thread needs: the products as
 * given (a {@link ProductStore}), refId lookup, dictionaries and the vocabulary.
 *
 * Both are immutable once built: a change builds a new state and swaps one reference (see catalog.ts).
 * @module
 */
import type { Dictionary } from './columns/dictionary.js';
import type { NormKeyTable, PostKeys } from './full-text/norm-keys.js';
import type { ProductStore } from './columns/product-store.js';
import type { RefIdDocs } from './columns/refid-docs.js';
import type { Tombstones } from './changes/tombstones.js';

/** How a field's values are treated by scope, ranges and validation. */
export type FieldKind = 'numeric' | 'text' | 'none';

/**
 * Per doc its one code, or -1 when it has no value: as narrow as the dictionary allows (see
 * `singleCodesType` in text-column.ts).
 */
export type SingleCodes = Int8Array | Int16Array | Int32Array;

/** What every text column holds besides its per-doc codes. */
interface TextColumnBase {
  /** Dictionary size; codes are in first-seen order. */
  dictSize: number;
  /**
   * Inverted column: docs having code `c` are `valueDocs[valueOffsets[c] .. valueOffsets[c+1])`, ascending,
   * then those of `valueTail` (every one higher). Read both through text-column.ts's `tailRange`.
   */
  valueOffsets: Uint32Array;
  valueDocs: Uint32Array;
  /**
   * Docs appended since the one-go build that took codes older docs had (a new brand's products): kept
   * apart, as the posting tail is, so an append does not shift the lists of every later code. Absent:
   * none. A merge folds it away; a snapshot stores the column folded (`foldedInverted`).
   */
  valueTail?: InvertedTail;
  /**
   * Per code, rank of its lower-cased value (equal lower-cased values share a rank): text sort order.
   * Derived on first use (a text sort on the field) by `ensureTextSortRanks`; absent until then. A
   * change's new values are ranked among the old ones (`extendedSortRanksSteps`), not ranked anew.
   */
  sortRank?: Uint32Array;
}

/**
 * The appended docs of codes that had docs before (see {@link TextColumnBase.valueTail}): code
 * `codes[i]` (ascending) has the docs `docs[offsets[i] .. offsets[i+1])`, ascending, each higher than
 * the code's docs in the main inverted column.
 */
export interface InvertedTail {
  codes: Uint32Array;
  offsets: Uint32Array;
  docs: Uint32Array;
}

/** A text column where no doc has more than one value: one code per doc (one read in hot loops). */
export interface SingleValuedColumn extends TextColumnBase {
  single: SingleCodes;
  offsets?: undefined;
  codes?: undefined;
}

/** A text column where some doc has several values. */
export interface MultiValuedColumn extends TextColumnBase {
  single?: undefined;
  /** Doc `d` has the codes `codes[offsets[d] .. offsets[d+1])` (distinct, in the order given). */
  offsets: Uint32Array;
  codes: Uint32Array;
}

/**
 * Dictionary-encoded text values of one field: `single` when no doc has more than one value, else
 * `offsets`/`codes` (never both). Read a doc's codes with the functions of text-column.ts, or branch
 * on `single` where the loop is hot.
 */
export type TextColumn = SingleValuedColumn | MultiValuedColumn;

/** A text column's per-doc codes alone, in either layout. */
export type DocCodes = Pick<SingleValuedColumn, 'single'> | Pick<MultiValuedColumn, 'offsets' | 'codes'>;

/** An earlier version's numeric order of a field and the docs it covers (see {@link FieldIndex.orderBase}). */
export interface OrderBase {
  readonly order: Uint32Array;
  /** The docs below this are in {@link order} (those with a number). */
  readonly docs: number;
}

/** One field's columns. */
export interface FieldIndex {
  name: string;
  kind: FieldKind;
  /** Present when at least one product has a text value for the field. */
  text?: TextColumn;
  /**
   * The numbers of the field's values (NaN = missing), read through codes: present when at least one
   * product has one. Read a doc's with `numericAt`, or hoist `numericValues` in loops (numeric-column.ts).
   */
  numeric?: NumericColumn;
  /**
   * The docs having a numeric value, by (value, doc) ascending. Derived on first use (a browse with a
   * range or a number sort on the field) by `ensureNumericOrder`; lets min/max and top-k walk from the
   * ends instead of visiting every candidate.
   */
  order?: Uint32Array;
  /**
   * When {@link order} is not derived yet but an earlier version's was: that order, of the docs below
   * `docs`; the docs from `docs` on that have a number (appended since, never patched: a value patch
   * merges it first) are merged in when the order is first needed (`ensureNumericOrder`). An append
   * thus costs no copy of every numeric field's order (a million entries each, per one-product append).
   */
  orderBase?: OrderBase;
  /**
   * How many present values of the field are numbers and how many are not — what the field's kind
   * is decided from (`isNumericField`), so an append can tell whether it would change the kind.
   * Absent in versions loaded from a snapshot: an append giving such a field a value rebuilds.
   */
  valueCounts?: ValueCounts;
}

/**
 * A field's numbers as a table per code (`byCode[c + 1]`: code `c`'s number, NaN when its value is not
 * one; `byCode[0]` NaN) and the code of each doc: `docCodes` when present, else the single codes of the
 * field's text column (see numeric-column.ts for when each layout is used).
 */
export interface NumericColumn {
  byCode: Float64Array;
  /** Per doc, its code into `byCode` (-1: no number); absent: the text column's single codes. */
  docCodes?: Int32Array;
}

/** Present values of a field: numbers and others. */
export interface ValueCounts {
  numbers: number;
  strays: number;
}

/** Postings per term, one entry per (doc, field): the main ones of a {@link FullTextIndex} or its tail. */
export interface PostingSegment {
  /** Term `t` has the entries `[termOffsets[t], termOffsets[t+1])`, sorted by doc then field. */
  termOffsets: Uint32Array;
  postDocs: Uint32Array;
  /** Norm key of the entry, which names its field too (see {@link FullTextIndex.postKey}). */
  postKey: PostKeys;
}

/**
 * The postings of the docs appended since a version's one-go build (changes/append-products.ts, full-text/append-full-text.ts): every doc of
 * the tail is `fromDoc` or higher, every doc of the main postings lower, so a term's docs are its main
 * entries then its tail entries.
 */
export interface PostingTail extends PostingSegment {
  fromDoc: number;
}

/**
 * The inverted index for full text (BM25F): postings per term, one entry per (doc, field), in the main
 * arrays for the docs of the one-go build and in `tail` for the docs appended since.
 */
export interface FullTextIndex {
  /** Field index (into {@link CatalogIndex.fields}) of each full-text field, by full-text field number. */
  fieldIds: number[];
  /** Number of terms; term ids follow the sorted vocabulary. */
  termCount: number;
  /** Term `t` has the entries `[termOffsets[t], termOffsets[t+1])`, sorted by doc then field. */
  termOffsets: Uint32Array;
  postDocs: Uint32Array;
  /**
   * Norm key of the entry: its (field, term frequency, field length) in `normKeys` (norm-keys.ts); the
   * entry's full-text field number is the key's (no array of its own).
   * Searches score the entry with that triple's norm (`postingNorm` in full-text/length-norms.ts: BM25F,
   * b = 0.75, with the live mean lengths) and apply field weights and k1.
   */
  postKey: PostKeys;
  /** The (field, term frequency, field length) of every norm key, main and tail postings together. */
  normKeys: NormKeyTable;
  /** Number of distinct docs containing each term (for IDF), main and tail postings together. */
  termDocFreq: Uint32Array;
  /** Postings of the docs appended since the build (absent: none). */
  tail?: PostingTail;
  /**
   * Tokens of full-text field `f` in doc `d`: `fieldLengths[d * lengthStride + f]` (doc by doc, see
   * field-lengths.ts), saturating at `MAX_FIELD_LENGTH` (full-text/length-norms.ts). Norms and length
   * totals use the stored value.
   */
  fieldLengths: Uint16Array;
  /**
   * Slots per doc in `fieldLengths`: the full-text fields (`fieldIds`), then spare ones, zero in every
   * doc, that a new full-text field takes without laying the lengths out again (field-lengths.ts).
   */
  lengthStride: number;
  /**
   * The mean field length per full-text field over the docs of the build (a new field's: over the
   * docs that appended it). Searches normalise with it unless the live docs' means differ (after
   * appends and deletes: `SearchPlan.lengthAverages`, see tombstones.ts).
   */
  avgFieldLengths: number[];
}

/** The worker-shareable part of a catalog version. */
export interface CatalogIndex {
  /** Unique per Catalog instance; with `version`, keys worker-side caches. */
  catalogId: string;
  version: number;
  docCount: number;
  fields: FieldIndex[];
  fullText: FullTextIndex;
  /**
   * Deleted docs not merged away yet (tombstones, see tombstones.ts): bit `d` of the bitset is set when
   * doc `d` is deleted; `deletedDocs` lists them ascending. Absent when no doc is deleted.
   */
  deleted?: Uint32Array;
  deletedDocs?: Uint32Array;
  /**
   * Per doc, its place in the product order, when that is not its doc id: a product changed in a way
   * only a rebuild could index in place is tombstoned and appended again, keeping its predecessor's
   * place (`ordinal[d] <= d`). Ties of the result order and browse order follow it. Absent: doc ids.
   */
  ordinal?: Uint32Array;
}

/** Image vectors (field `image_vector`), fixed dimension, for visual similarity. */
export interface VectorColumn {
  dimension: number;
  /**
   * The vectors of the docs having one, in doc order: doc `d`'s is row `rowOf[d]`,
   * `data[row*dimension .. (row+1)*dimension)`; -1 when it has none (read with `vectorOf`,
   * vector-column.ts).
   */
  data: Float32Array;
  rowOf: Int32Array;
}

/** One immutable version of a catalog. */
export interface CatalogState {
  index: CatalogIndex;
  /** Products as given, and their revisions, by doc id (insertion order; an update keeps its position). */
  store: ProductStore;
  /** refId → live doc id (the refId dictionary's table, see refid-docs.ts). */
  docByRefId: RefIdDocs;
  fieldByName: Map<string, number>;
  /**
   * Per field, its dictionary (code → value, and value → code); empty when the field has no text column.
   * Append-only stores shared with the versions before and after (see dictionary.ts).
   */
  dictionaries: Dictionary[];
  /** Sorted vocabulary: term id → word. */
  vocabulary: string[];
  /** Per term, a 32-bit mask of the characters it contains (cheap typo-candidate filter). */
  termMasks: Uint32Array;
  vectors?: VectorColumn;
  /**
   * Set on a version made by value patches only (`patch-values.ts`) since the full build of `version`:
   * the names of the fields those patches changed. Absent on a built version.
   */
  patchedSince?: { version: number; fields: ReadonlySet<string> };
  /**
   * Deleted docs still in the arrays, and what they take out of the statistics (see tombstones.ts).
   * Absent when every doc is live.
   */
  tombstones?: Tombstones;
}

/** First index in the sorted `list` whose value is >= `value` (JS string order, as the vocabulary's). */
export function lowerBound(list: readonly string[], value: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The mask used to prefilter typo candidates: bit `code % 32` per character. */
export function charMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) mask |= 1 << (word.charCodeAt(i) & 31);
  return mask >>> 0;
}
