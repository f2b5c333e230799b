/**
 * Full-text matching over one doc range as compact, doc-sorted lists (doc ids + scores): each query
 * word merges the posting lists of its terms (pairwise, by doc), keeping per doc the best term score;
 * words are intersected with two pointers, summing scores. Everything is sequential over arrays as
 * long as the hits, so cost follows the hits, not the catalog size (no catalog-sized scratch whose
 * random writes miss the cache).
 * @module
 */
import { normsOf } from '../catalog/full-text/norm-keys.js';
import type { CatalogIndex, PostingSegment } from '../catalog/catalog-index.js';
import { gallop, seek } from './doc-seek.js';
import { termDocBits } from './term-docs.js';
import type { PlanTerms, PlanWord, SearchPlan } from './search-plan.js';
import { MATCH_TIER, termScore } from './term-score.js';
import { MAX_WALKED_PAIRS, walkTermPair } from './every-word-walk.js';

/** Docs (ascending) and their scores; the first `length` entries are used. */
export interface TextMatches {
  docs: Int32Array;
  scores: Float64Array;
  length: number;
}

/**
 * A list while matching: docs (ascending) and their scores in entries `[at, at + length)` of its
 * arrays, which it may share with other lists (see {@link newRun}).
 */
interface Run {
  docs: Int32Array;
  scores: Float64Array;
  at: number;
  length: number;
}

/**
 * Entries of the scratch buffers a thread keeps for the lists of one matching (at 12 bytes an entry,
 * 3 MB at most). Lists fit there but for searches with more hits, which allocate their own.
 */
const SCRATCH_LIMIT = 1 << 18;
/** Entries of the first scratch buffers (grown by doubling up to {@link SCRATCH_LIMIT}). */
const SCRATCH_START = 1 << 12;

/**
 * The lists of one matching (per term, merged, intersected) are ranges of buffers the thread keeps and
 * its next matching reuses, not typed arrays of their own: allocating, zero-filling and collecting
 * those cost more than the scoring of a typical query (and `subarray` views, a runtime call each, as
 * much again: a list is a range of the arrays it names). Safe because a matching runs synchronously
 * and what it returns is read, and what must outlive it copied, before the thread's next matching
 * starts ({@link startMatching}). Lists that outgrow the buffers go to bigger ones (the old ones stay
 * valid for the lists already in them).
 */
let scratchDocs = new Int32Array(0);
let scratchScores = new Float64Array(0);
let scratchUsed = 0;

/** Starts a matching: the lists of the previous one are dead. */
function startMatching(): void {
  scratchUsed = 0;
}

/** An empty list with room for `n` entries. */
function newRun(n: number): Run {
  if (scratchUsed + n > scratchDocs.length) {
    const size = Math.max(SCRATCH_START, 2 * scratchDocs.length, n);
    if (size > SCRATCH_LIMIT) return { docs: new Int32Array(n), scores: new Float64Array(n), at: 0, length: 0 };
    scratchDocs = new Int32Array(size);
    scratchScores = new Float64Array(size);
    scratchUsed = 0;
  }
  const at = scratchUsed;
  scratchUsed += n;
  return { docs: scratchDocs, scores: scratchScores, at, length: 0 };
}

/** A list with no entry (its own object: intersections set `length`). */
function emptyRun(): Run {
  return { docs: scratchDocs, scores: scratchScores, at: 0, length: 0 };
}

/** A run as the matches the callers read (entries from 0): a view when the run does not start at 0. */
function asMatches(run: Run): TextMatches {
  if (run.at === 0) return { docs: run.docs, scores: run.scores, length: run.length };
  const end = run.at + run.length;
  return { docs: run.docs.subarray(run.at, end), scores: run.scores.subarray(run.at, end), length: run.length };
}

/**
 * Posting `i` of `segment` normalised with `averages` (the live docs' mean lengths): the norm of its key
 * (norm-keys.ts) — what {@link scorePostings} sums per doc.
 */
