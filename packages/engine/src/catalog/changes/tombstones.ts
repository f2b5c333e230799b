/**
 * Deletes without a rebuild: a deleted product stays in the arrays of its catalog version as a
 * tombstone (a bit in `CatalogIndex.deleted`) until the next merge rewrites the arrays without it
 * (catalog.ts runs merges in the background). Searches skip tombstoned docs (run-partial.ts), and every
 * statistic a one-go build of the remaining products would have is derived from the built one minus
 * what the deleted docs contributed, kept here as totals:
 * - the number of docs (IDF), each term's document frequency (IDF, typo correction, suggestions);
 * - each full-text field's token and doc totals, so BM25F length normalisation uses the mean field
 *   length of the live docs (postings keep term frequencies; text-matches.ts normalises them with
 *   these means);
 * - per dictionary code, the deleted docs having it (a value only deleted products had is unknown to
 *   scopes), and per field the deleted docs' values (the field's kind).
 * Doc ids of the live docs keep their relative order, which is the order a one-go build gives them,
 * so every tie-break by doc id is the same. The property test (`tombstones.test.ts`) compares answers
 * with a one-go build after random sequences of upserts, patches, deletes and merges.
 *
 * A delete that would change a field's kind for the live docs (the last text value of a numeric-looking
 * field, say) or the image vectors' dimension is not represented: the caller rebuilds instead.
 * @module
 */
import type { ImageVectorRows, Product, ProductList } from '../../types.js';
import { fieldKindOf, productArray, type BuildProducts } from '../build/build-catalog-state.js';
import { lengthTotalsSteps, meanLengths, type LengthTotals } from '../full-text/length-norms.js';
import { runSteps, STEP, type Steps } from '../steps.js';
import { vectorOf as vectorOfRow, vectorValue } from '../columns/vector-column.js';
import { lowerBound, type CatalogState, type FieldKind, type ValueCounts, type VectorColumn } from '../catalog-index.js';
import { IMAGE_VECTOR_FIELD, isPresent, numericValue, textValues } from '../field-values.js';
import { pinnedKind, type FieldTypes } from '../field-types.js';
import { sharedArray } from '../columns/shared-arrays.js';
import { lengthAt } from '../full-text/field-lengths.js';
import { carryDerivedSteps } from '../columns/derived-carry.js';
import { Dictionary } from '../columns/dictionary.js';
import { RefIdDocs } from '../columns/refid-docs.js';
import { codeAt, codeCount, codeDocCount, invertedEntries } from '../columns/text-column.js';
import { tokenize } from '../full-text/tokenizer.js';

const STEP_MASK = STEP - 1;

/** What the deleted docs of a version take out of its statistics (see the module doc). */
export interface Tombstones {
  /** Number of deleted docs. */
  readonly count: number;
  /** Length totals over the deleted docs. */
  readonly deletedLengths: LengthTotals;
  /** Deleted docs per term, by word (term ids shift when an append adds words). */
  readonly docFreq: ReadonlyMap<string, number>;
  /** Per field id: deleted docs per dictionary code. */
  readonly codeDocs: ReadonlyMap<number, ReadonlyMap<number, number>>;
  /** Per field id: the deleted docs' present values (numbers and others), as `FieldIndex.valueCounts`. */
  readonly values: ReadonlyMap<number, ValueCounts>;
}

/** Whether doc `d` is tombstoned in `deleted` (a bitset, or absent: none is). */
export function isDeletedDoc(deleted: Uint32Array | undefined, d: number): boolean {
  return deleted !== undefined && (deleted[d >>> 5] & (1 << (d & 31))) !== 0;
}

/** Number of live (not deleted) products of a version. */
export function liveDocCount(state: CatalogState): number {
  return state.index.docCount - (state.tombstones?.count ?? 0);
}

/**
 * The dimension of a version's live image vectors (0: no live product has one): the one a load or
 * patch must give its vectors (`vectorDimensionProblem`, vector-column.ts). A column whose every
 * vector was deleted sets nothing (a one-go build takes the next vector's dimension).
 */
export function liveVectorDimension(state: CatalogState): number {
  const vectors = state.vectors;
  if (!vectors) return 0;
  const { rowOf } = vectors;
  const { deleted, docCount } = state.index;
  for (let d = 0; d < docCount; d++) if (rowOf[d] >= 0 && !isDeletedDoc(deleted, d)) return vectors.dimension;
  return 0;
}

