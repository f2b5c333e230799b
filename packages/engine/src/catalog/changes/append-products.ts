/**
 * The second fast path of a catalog change: a batch that only adds new products (new refIds, values
 * that keep every existing field's kind) extends the previous version instead of rebuilding it. New
 * docs take the next doc ids, so every column grows at its end: per-doc columns in place (growable
 * buffers, `extendShared`; field lengths, `field-lengths.ts`), text columns append codes
 * (new values get new codes, as a rebuild would give them in first-seen order, written after the
 * previous version's in the dictionary's shared store, `dictionary.ts`), inverted columns get the new
 * docs in their tail (`valueTail`; new values' lists at the main column's end, in place), the new docs'
 * postings, written by the one writer builds and merges use (`full-text/doc-postings.ts`), go to the
 * posting tail (`full-text/append-full-text.ts`; the build's postings are shared), new words are
 * merged into the sorted vocabulary. A field no product had is added after the others (as a build
 * numbers fields by first appearance), its columns holding no value for the old docs, its kind the one
 * its new values give; a text one gets the next full-text field number when a build would index it.
 *
 * The result is the version a rebuild would make, bit for bit, but for one thing every new doc changes
 * for all others: BM25F length normalisation (the mean field length moves). Postings keep the means
 * they were normalised with (`FullTextIndex.avgFieldLengths`) and the length totals move; a search
 * normalises each posting it reads with the live means (text-matches.ts: the term frequency is recovered
 * exactly from the stored float32), so an append costs no pass over every posting. The property test
 * (`append-products.test.ts`) compares every structure and the effective norms with a rebuild.
 *
 * Anything else — an update of a known refId (catalog.ts tombstones it and appends it again), a value
 * that would change a field's kind (text in a numeric field, a first text value in a field without
 * any) — takes another path or the full rebuild.
 * @module
 */
import type { Product } from '../../types.js';
import { fieldKindOf, productArray } from '../build/build-catalog-state.js';
import { STEP, type Steps } from '../steps.js';
import { isFullTextField } from '../full-text/full-text-fields.js';
import { appendFullText } from '../full-text/append-full-text.js';
import { TermNumbering } from '../full-text/doc-postings.js';
import { liveFieldKind, withFullTextFields } from './tombstones.js';
import type { CatalogIndex, CatalogState, FieldIndex, TextColumn, ValueCounts } from '../catalog-index.js';
import { copySingleCodes, emptySingleCodes, singleCodesType } from '../columns/text-column.js';
import { appendTextColumn } from '../columns/append-text-column.js';
import { carryDerivedSteps } from '../columns/derived-carry.js';
import { extendedSortRanksSteps } from '../columns/text-column-lookups.js';
import { IMAGE_VECTOR_FIELD, isNumericField, isPresent, numericValue, textValues } from '../field-values.js';
import { extendShared, growableArray, sharedArray } from '../columns/shared-arrays.js';
import { appendVectorsSteps } from '../columns/vector-column.js';
import { RefIdDocs } from '../columns/refid-docs.js';
import { Dictionary } from '../columns/dictionary.js';
import { appendedNumericColumn } from '../columns/numeric-column.js';
import { tokenize } from '../full-text/tokenizer.js';

/** Docs numbered between two yields when a product order is first made (see `appendedOrdinals`). */
const STEP_MASK = STEP - 1;

/** Whether field `fid` of `state` takes value `v` of a new product without changing kind or columns. Pure. */
function fitsField(state: CatalogState, fid: number, v: unknown): boolean {
  const field = state.index.fields[fid];
  if (field.name === IMAGE_VECTOR_FIELD) return true;
  if (field.name === 'refId') return true; // checked by the caller (a new string refId)
  if (!isPresent(v)) return true;
  const texts = textValues(v);
  const x = numericValue(v);
  if (field.kind === 'numeric') return !Number.isNaN(x);
  if (field.kind === 'text') return texts.length === 0 || field.text !== undefined;
  // Kind none: present values without text (an empty array) keep it so.
  return texts.length === 0;
}

/**
 * The new products of upsert batches on `base` (each refId at its first position, its last value), or
 * undefined when a batch needs the full rebuild. Pure; in steps.
 */