export function normalisedPosting(index: CatalogIndex, segment: PostingSegment, averages: readonly number[], i: number): number {
  return normsOf(index.fullText.normKeys, averages)[segment.postKey[i]];
}

/**
 * Per word, the doc bitsets of its terms' main postings over the range matched (term-docs.ts): a doc of
 * the main postings having none of a word's terms is passed over unscored (it cannot match every word).
 */
interface DocFilter {
  words: readonly (readonly Uint32Array[])[];
  /** `lo >>> 5` of the range matched: doc `d`'s bit is in word `(d >>> 5) - firstWord` of a bitset. */
  firstWord: number;
}

/** Whether `doc` has, for every word of `filter`, a bit set in one of its terms' bitsets. */
function passesFilter(filter: DocFilter, doc: number): boolean {
  const word = (doc >>> 5) - filter.firstWord;
  const bit = 1 << (doc & 31);
  for (const terms of filter.words) {
    let found = false;
    for (const bits of terms) {
      if (word < bits.length && (bits[word] & bit) !== 0) { found = true; break; }
    }
    if (!found) return false;
  }
  return true;
}

/**
 * The docs of one term's postings in [lo, hi) with the term's score (tier + BM25F) per doc: those of
 * the main postings (those `filter` passes), then those of the tail (appended docs, all higher).
 */
function matchTerm(index: CatalogIndex, weighted: Float64Array, word: PlanTerms, t: number, lo: number, hi: number, filter?: DocFilter): Run {
  const main = index.fullText;
  const tail = main.tail;
  const id = word.termIds[t];
  const mainHi = tail ? Math.min(hi, tail.fromDoc) : hi;
  const i = seek(main.postDocs, main.termOffsets[id], main.termOffsets[id + 1], lo);
  const end = mainHi > lo ? seek(main.postDocs, i, main.termOffsets[id + 1], mainHi) : i;
  let ti = 0;
  let tend = 0;
  if (tail && hi > tail.fromDoc) {
    ti = seek(tail.postDocs, tail.termOffsets[id], tail.termOffsets[id + 1], Math.max(lo, tail.fromDoc));
    tend = seek(tail.postDocs, ti, tail.termOffsets[id + 1], hi);
  }
  const out = newRun(end - i + tend - ti);
  scorePostings(index, weighted, word, t, main, i, end, out, filter);
  if (tend > ti) scorePostings(index, weighted, word, t, tail!, ti, tend, out);
  return out;
}

// Per plan's field weights (one array per plan, on each thread), the weighted norms of the last means.
const weightedNorms = new WeakMap<readonly number[], { norms: Float64Array; weighted: Float64Array }>();

/**
 * Per norm key, the weight of its field times its norm (with the live docs' means when appends or
 * deletes moved them, else the build's); 0 for a field of weight 0, which adds nothing. The scoring
 * loop then reads one table per entry, and sums the same products in the same order as summing
 * `weight * norm` per entry would.
 */
export function weightedNormsOf(index: CatalogIndex, plan: Pick<SearchPlan, 'fieldWeights' | 'lengthAverages'>): Float64Array {
  const { normKeys, avgFieldLengths } = index.fullText;
  const norms = normsOf(normKeys, plan.lengthAverages ?? avgFieldLengths);
  const weights = plan.fieldWeights;
  const cached = weightedNorms.get(weights);
  if (cached && cached.norms === norms) return cached.weighted;
  const weighted = new Float64Array(norms.length);
  for (let key = 0; key < norms.length; key++) {
    const weight = weights[normKeys.keyFields[key]];
    weighted[key] = weight > 0 ? weight * norms[key] : 0;
  }
  weightedNorms.set(weights, { norms, weighted });
  return weighted;
}