/** The live docs having term `t` (its document frequency in a one-go build of the live products). */
export function liveDocFreq(state: CatalogState, t: number): number {
  const df = state.index.fullText.termDocFreq[t];
  const tomb = state.tombstones;
  return tomb ? df - (tomb.docFreq.get(state.vocabulary[t]) ?? 0) : df;
}

/** The live docs having code `code` of field `fid`. */
export function liveCodeDocs(state: CatalogState, fid: number, code: number): number {
  const all = codeDocCount(state.index.fields[fid].text!, code);
  return all - (state.tombstones?.codeDocs.get(fid)?.get(code) ?? 0);
}

/** Code entries of deleted docs in a field's text column. */
function deletedEntries(codeDocs: ReadonlyMap<number, number> | undefined): number {
  let n = 0;
  if (codeDocs) for (const c of codeDocs.values()) n += c;
  return n;
}

/**
 * The kind field `fid` has for the live docs: its built kind, or `none` when no live doc has a value
 * (deletes never change it otherwise: such a delete is rebuilt).
 */
export function liveFieldKind(state: CatalogState, fid: number): FieldKind {
  const field = state.index.fields[fid];
  const gone = state.tombstones?.values.get(fid);
  if (!gone || !field.valueCounts) return field.kind;
  const live = { numbers: field.valueCounts.numbers - gone.numbers, strays: field.valueCounts.strays - gone.strays };
  return live.numbers + live.strays === 0 ? 'none' : field.kind;
}

/** The field every product is keyed by: always text, however numeric its values look. */
const REF_ID_FIELD = 'refId';

/**
 * The kind scopes, ranges and sorts give field `fid`: its pinned type's (`settings.fields`; `refId` is
 * always text) when the field has that column, else the kind inferred from its live values. A pin never
 * gives a field without live values a kind: such a field is `none` (matches nothing, sorts as absent).
 */
export function queryFieldKind(state: CatalogState, fid: number, fieldTypes: FieldTypes | undefined): FieldKind {
  const live = liveFieldKind(state, fid);
  if (live === 'none') return live;
  const field = state.index.fields[fid];
  const pinned = field.name === REF_ID_FIELD ? 'text' : pinnedKind(fieldTypes, field.name);
  if (pinned === 'text' && field.text) return 'text';
  if (pinned === 'numeric' && field.numeric) return 'numeric';
  return live;
}

/**
 * Mean field length per full-text field over the live docs, exactly as a one-go build computes it
 * (sums of integers divided once), or undefined when they are the build's (`avgFieldLengths`: no
 * append or delete since the build). The first call on a loaded snapshot's version makes one
 * pass over the field lengths.
 */
export function liveLengthAverages(state: CatalogState): number[] | undefined {
  // Asked by every search of the version (search-plan.ts): derived once per version.
  const kept = liveAveragesOf.get(state);
  if (kept !== undefined) return kept.averages;
  const averages = computeLiveLengthAverages(state);
  liveAveragesOf.set(state, { averages });
  return averages;
}

/** Per catalog version, its {@link liveLengthAverages} (shared by its searches' plans: read only). */
const liveAveragesOf = new WeakMap<CatalogState, { averages: number[] | undefined }>();

function computeLiveLengthAverages(state: CatalogState): number[] | undefined {
  const { fullText, docCount } = state.index;
  const all = runSteps(lengthTotalsSteps(fullText, docCount));
  const gone = state.tombstones?.deletedLengths;
  const live = meanLengths(gone ? {
    tokens: all.tokens.map((t, f) => t - gone.tokens[f]),
    docs: all.docs.map((d, f) => d - gone.docs[f]),
  } : all);
  return live.every((avg, f) => avg === fullText.avgFieldLengths[f]) ? undefined : live;
}

/**
 * The live docs of a version in product order (`CatalogIndex.ordinal`): the docs in their place in doc
 * order, with the few re-appended ones (sorted by their place) merged in.
 */
export function liveDocs(state: CatalogState): Uint32Array {
  return runSteps(liveDocsSteps(state));
}

