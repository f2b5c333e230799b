/**
 * Word proximity and order: how closely, and in which order, a product's text holds the query words.
 * Used to re-rank the best matches on the calling thread (see assemble-payload.ts). The words of the
 * heavy fields' values come from the build (catalog/full-text/value-words.ts: term ids, no tokenising per
 * search); a version or field without them is re-tokenised, which finds the same words.
 * @module
 */
import { lowerBound, type CatalogState } from '../catalog/catalog-index.js';
import { textValues } from '../catalog/field-values.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { HEAVY_FIELD_SHARE, MAX_WORDS_PER_VALUE, VALUE_BREAK, valueWords } from '../catalog/full-text/value-words.js';

export { HEAVY_FIELD_SHARE };

/** Largest proximity bonus: below one match tier (1000), so exactness always ranks first. */
export const PROXIMITY_MAX_BONUS = 500;

/** Score of a pair of consecutive query words found `d` words apart (negative: in reverse order). */
function pairScore(d: number): number {
  if (d === 1 || d === 0) return 1; // side by side in order (0: one term matches both, a phrase synonym)
  if (d === 2 || d === -1) return 0.5;
  if (d >= -3 && d <= 4) return 0.25;
  return 0;
}

/**
 * The proximity of `words` query words in the words of one doc's field, value by value: `reset`, then
 * `addWords` for each value (or run of values), then `score`: the mean over consecutive
 * query word pairs (i, i+1) of the best pair score, in [0, 1]. Words are strings or term ids, as
 * `termWords` (word → mask of the query words it matches) is keyed. Reused across docs: no allocation
 * per doc.
 */
export class ProximityScan<W> {
  private readonly best: Float64Array;
  private readonly last: Int32Array;
  /**
   * With term ids: bit `id & 255` set for each term id of `termWords` (undefined with strings). Most
   * words of a title are none of the query's terms: one read passes them over where a map look-up
   * would find nothing; a word whose bit is set is looked up.
   */
  private readonly idBits: Uint32Array | undefined;
  private pos = 0;
  constructor(private readonly termWords: ReadonlyMap<W, number>, private readonly words: number) {
    this.best = new Float64Array(Math.max(0, words - 1));
    this.last = new Int32Array(words);
    this.idBits = idBitsOf(termWords);
  }

  reset(): void {
    // Loops, not `fill`: a few entries, and `fill` is a call out of the optimised code (once per doc and field).
    const { best, last } = this;
    for (let j = 0; j < best.length; j++) best[j] = 0;
    for (let j = 0; j < last.length; j++) last[j] = -1_000_000;
    this.pos = 0;
  }

  /**
   * Adds the words `tokens[from .. to)` of one value, or of several separated by `breakMark`
   * ({@link VALUE_BREAK} unless the list says otherwise; at most {@link MAX_WORDS_PER_VALUE} per value
   * are read).
   */
  addWords(tokens: ArrayLike<W | typeof VALUE_BREAK>, from: number, to: number, breakMark: W | typeof VALUE_BREAK = VALUE_BREAK): void {
    const { best, last, words, termWords, idBits } = this;
    let start = this.pos;
    let pos = start;
    for (let t = from; t < to; t++) {
      const word = tokens[t];
      if (word === breakMark) {
        start += MAX_WORDS_PER_VALUE;
        pos = start;
        continue;
      }
      if (pos - start >= MAX_WORDS_PER_VALUE) continue;
      pos++;
      // Not the break mark: a word (a term id when idBits is defined).
      if (idBits !== undefined && (idBits[((word as number) >>> 5) & 7] & (1 << ((word as number) & 31))) === 0) continue;
      const mask = termWords.get(word as W);
      if (mask === undefined) continue;
      const at = pos - 1;
      for (let j = 0; j < words; j++) {
        if ((mask & (1 << j)) === 0) continue;
        if (j > 0) {
          const s = (mask & (1 << (j - 1))) !== 0 ? 1 : pairScore(at - last[j - 1]);
          if (s > best[j - 1]) best[j - 1] = s;
        }
        if (j + 1 < words) {
          const s = pairScore(last[j + 1] - at);
          if (s > best[j]) best[j] = s;
        }
      }
      for (let j = 0; j < words; j++) if ((mask & (1 << j)) !== 0) last[j] = at;
    }
    // Values of a multi-valued field are not neighbours: the next one starts a full value further.
    this.pos = start + MAX_WORDS_PER_VALUE;
  }