export function* planAppend(base: CatalogState, batches: readonly (readonly Product[])[]): Steps<Product[] | undefined> {
  const order: string[] = [];
  const last = new Map<string, Product>();
  let i = 0;
  for (const batch of batches) {
    for (const product of batch) {
      if (base.docByRefId.has(product.refId)) return undefined;
      if (!last.has(product.refId)) order.push(product.refId);
      last.set(product.refId, product);
      if ((++i & 255) === 0) yield;
    }
  }
  const added = order.map((refId) => last.get(refId)!);
  // An empty version has no columns at all (not even refId's): its rebuild is as cheap and lays them out.
  if (base.index.docCount === 0) return undefined;
  const addedCounts = new Map<number, ValueCounts>();
  for (let k = 0; k < added.length; k++) {
    const p = added[k];
    for (const key in p) {
      const fid = base.fieldByName.get(key);
      // A field no product had takes whatever kind its new values give (appendProducts adds it).
      if (fid === undefined) continue;
      if (!fitsField(base, fid, p[key])) return undefined;
      if (!isPresent(p[key])) continue;
      let counts = addedCounts.get(fid);
      if (!counts) addedCounts.set(fid, counts = { numbers: 0, strays: 0 });
      if (Number.isNaN(numericValue(p[key]))) counts.strays++;
      else counts.numbers++;
    }
    if ((k & 255) === 255) yield;
  }
  // A field's kind is decided from all its values: the appended ones must not change it (a text field
  // with one stray word among numbers may become numeric), or the version would differ from a rebuild.
  for (const [fid, counts] of addedCounts) {
    const field = base.index.fields[fid];
    if (!field.valueCounts) return undefined;
    if (field.kind === 'none' || field.name === IMAGE_VECTOR_FIELD) continue;
    const numeric = isNumericField(field.valueCounts.numbers + counts.numbers, field.valueCounts.strays + counts.strays);
    if (numeric !== (field.kind === 'numeric')) return undefined;
    // With tombstones the kind a one-go build decides is that of the live values plus the new ones.
    const gone = base.tombstones?.values.get(fid);
    if (gone) {
      if (liveFieldKind(base, fid) === 'none') return undefined;
      const live = isNumericField(field.valueCounts.numbers - gone.numbers + counts.numbers, field.valueCounts.strays - gone.strays + counts.strays);
      if (live !== (field.kind === 'numeric')) return undefined;
    }
  }
  // Vectors of another dimension than the column's are left out, as by a build, unless deletes left no
  // live vector (a one-go build would then take the first new one's dimension): rebuild then.
  const vectors = base.vectors;
  if (base.tombstones && vectors && added.some((p) => Array.isArray(p[IMAGE_VECTOR_FIELD]) && (p[IMAGE_VECTOR_FIELD] as unknown[]).length !== vectors.dimension)) return undefined;
  return added;
}

/** The fields `added` have and `base` has not, in first-appearance order (as a build numbers fields). Pure. */
function newFieldNames(base: CatalogState, added: readonly Product[]): string[] {
  const names = new Set<string>();
  for (const p of added) for (const key in p) if (!base.fieldByName.has(key)) names.add(key);
  return [...names];
}

/**
 * A field no product of the base version had: no column, no value; {@link appendProducts} gives it the
 * columns its new values need and appends them like any other field's.
 */
function absentField(name: string): FieldIndex {
  return { name, kind: 'none', valueCounts: { numbers: 0, strays: 0 } };
}

/** A text column of `n` docs none of which has a value (the base a new field's values are appended to). */
function emptyTextColumn(n: number): TextColumn {
  return {
    // Single-valued and as narrow as can be: appendTextColumn widens it, or makes it multi-valued, as the new values need.
    single: emptySingleCodes(0, n),
    dictSize: 0,
    valueOffsets: growableArray(Uint32Array, 1),
    valueDocs: growableArray(Uint32Array, 0),
  };
}

/** The value counts of a field after appending docs whose own values of it are `given`. */
function appendedCounts(counts: ValueCounts | undefined, given: readonly unknown[]): ValueCounts | undefined {
  if (!counts) return undefined;
  let { numbers, strays } = counts;
  for (const v of given) {
    if (!isPresent(v)) continue;
    if (Number.isNaN(numericValue(v))) strays++;
    else numbers++;
  }
  return { numbers, strays };
}

/** The distinct text values of a product's field, in the order given (as the build keeps them). */
function distinctTexts(v: unknown): string[] {
  const out: string[] = [];
  for (const t of textValues(v)) if (!out.includes(t)) out.push(t);
  return out;
}