/** {@link liveDocs} in steps (a pass over every doc: tens of milliseconds at a million). */
export function* liveDocsSteps(state: CatalogState): Steps<Uint32Array> {
  const { deleted, ordinal, docCount } = state.index;
  const out = new Uint32Array(liveDocCount(state));
  const moved: number[] = [];
  if (ordinal) {
    for (let d = 0; d < ordinal.length; d++) {
      if (ordinal[d] !== d && !isDeletedDoc(deleted, d)) moved.push(d);
      if ((d & STEP_MASK) === STEP_MASK) yield;
    }
  }
  // Re-appended docs are bounded by the merge threshold (an eighth of the docs): one sort.
  moved.sort((a, b) => ordinal![a] - ordinal![b]);
  let m = 0;
  let k = 0;
  for (let d = 0; d < docCount; d++) {
    if ((d & STEP_MASK) === STEP_MASK) yield;
    if (isDeletedDoc(deleted, d) || (ordinal && ordinal[d] !== d)) continue;
    while (m < moved.length && ordinal![moved[m]] < d) out[k++] = moved[m++];
    out[k++] = d;
  }
  for (; m < moved.length; m++) out[k++] = moved[m];
  return out;
}

/**
 * The live products of a version in product order as a build reads them, straight from its store:
 * values field by field, vectors as the rows of its column, and the store of the build made by copying
 * each product's encoding ({@link ProductStore.compacted}). No product is decoded whole (a merge of a
 * million products decoded into objects held them all at once: the collector's marking of them stalled
 * the loop for hundreds of milliseconds). Revisions are kept.
 */
export function* liveBuildProducts(state: CatalogState): Steps<BuildProducts> {
  return storedBuildProducts(state, yield* liveDocsSteps(state), []);
}

/**
 * Products as a build reads them, most of them stored in `state`: entry `i` is doc `sources[i]` of its
 * store when that is 0 or more, else the product `given[-1 - sources[i]]` (one a batch brings: new, or
 * changing a stored one; it gets a new revision). The stored ones are read as {@link liveBuildProducts}
 * reads them, without decoding; a given one is read as a plain object.
 */
export function storedBuildProducts(state: CatalogState, sources: Uint32Array | Int32Array, given: readonly Product[]): BuildProducts {
  const { store, vectors: before } = state;
  // The batch's products are read as any plain products are.
  const objects = productArray(given);
  /** Entry i read from its stored doc or from its given product. */
  const either = <T>(stored: (doc: number) => T, object: (k: number) => T) => (i: number): T => {
    const s = sources[i];
    return s >= 0 ? stored(s) : object(-1 - s);
  };
  const readVector = store.fieldReader(IMAGE_VECTOR_FIELD);
  return {
    length: sources.length,
    keysOf: either((doc) => store.keysOf(doc), objects.keysOf),
    valuesOf: (key) => either(store.fieldReader(key), objects.valuesOf(key)),
    numbersOf: (key) => either(store.numberReader(key), objects.numbersOf(key)),
    // The version's own text columns hold each live doc's distinct values in order, as a build of the
    // same values would (vectors have none); values a batch brings are not in them: read then.
    textCodesOf: (key) => {
      const fid = state.fieldByName.get(key);
      const column = fid === undefined ? undefined : state.index.fields[fid].text;
      if (!column || key === IMAGE_VECTOR_FIELD || given.length > 0) return undefined;
      return { dictionary: state.dictionaries[fid!], count: (i) => codeCount(column, sources[i]), codeAt: (i, k) => codeAt(column, sources[i], k) };
    },
    // The column's row holds the float32s a build stores for the value (no decoding: a decoded vector
    // costs a `toPrecision` per component) when the store reads the value from it; a value kept raw, or
    // a build of another dimension (not made by deletes), reads the value.
    vectorOf: (i, dimension) => {
      const doc = sources[i];
      if (doc < 0) return objects.vectorOf(-1 - doc, dimension);
      if (before && dimension === before.dimension && store.readsVectorColumn(doc)) return vectorOfRow(before, doc);
      return vectorValue(readVector(doc), dimension);
    },
    storeSteps: (columns) => store.compacted(sources, columns, given),
  };
}

/**
 * The live products of a version in product order, decoded from its store when asked (see
 * {@link liveDocs}); for passes over many products: reads bypass the decoded-product cache.
 */
export function liveProductList(state: CatalogState): ProductList {
  return runSteps(liveProductListSteps(state));
}

