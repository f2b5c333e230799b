/**
 * Word proximity and order: how closely, and in which order, a product's text holds the query words.
 * Used to re-rank the best matches on the calling thread (see assemble-payload.ts), so the index needs
 * no word positions: the few hundred products re-ranked per query are re-tokenised instead.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import { textValues } from '../catalog/field-values.js';
import { tokenize } from '../catalog/tokenizer.js';

/** Largest proximity bonus: below one match tier (1000), so exactness always ranks first. */
export const PROXIMITY_MAX_BONUS = 500;
/** Fields whose weight is at least this share of the largest weight are looked at. */
export const HEAVY_FIELD_SHARE = 0.75;
/** Words of a value looked at (a title's words; a long description's first ones). */
const MAX_TOKENS_PER_VALUE = 64;

/** Score of a pair of consecutive query words found `d` words apart (negative: in reverse order). */
function pairScore(d: number): number {
  if (d === 1 || d === 0) return 1; // side by side in order (0: one term matches both, a phrase synonym)
  if (d === 2 || d === -1) return 0.5;
  if (d >= -3 && d <= 4) return 0.25;
  return 0;
}

/**
 * The proximity of `words` query words in the words of a field's values: the mean over consecutive word pairs
 * (i, i+1) of the best pair score, in [0, 1].
 */
export function proximityOf(
  values: readonly (readonly string[])[], termWords: ReadonlyMap<string, number>, words: number,
  best = new Float64Array(Math.max(0, words - 1)), last = new Int32Array(words),
): number {
  if (words < 2) return 0;
  best.fill(0);
  last.fill(-1_000_000);
  let pos = 0;
  for (const tokens of values) {
    const n = Math.min(tokens.length, MAX_TOKENS_PER_VALUE);
    for (let t = 0; t < n; t++, pos++) {
      const mask = termWords.get(tokens[t]);
      if (mask === undefined) continue;
      for (let j = 0; j < words; j++) {
        if ((mask & (1 << j)) === 0) continue;
        if (j > 0) {
          const s = (mask & (1 << (j - 1))) !== 0 ? 1 : pairScore(pos - last[j - 1]);
          if (s > best[j - 1]) best[j - 1] = s;
        }
        if (j + 1 < words) {
          const s = pairScore(last[j + 1] - pos);
          if (s > best[j]) best[j] = s;
        }
      }
      for (let j = 0; j < words; j++) if ((mask & (1 << j)) !== 0) last[j] = pos;
    }
    pos += MAX_TOKENS_PER_VALUE; // values of a multi-valued field are not neighbours
  }
  let sum = 0;
  for (let j = 0; j < words - 1; j++) sum += best[j];
  return sum / (words - 1);
}

/**
 * The words of a doc's field (per value), per catalog version: re-ranking the same popular products
 * query after query does not tokenise them again. Bounded: emptied when it reaches the limit.
 */
const tokenCache = new WeakMap<CatalogState, Map<number, string[][]>>();
const TOKEN_CACHE_LIMIT = 50_000;

function fieldTokens(state: CatalogState, doc: number, field: number, name: string): string[][] {
  let cache = tokenCache.get(state);
  if (!cache) tokenCache.set(state, (cache = new Map()));
  const key = doc * 256 + field; // at most 255 full-text fields
  let tokens = cache.get(key);
  if (!tokens) {
    if (cache.size >= TOKEN_CACHE_LIMIT) cache.clear();
    tokens = textValues((state.products.get(doc) as Record<string, unknown>)[name]).map((v) => tokenize(v));
    cache.set(key, tokens);
  }
  return tokens;
}

/**
 * The proximity bonus of each doc: the best over the heavy full-text fields (weight at least
 * {@link HEAVY_FIELD_SHARE} of the largest: by default the title only) of proximity × weight / largest
 * weight, times {@link PROXIMITY_MAX_BONUS}.
 */
export function proximityBonuses(
  state: CatalogState, docs: ArrayLike<number>, fieldWeights: readonly number[], termWords: ReadonlyMap<string, number>, words: number,
): Float64Array {
  const bonuses = new Float64Array(docs.length);
  const { fieldIds } = state.index.fullText;
  let maxWeight = 0;
  for (const w of fieldWeights) if (w > maxWeight) maxWeight = w;
  if (maxWeight <= 0) return bonuses;
  const fields: { f: number; name: string; factor: number }[] = [];
  fieldIds.forEach((fid, f) => {
    if (fieldWeights[f] > 0 && fieldWeights[f] >= maxWeight * HEAVY_FIELD_SHARE) fields.push({ f, name: state.index.fields[fid].name, factor: fieldWeights[f] / maxWeight });
  });
  // Scratch arrays reused for every doc and field.
  const best = new Float64Array(words - 1);
  const last = new Int32Array(words);
  for (let i = 0; i < docs.length; i++) {
    let bonus = 0;
    for (const { f, name, factor } of fields) {
      if (factor <= bonus) continue;
      const p = proximityOf(fieldTokens(state, docs[i], f, name), termWords, words, best, last) * factor;
      if (p > bonus) bonus = p;
    }
    bonuses[i] = bonus * PROXIMITY_MAX_BONUS;
  }
  return bonuses;
}