/**
 * The version `version` of the catalog: `base` with `added` (new products, in order) at its end.
 * Fields no product of `base` had are added after the others, in the order a build would number them,
 * with the kind their values give; a text one gets the next full-text field number when a build would
 * index it (`fieldWeights`: the catalog's).
 */
export function* appendProducts(
  base: CatalogState, added: readonly Product[], version: number, places?: ReadonlyMap<string, number>,
  fieldWeights?: Record<string, number>,
): Steps<CatalogState> {
  const n = base.store.length;
  const k = added.length;
  const N = n + k;
  const baseFields = base.index.fields.length;
  const newNames = newFieldNames(base, added);
  const fieldByName = newNames.length === 0 ? base.fieldByName : new Map(base.fieldByName);
  newNames.forEach((name, i) => fieldByName.set(name, baseFields + i));
  const fields: FieldIndex[] = [];
  const dictionaries = base.dictionaries.slice();
  const fullTextIds = base.index.fullText.fieldIds.slice();
  const fullTextNumber = new Map<number, number>(fullTextIds.map((fid, f) => [fid, f]));
  // Per new doc and full-text field, the words of its values as the batch's own term ids (the writer's, doc-postings.ts).
  const docTerms: number[][][] = added.map(() => fullTextIds.map(() => []));
  const numbering = new TermNumbering();
  // The products as a build reads them (productArray): one reader of product objects for both paths.
  const addedProducts = productArray(added);
  for (let fid = 0; fid < baseFields + newNames.length; fid++) {
    const isNew = fid >= baseFields;
    const field = isNew ? absentField(newNames[fid - baseFields]) : base.index.fields[fid];
    const name = field.name;
    // Read as a build reads them (own values only: `p[name]` would give a product without a key named
    // like an Object.prototype member, `constructor`, that member).
    const valueOf = addedProducts.valuesOf(name);
    const given = added.map((_, j) => valueOf(j));
    const numbers = given.map(numericValue);
    const hasText = given.some((v) => textValues(v).length > 0);
    let text = field.text;
    if (isNew && name !== IMAGE_VECTOR_FIELD && hasText) text = emptyTextColumn(n);
    const valueCounts = appendedCounts(field.valueCounts, given);
    const kind = isNew ? fieldKindOf(valueCounts!, text !== undefined) : field.kind;
    if (isNew && isFullTextField({ name, kind }, fullTextIds.length, fieldWeights)) {
      fullTextNumber.set(fid, fullTextIds.length);
      fullTextIds.push(fid);
      for (const perField of docTerms) perField.push([]);
    }
    if (text?.single && name === 'refId') {
      // refId codes are doc ids (see buildTextColumn); the arrays and the dictionary grow in place.
      const refIds = base.dictionaries[fid].writer();
      yield* refIds.reserveSteps(k);
      for (const p of added) refIds.add(p.refId);
      const single = text.single.constructor === singleCodesType(N) ? extendShared(text.single, N) : copySingleCodes(text.single, N, N);
      const valueDocs = extendShared(text.valueDocs, N);
      const valueOffsets = extendShared(text.valueOffsets, N + 1);
      for (let d = n; d < N; d++) { single[d] = d; valueDocs[d] = d; valueOffsets[d + 1] = d + 1; }
      text = { single, dictSize: N, valueOffsets, valueDocs };
      dictionaries[fid] = refIds.dictionary();
      yield;
    } else if (text && !hasText) {
      // No new doc has a value: the dictionary is unchanged.
      text = appendTextColumn(text, n, added.map(() => []), text.dictSize);
    } else if (text) {
      // New values get the next codes (first-seen order, as a rebuild gives them), written after the
      // previous version's in the shared store; its value table finds the old ones (dictionary.ts).
      const values = (isNew ? Dictionary.empty() : base.dictionaries[fid]).writer();
      let newValues = 0;
      for (const v of given) newValues += textValues(v).length;
      yield* values.reserveSteps(newValues);
      const docCodes: number[][] = [];
      const f = fullTextNumber.get(fid);
      // Each distinct value's words are numbered once per batch (a build tokenises each code once).
      const termsOfCode = new Map<number, readonly number[]>();
      for (let j = 0; j < k; j++) {
        const codes: number[] = [];
        for (const value of distinctTexts(given[j])) codes.push(values.codeFor(value));
        docCodes.push(codes);
        if (f === undefined) continue;
        const terms = docTerms[j][f];
        for (const c of codes) {
          let ids = termsOfCode.get(c);
          if (!ids) termsOfCode.set(c, ids = tokenize(values.at(c)).map((word) => numbering.idOf(word)));
          // A loop, not a spread: a long text would overflow the stack as call arguments.
          for (const t of ids) terms.push(t);
        }
      }
      const sortRank = text.sortRank;
      dictionaries[fid] = values.dictionary();
      // New values are ranked among the old ones (text sorts): no sort of the whole dictionary again.
      text = appendTextColumn(text, n, docCodes, values.size);
      if (sortRank && !text.sortRank) text.sortRank = yield* extendedSortRanksSteps(sortRank, dictionaries[fid]);
    }
    // Numbers after text: the column reads through the appended text codes when it can (numeric-column.ts).
    const numeric = appendedNumericColumn(field.numeric, field.text, text, dictionaries[fid] ?? Dictionary.empty(), n, numbers);
    // The order lists the docs having a value: unchanged when no new doc has one; else the new docs are
    // merged in when a search first needs it (`orderBase`): a copy of a million entries per numeric
    // field and one-product append was most of an append's cost at 1M with a data directory (its
    // snapshots derive every numeric field's order).
    const grows = numbers.some((x) => x === x);
    const order = grows ? undefined : field.order;
    const orderBase = !grows ? field.orderBase : field.order ? { order: field.order, docs: n } : field.orderBase;
    fields.push({ name, kind, text, numeric, order, valueCounts, ...(orderBase && { orderBase }) });
    // A new field without text values has an empty dictionary (one with them was set above).
    if (dictionaries.length === fid) dictionaries.push(Dictionary.empty());
    yield;
  }
  const { fullText, vocabulary, termMasks } = yield* appendFullText(base, n, docTerms, numbering, fullTextIds);
  const vectors = yield* appendVectorsSteps(base.vectors, added, n);
  const store = yield* base.store.appended(added, { fields, fieldByName, dictionaries, vectors });
  const tombstoneBits = appendedTombstoneBits(base.index, N);
  const ordinal = yield* appendedOrdinals(base.index.ordinal, added, n, places);
  const state: CatalogState = {
    index: {
      catalogId: base.index.catalogId, version, docCount: N, fields, fullText, ...tombstoneBits, ...ordinal,
    },
    store,
    // The new refIds were added to the refId dictionary above (its table is the map): nothing to copy.
    docByRefId: new RefIdDocs(dictionaries[fieldByName.get('refId')!], tombstoneBits.deleted, base.docByRefId.size + k),
    fieldByName,
    dictionaries,
    vocabulary,
    termMasks,
    vectors,
    tombstones: base.tombstones && withFullTextFields(base.tombstones, fullTextIds.length),
  };
  yield* carryDerivedSteps(base, state);
  return state;
}