/** {@link liveProductList} in steps (its pass over the docs when some are deleted or moved). */
export function* liveProductListSteps(state: CatalogState): Steps<ProductList> {
  const { store, vectors } = state;
  if (!state.tombstones && !state.index.ordinal) {
    return { length: store.length, get: (d) => store.decode(d), revision: (d) => store.revision(d), imageVectors: vectors && imageVectorRows(vectors, (d) => d) };
  }
  const docs = yield* liveDocsSteps(state);
  return { length: docs.length, get: (i) => store.decode(docs[i]), revision: (i) => store.revision(docs[i]), imageVectors: vectors && imageVectorRows(vectors, (i) => docs[i]) };
}

/** The vector column's rows for a list whose product `i` is doc `docOf(i)`. */
function imageVectorRows(vectors: VectorColumn, docOf: (i: number) => number): ImageVectorRows {
  const { dimension, data, rowOf } = vectors;
  return { dimension, data, rowOf: (i) => rowOf[docOf(i)] };
}

/** Visits the live products of a version in product order, with their docs. */
export function forEachLiveProduct(state: CatalogState, visit: (product: Product, doc: number) => void): void {
  const { store } = state;
  if (!state.tombstones && !state.index.ordinal) {
    for (let d = 0; d < store.length; d++) visit(store.decode(d), d);
    return;
  }
  for (const d of liveDocs(state)) visit(store.decode(d), d);
}

/** The distinct words of a product's full-text fields (the terms a one-go build gives its doc). */
function wordsOf(state: CatalogState, product: Product): Set<string> {
  const words = new Set<string>();
  for (const fid of state.index.fullText.fieldIds) {
    for (const value of textValues(product[state.index.fields[fid].name])) for (const w of tokenize(value)) words.add(w);
  }
  return words;
}

/**
 * The docs of `refIds` the catalog has, ascending, or undefined when tombstones cannot represent
 * deleting them exactly (a field's kind for the live docs would change, or the image vectors'
 * dimension): the caller rebuilds. Pure.
 */
export function planDeletes(state: CatalogState, refIds: readonly string[]): number[] | undefined {
  const docs = [...new Set(refIds.map((r) => state.docByRefId.get(r)).filter((d): d is number => d !== undefined))].sort((a, b) => a - b);
  if (docs.length === 0) return docs;
  const gone = new Map<number, ValueCounts>(state.tombstones?.values);
  const goneTexts = new Map<number, number>();
  for (const d of docs) {
    for (const [key, v] of Object.entries(state.store.decode(d))) {
      if (!isPresent(v)) continue;
      const fid = state.fieldByName.get(key)!;
      const before = gone.get(fid) ?? { numbers: 0, strays: 0 };
      const numeric = !Number.isNaN(numericValue(v));
      gone.set(fid, { numbers: before.numbers + (numeric ? 1 : 0), strays: before.strays + (numeric ? 0 : 1) });
      const text = state.index.fields[fid].text;
      if (text) goneTexts.set(fid, (goneTexts.get(fid) ?? 0) + codeCount(text, d));
    }
  }
  for (const [fid, counts] of gone) {
    const field = state.index.fields[fid];
    if (!field.valueCounts) return undefined; // a version loaded from an old snapshot: kinds unknown
    const live = { numbers: field.valueCounts.numbers - counts.numbers, strays: field.valueCounts.strays - counts.strays };
    if (live.numbers + live.strays === 0) continue;
    const text = field.text;
    const liveTexts = text ? invertedEntries(text) - deletedEntries(state.tombstones?.codeDocs.get(fid)) - (goneTexts.get(fid) ?? 0) : 0;
    if (fieldKindOf(live, liveTexts > 0) !== field.kind) return undefined;
  }
  const vectors = state.vectors;
  if (vectors) {
    // A one-go build takes the dimension of the first live product with a vector.
    const dropped = new Set(docs);
    for (let d = 0; d < state.store.length; d++) {
      if (dropped.has(d) || isDeletedDoc(state.index.deleted, d)) continue;
      const v = state.store.decode(d)[IMAGE_VECTOR_FIELD];
      if (Array.isArray(v) && v.length > 0) {
        if (v.length !== vectors.dimension) return undefined;
        break;
      }
    }
  }
  return docs;
}

/**
 * The version `version` of the catalog: `base` with `docs` (from {@link planDeletes}) tombstoned.
 * Shares every column with `base`; costs what the deleted products hold (their words, codes and
 * values) plus one copy of the deleted-doc bitset and, on the first delete since a merge, one pass
 * over the field lengths for the totals.
 */