/** Appends to `out` the docs of entries `[i, end)` of `segment` (one term's) with their scores, but those `filter` does not pass. */
function scorePostings(
  index: CatalogIndex, weighted: Float64Array, word: PlanTerms, t: number, segment: PostingSegment, i: number, end: number, out: Run, filter?: DocFilter,
): void {
  const { postDocs, postKey } = segment;
  const tier = word.qualities[t] * MATCH_TIER;
  const idf = word.idfs[t];
  const { docs, scores } = out;
  const deleted = index.deleted;
  let k = out.at + out.length;
  while (i < end) {
    const d = postDocs[i];
    if ((deleted !== undefined && (deleted[d >>> 5] & (1 << (d & 31))) !== 0) || (filter !== undefined && !passesFilter(filter, d))) {
      do i++; while (i < end && postDocs[i] === d);
      continue;
    }
    // The term's entries for doc d are contiguous (one per field): BM25F sums them.
    let tfw = 0;
    do tfw += weighted[postKey[i++]];
    while (i < end && postDocs[i] === d);
    if (tfw > 0) {
      docs[k] = d;
      scores[k++] = termScore(tier, idf, tfw);
    }
  }
  out.length = k - out.at;
}

/** Union of two doc-sorted lists, keeping the higher score for a doc in both. */
function mergeBest(a: Run, b: Run): Run {
  const out = newRun(a.length + b.length);
  const { docs, scores } = out;
  const { docs: aDocs, scores: aScores } = a;
  const { docs: bDocs, scores: bScores } = b;
  let i = a.at;
  let j = b.at;
  const aEnd = a.at + a.length;
  const bEnd = b.at + b.length;
  let k = out.at;
  while (i < aEnd && j < bEnd) {
    const da = aDocs[i];
    const db = bDocs[j];
    if (da < db) { docs[k] = da; scores[k++] = aScores[i++]; }
    else if (da > db) { docs[k] = db; scores[k++] = bScores[j++]; }
    else { docs[k] = da; scores[k++] = Math.max(aScores[i++], bScores[j++]); }
  }
  while (i < aEnd) { docs[k] = aDocs[i]; scores[k++] = aScores[i++]; }
  while (j < bEnd) { docs[k] = bDocs[j]; scores[k++] = bScores[j++]; }
  out.length = k - out.at;
  return out;
}

/**
 * The docs of [lo, hi) having one of `terms`, each with its best term score. Each term's postings become
 * a list in one sequential pass; the lists are merged pairwise, smallest first, in rounds (every
 * step sequential; measured several times faster than a k-way heap merge).
 */
function matchTerms(index: CatalogIndex, weighted: Float64Array, terms: PlanTerms, lo: number, hi: number, extra: Run[] = [], filter?: DocFilter): Run {
  const lists: Run[] = extra;
  for (let t = 0; t < terms.termIds.length; t++) lists.push(matchTerm(index, weighted, terms, t, lo, hi, filter));
  return mergeAll(lists);
}

/** The union of `lists` keeping each doc's best score: merged pairwise, smallest first, in rounds (see {@link matchTerms}). */
function mergeAll(lists: Run[]): Run {
  if (lists.length === 0) return emptyRun();
  lists.sort((a, b) => a.length - b.length);
  while (lists.length > 1) {
    const next: Run[] = [];
    for (let i = 0; i < lists.length; i += 2) next.push(i + 1 < lists.length ? mergeBest(lists[i], lists[i + 1]) : lists[i]);
    lists = next;
  }
  return lists[0];
}

/**
 * The docs of [lo, hi) matching `word`: one of its terms, or every group of one of its phrase synonyms
 * (a phrase scores the mean of its groups' scores, so it ranks like one word).
 */
function matchWord(index: CatalogIndex, weighted: Float64Array, word: PlanWord, lo: number, hi: number): Run {
  const phraseLists = word.phrases.map((groups) => {
    const m = matchTerms(index, weighted, groups[0], lo, hi);
    for (let g = 1; g < groups.length && m.length > 0; g++) intersectInto(m, matchTerms(index, weighted, groups[g], lo, hi));
    for (let i = m.at; i < m.at + m.length; i++) m.scores[i] /= groups.length;
    return m;
  });
  return matchTerms(index, weighted, word, lo, hi, phraseLists);
}

/** Whether `doc` matches `word` (used for the dropped words of the best result). */
export function docMatchesWord(index: CatalogIndex, plan: SearchPlan, word: PlanWord, doc: number): boolean {
  startMatching();
  return matchWord(index, weightedNormsOf(index, plan), word, doc, doc + 1).length > 0;
}