/**
 * The product order with docs `n ..` (the `added` products) appended: a product taking the place of one it replaces (`places`:
 * refId → place) keeps that place, a new one is placed by its doc id (after every other).
 */
function* appendedOrdinals(
  ordinal: Uint32Array | undefined, added: readonly Product[], n: number, places: ReadonlyMap<string, number> | undefined,
): Steps<Pick<CatalogIndex, 'ordinal'>> {
  if (!ordinal && (!places || places.size === 0)) return {};
  const N = n + added.length;
  let out: Uint32Array;
  if (ordinal) out = extendShared(ordinal, N);
  else {
    out = growableArray(Uint32Array, N);
    // The first product put in another's place numbers every doc: in one step, it was 58 ms of the
    // samples of a 121 ms stall of a changed title at 1M, at load 4-5 (decisions/0065).
    for (let d = 0; d < n; d++) {
      out[d] = d;
      if ((d & STEP_MASK) === STEP_MASK) yield;
    }
  }
  for (let d = n; d < N; d++) out[d] = places?.get(added[d - n].refId) ?? d;
  return { ordinal: out };
}

/** The deleted-doc bitset grown to `N` docs (new docs are live); the list of deleted docs is unchanged. */
function appendedTombstoneBits(index: CatalogIndex, N: number): Pick<CatalogIndex, 'deleted' | 'deletedDocs'> {
  if (!index.deleted) return {};
  return { deleted: extendShared(index.deleted, (N + 31) >>> 5), deletedDocs: index.deletedDocs };
}