export function* applyDeletes(base: CatalogState, docs: readonly number[], version: number): Steps<CatalogState> {
  const { index } = base;
  const n = index.docCount;
  const old = base.tombstones;
  // The live means need the totals of every doc: derived now if nothing recorded them (a snapshot).
  yield* lengthTotalsSteps(index.fullText, n);
  const deleted = sharedArray(Uint32Array, (n + 31) >>> 5);
  if (index.deleted) deleted.set(index.deleted);
  const F = index.fullText.fieldIds.length;
  const lengthTokens = old ? old.deletedLengths.tokens.slice() : new Array<number>(F).fill(0);
  const lengthDocs = old ? old.deletedLengths.docs.slice() : new Array<number>(F).fill(0);
  const docFreq = new Map(old?.docFreq);
  const codeDocs = new Map<number, Map<number, number>>();
  for (const [fid, counts] of old?.codeDocs ?? []) codeDocs.set(fid, new Map(counts));
  const values = new Map(old?.values);
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    deleted[d >>> 5] |= 1 << (d & 31);
    for (let f = 0; f < F; f++) {
      const len = lengthAt(index.fullText.fieldLengths, index.fullText.lengthStride, f, d);
      if (len > 0) { lengthTokens[f] += len; lengthDocs[f]++; }
    }
    const product = base.store.decode(d);
    for (const w of wordsOf(base, product)) {
      // Only words the vocabulary has count (a value's words are tokenised as the build did).
      const t = lowerBound(base.vocabulary, w);
      if (base.vocabulary[t] === w) docFreq.set(w, (docFreq.get(w) ?? 0) + 1);
    }
    for (const [key, v] of Object.entries(product)) {
      const fid = base.fieldByName.get(key)!;
      if (isPresent(v)) {
        const before = values.get(fid) ?? { numbers: 0, strays: 0 };
        const numeric = !Number.isNaN(numericValue(v));
        values.set(fid, { numbers: before.numbers + (numeric ? 1 : 0), strays: before.strays + (numeric ? 0 : 1) });
      }
      const text = index.fields[fid].text;
      if (!text) continue;
      let counts = codeDocs.get(fid);
      if (!counts) codeDocs.set(fid, (counts = new Map()));
      for (let j = 0, k = codeCount(text, d); j < k; j++) {
        const code = codeAt(text, d, j);
        counts.set(code, (counts.get(code) ?? 0) + 1);
      }
    }
    if ((i & 255) === 255) yield;
  }
  const count = (old?.count ?? 0) + docs.length;
  const deletedDocs = sharedArray(Uint32Array, count);
  let k = 0;
  for (let w = 0; w < deleted.length; w++) {
    let word = deleted[w];
    while (word !== 0) {
      const low = word & -word;
      deletedDocs[k++] = (w << 5) + 31 - Math.clz32(low);
      word ^= low;
    }
    if ((w & STEP_MASK) === STEP_MASK) yield;
  }
  // The refIds of the deleted docs name none any more (a replaced product's refId names its new doc,
  // the latest of that refId): the shared refId dictionary read through the new tombstones.
  const refIdField = base.fieldByName.get('refId');
  const docByRefId = new RefIdDocs(refIdField === undefined ? Dictionary.empty() : base.dictionaries[refIdField], deleted, base.docByRefId.size - docs.length);
  const state: CatalogState = {
    ...base,
    index: { ...index, version, deleted, deletedDocs },
    docByRefId,
    // Products left: not a values-only change (derived indexes must see it).
    patchedSince: undefined,
    tombstones: { count, deletedLengths: { tokens: lengthTokens, docs: lengthDocs }, docFreq, codeDocs, values },
  };
  // The same docs, deleted ones masked wherever a column is read: every derived structure still serves.
  yield* carryDerivedSteps(base, state);
  return state;
}

/**
 * `tombstones` of a version whose full-text index gained fields (an append of a field no product had):
 * no deleted doc has a length in them.
 */
export function withFullTextFields(tombstones: Tombstones, fullTextFields: number): Tombstones {
  const { tokens, docs } = tombstones.deletedLengths;
  if (tokens.length === fullTextFields) return tombstones;
  const zeros = new Array<number>(fullTextFields - tokens.length).fill(0);
  return { ...tombstones, deletedLengths: { tokens: [...tokens, ...zeros], docs: [...docs, ...zeros] } };
}