  score(): number {
    if (this.words < 2) return 0;
    let sum = 0;
    for (let j = 0; j < this.words - 1; j++) sum += this.best[j];
    return sum / (this.words - 1);
  }
}

/** {@link ProximityScan}'s bits of the term ids of `termWords`; undefined when a key is no number. */
function idBitsOf<W>(termWords: ReadonlyMap<W, number>): Uint32Array | undefined {
  const bits = new Uint32Array(8);
  for (const key of termWords.keys()) {
    if (typeof key !== 'number') return undefined;
    bits[(key >>> 5) & 7] |= 1 << (key & 31);
  }
  return bits;
}

/** The proximity of `words` query words in a field's values (each a list of words): see {@link ProximityScan}. */
export function proximityOf<W>(values: readonly ArrayLike<W>[], termWords: ReadonlyMap<W, number>, words: number): number {
  const scan = new ProximityScan(termWords, words);
  scan.reset();
  for (const tokens of values) scan.addWords(tokens, 0, tokens.length);
  return scan.score();
}

/** Stands for a word that is no term of the vocabulary (it matches no query word; not a value break). */
const NOT_A_TERM = -2;

/**
 * The words of a doc's field (per value, as term ids) when the build kept none for it, per catalog
 * version: re-ranking the same popular products query after query does not tokenise them again.
 * Bounded: emptied when it reaches the limit.
 */
const tokenCache = new WeakMap<CatalogState, Map<number, Int32Array[]>>();
const TOKEN_CACHE_LIMIT = 50_000;

function fieldWordIds(state: CatalogState, doc: number, field: number, name: string): Int32Array[] {
  let cache = tokenCache.get(state);
  if (!cache) tokenCache.set(state, (cache = new Map()));
  const key = doc * 256 + field; // at most 255 full-text fields
  let values = cache.get(key);
  if (!values) {
    if (cache.size >= TOKEN_CACHE_LIMIT) cache.clear();
    const { vocabulary } = state;
    values = textValues(state.store.valueOf(doc, name)).map((v) => Int32Array.from(tokenize(v).slice(0, MAX_WORDS_PER_VALUE), (w) => {
      const t = lowerBound(vocabulary, w);
      return vocabulary[t] === w ? t : NOT_A_TERM;
    }));
    cache.set(key, values);
  }
  return values;
}

/**
 * The proximity bonus of each doc: the best over the heavy full-text fields (weight at least
 * {@link HEAVY_FIELD_SHARE} of the largest: by default the title only) of proximity × weight / largest
 * weight, times {@link PROXIMITY_MAX_BONUS}. `termWords`: per term id a query word matches, the mask of
 * those words.
 */
export function proximityBonuses(
  state: CatalogState, docs: ArrayLike<number>, fieldWeights: readonly number[], termWords: ReadonlyMap<number, number>, words: number,
): Float64Array {
  const bonuses = new Float64Array(docs.length);
  const { fieldIds } = state.index.fullText;
  let maxWeight = 0;
  for (const w of fieldWeights) if (w > maxWeight) maxWeight = w;
  if (maxWeight <= 0) return bonuses;
  const scan = new ProximityScan(termWords, words);
  const fields: { factor: number; addWords: (doc: number) => void }[] = [];
  fieldIds.forEach((fid, f) => {
    if (!(fieldWeights[f] > 0 && fieldWeights[f] >= maxWeight * HEAVY_FIELD_SHARE)) return;
    const { name, text } = state.index.fields[fid];
    const kept = text && valueWords(text, state.vocabulary);
    const factor = fieldWeights[f] / maxWeight;
    if (kept) {
      const { offsets, ids, breakMark } = kept;
      fields.push({ factor, addWords: (doc) => scan.addWords(ids, offsets[doc], offsets[doc + 1], breakMark) });
    } else {
      fields.push({ factor, addWords: (doc) => { for (const ids of fieldWordIds(state, doc, f, name)) scan.addWords(ids, 0, ids.length); } });
    }
  });
  for (let i = 0; i < docs.length; i++) {
    let bonus = 0;
    for (const { factor, addWords } of fields) {
      if (factor <= bonus) continue;
      scan.reset();
      addWords(docs[i]);
      const p = scan.score() * factor;
      if (p > bonus) bonus = p;
    }
    bonuses[i] = bonus * PROXIMITY_MAX_BONUS;
  }
  return bonuses;
}