/** Keeps in `into` the docs also in `other`, adding their scores (both lists ascending). */
function intersectInto(into: Run, other: Run): void {
  const { docs, scores } = into;
  const { docs: oDocs, scores: oScores } = other;
  let i = into.at;
  let j = other.at;
  const iEnd = into.at + into.length;
  const jEnd = other.at + other.length;
  let k = into.at;
  while (i < iEnd && j < jEnd) {
    const a = docs[i];
    const b = oDocs[j];
    if (a < b) i++;
    else if (a > b) j++;
    else {
      docs[k] = a;
      scores[k++] = scores[i++] + oScores[j++];
    }
  }
  into.length = k - into.at;
}

/** An upper bound of the docs matching `word`'s terms: the sum of their doc counts. */
function docsOfTerms(index: CatalogIndex, word: PlanTerms): number {
  let docs = 0;
  for (const id of word.termIds) docs += index.fullText.termDocFreq[id];
  return docs;
}

/**
 * The docs of [lo, hi) matching every one of `words` (none with phrases), scores summed in word order
 * as {@link intersectInto} sums them. The word with the fewest docs is matched as a list; every other
 * word is only looked up for the docs of that list ({@link probeWord}), instead of becoming a list of
 * all its own docs to intersect: a common word beside a rarer one costs the rarer one's docs, not its
 * own. Each doc's score is `((s0 + s1) + s2) …` over the words in query order, as when every word was
 * a list (a doc's score for a word, the best of its terms', does not depend on how it is found).
 * Two words of at most {@link MAX_WALKED_PAIRS} pairs of terms are walked pair by pair instead, a doc
 * scored only when both terms have it (every-word-walk.ts).
 */
function matchEveryWord(index: CatalogIndex, weighted: Float64Array, words: readonly PlanWord[], lo: number, hi: number): Run {
  let rarest = 0;
  let fewest = Infinity;
  words.forEach((word, w) => {
    const docs = docsOfTerms(index, word);
    if (docs < fewest) { fewest = docs; rarest = w; }
  });
  if (words.length === 2 && words[0].termIds.length * words[1].termIds.length <= MAX_WALKED_PAIRS) {
    // Two words of few terms: each pair of terms walked once (every-word-walk.ts), the lists merged.
    const { termOffsets, tail } = index.fullText;
    const rarer = words[rarest];
    const other = words[1 - rarest];
    const lists: Run[] = [];
    for (let t = 0; t < rarer.termIds.length; t++) {
      const id = rarer.termIds[t];
      const entries = termOffsets[id + 1] - termOffsets[id] + (tail ? tail.termOffsets[id + 1] - tail.termOffsets[id] : 0);
      for (let u = 0; u < other.termIds.length; u++) {
        const out = newRun(entries);
        walkTermPair(index, weighted, { word: rarer, t }, { word: other, t: u }, rarest === 0, lo, hi, out);
        lists.push(out);
      }
    }
    return mergeAll(lists);
  }
  // The rarest word's docs and scores: its list, narrowed in place. Its scores are the running sums when
  // it is the first word; else the sums are a list of their own (its scores join them at its place).
  // Its docs lacking another word are not even scored when that word's terms have doc bitsets.
  const found = matchTerms(index, weighted, words[rarest], lo, hi, [], docFilter(index, words, rarest, lo, hi));
  let n = found.length;
  const out = rarest === 0 ? found : newRun(n);
  const { docs, scores: sums, at } = out;
  if (out !== found) docs.set(found.docs.subarray(found.at, found.at + n), at);
  const { scores: rarestScores, at: rarestAt } = found;
  const { scores: best, at: bestAt } = newRun(n);
  for (let w = 0; w < words.length && n > 0; w++) {
    if (w === rarest) {
      // Every doc left has the word: its score joins the sums, no doc is dropped.
      if (w > 0) for (let c = 0; c < n; c++) sums[at + c] += rarestScores[rarestAt + c];
      continue;
    }
    // This word's score per doc left (-Infinity: the doc does not have it, and is dropped).
    best.fill(-Infinity, bestAt, bestAt + n);
    probeWord(index, weighted, words[w], lo, hi, { docs, at, n }, best, bestAt);
    const rarestLater = w < rarest;
    let k = 0;
    for (let c = 0; c < n; c++) {
      const score = best[bestAt + c];
      if (score === -Infinity) continue;
      docs[at + k] = docs[at + c];
      sums[at + k] = w === 0 ? score : sums[at + c] + score;
      if (rarestLater) rarestScores[rarestAt + k] = rarestScores[rarestAt + c];
      k++;
    }
    n = k;
  }
  out.length = n;
  return out;
}

/**
 * The bitsets over [lo, hi) of the words but `rarest` whose every term has one there (term-docs.ts);
 * undefined when no word has.
 */
function docFilter(index: CatalogIndex, words: readonly PlanWord[], rarest: number, lo: number, hi: number): DocFilter | undefined {
  const filtered: Uint32Array[][] = [];
  for (let w = 0; w < words.length; w++) {
    if (w === rarest) continue;
    const terms: Uint32Array[] = [];
    for (const id of words[w].termIds) {
      const bits = termDocBits(index.fullText, id, lo, hi);
      if (bits === undefined) break;
      terms.push(bits);
    }
    if (terms.length === words[w].termIds.length) filtered.push(terms);
  }
  return filtered.length > 0 ? { words: filtered, firstWord: lo >>> 5 } : undefined;
}

/** Docs `docs[at, at + n)`, ascending. */
interface DocRange {
  docs: Int32Array;
  at: number;
  n: number;
}

/**
 * Sets `best[bestAt + c]` to the best score of `word`'s terms in the c-th doc of `sought` (all live and
 * in the range [lo, hi) matched), leaving it where the doc has none of the terms. A term's postings are walked
 * from doc to doc, by galloping (steps growing while the postings stay below the doc sought) when they
 * are many more than the docs sought, else entry by entry.
 */
function probeWord(
  index: CatalogIndex, weighted: Float64Array, word: PlanTerms, lo: number, hi: number, sought: DocRange, best: Float64Array, bestAt: number,
): void {
  const main = index.fullText;
  const tail = main.tail;
  const { docs, at, n } = sought;
  // The docs of the main postings, then those of the tail (appended docs, all higher).
  const split = tail ? seek(docs, at, at + n, tail.fromDoc) - at : n;
  for (let t = 0; t < word.termIds.length; t++) {
    const id = word.termIds[t];
    const tier = word.qualities[t] * MATCH_TIER;
    const idf = word.idfs[t];
    const from = main.termOffsets[id];
    const to = main.termOffsets[id + 1];
    probeSegment(main, from, to, termDocBits(main, id, lo, hi), lo >>> 5, weighted, tier, idf, sought, 0, split, best, bestAt);
    if (tail && split < n) probeSegment(tail, tail.termOffsets[id], tail.termOffsets[id + 1], undefined, 0, weighted, tier, idf, sought, split, n, best, bestAt);
  }
}

/**
 * {@link probeWord} for one term's entries `[from, to)` of `segment` and the docs `[c0, c1)` of `sought`;
 * `bits`, when given, the term's doc bitset over the range matched (term-docs.ts; doc `d`'s bit in word
 * `(d >>> 5) - firstWord`): a doc whose bit is not set is passed over without a step through the entries.
 */
function probeSegment(
  segment: PostingSegment, from: number, to: number, bits: Uint32Array | undefined, firstWord: number, weighted: Float64Array, tier: number, idf: number,
  sought: DocRange, c0: number, c1: number, best: Float64Array, bestAt: number,
): void {
  const { postDocs, postKey } = segment;
  const { docs, at } = sought;
  // As many entries as docs sought, or not many more: the next one is a few entries on, stepped to.
  const dense = 4 * (c1 - c0) >= to - from;
  let i = from;
  for (let c = c0; c < c1 && i < to; c++) {
    const d = docs[at + c];
    if (bits !== undefined) {
      const word = (d >>> 5) - firstWord;
      if (word >= bits.length || (bits[word] & (1 << (d & 31))) === 0) continue;
    }
    if (dense) {
      while (i < to && postDocs[i] < d) i++;
      if (i >= to) break;
    } else if (postDocs[i] < d) {
      i = gallop(postDocs, i, to, d);
      if (i >= to) break;
    }
    if (postDocs[i] !== d) continue;
    let tfw = 0;
    do tfw += weighted[postKey[i++]];
    while (i < to && postDocs[i] === d);
    if (tfw > 0) {
      const score = termScore(tier, idf, tfw);
      if (score > best[bestAt + c]) best[bestAt + c] = score;
    }
  }
}

/** A list with, per entry, the number of words its doc matched (`counts[i]` for entry `at + i`). */
interface CountedRun extends Run {
  counts: Uint8Array;
}

/** Union of two counted lists, adding scores and counts of a doc in both. */
function mergeSum(a: CountedRun, b: CountedRun): CountedRun {
  const n = a.length + b.length;
  // Fields written out, not `{ ...newRun(n), counts }`: a spread followed by more properties takes
  // V8's slow clone path on Node 20 (decision 0046), once per pairwise merge.
  const run = newRun(n);
  const out: CountedRun = { docs: run.docs, scores: run.scores, at: run.at, length: 0, counts: new Uint8Array(n) };
  const { docs, scores, counts } = out;
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    const da = i < a.length ? a.docs[a.at + i] : 0x7fffffff;
    const db = j < b.length ? b.docs[b.at + j] : 0x7fffffff;
    if (da < db) { docs[out.at + k] = da; scores[out.at + k] = a.scores[a.at + i]; counts[k++] = a.counts[i++]; }
    else if (da > db) { docs[out.at + k] = db; scores[out.at + k] = b.scores[b.at + j]; counts[k++] = b.counts[j++]; }
    else { docs[out.at + k] = da; scores[out.at + k] = a.scores[a.at + i] + b.scores[b.at + j]; counts[k++] = a.counts[i++] + b.counts[j++]; }
  }
  out.length = k;
  return out;
}

/**
 * The docs of [lo, hi) matching every word of the plan (or at least `plan.minWords` of them), with
 * summed scores. The lists it returns are valid until the thread's next matching.
 */
export function matchText(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): TextMatches {
  startMatching();
  const weighted = weightedNormsOf(index, plan);
  if (plan.minWords >= plan.words.length) {
    if (plan.words.length > 1 && plan.words.every((w) => w.phrases.length === 0)) return asMatches(matchEveryWord(index, weighted, plan.words, lo, hi));
    let matches: Run | undefined;
    for (const word of plan.words) {
      const wordMatches = matchWord(index, weighted, word, lo, hi);
      if (!matches) matches = wordMatches;
      else intersectInto(matches, wordMatches);
      if (matches.length === 0) break;
    }
    return asMatches(matches ?? emptyRun());
  }
  // Fewer words than all: count per doc the words it matches, keep those with at least minWords.
  let lists: CountedRun[] = plan.words.map((w) => {
    const m = matchWord(index, weighted, w, lo, hi);
    return { ...m, counts: new Uint8Array(m.length).fill(1) };
  });
  lists.sort((a, b) => a.length - b.length);
  while (lists.length > 1) {
    const next: CountedRun[] = [];
    for (let i = 0; i < lists.length; i += 2) next.push(i + 1 < lists.length ? mergeSum(lists[i], lists[i + 1]) : lists[i]);
    lists = next;
  }
  const all = lists[0] ?? { ...emptyRun(), counts: new Uint8Array(0) };
  let k = 0;
  for (let i = 0; i < all.length; i++) {
    if (all.counts[i] >= plan.minWords) { all.docs[all.at + k] = all.docs[all.at + i]; all.scores[all.at + k++] = all.scores[all.at + i]; }
  }
  all.length = k;
  return asMatches(all);
}
