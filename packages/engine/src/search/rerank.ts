/**
 * The re-rank stage of search: the one place where signals beyond the text match — the customer's
 * affinities (personalization) and semantic similarity — change the order of results. It reorders the
 * best results of the plain ranking (a window of {@link SEMANTIC_DEPTH}, or {@link PERSONALIZATION_DEPTH}
 * with personalization) and nothing else: the result set, the totals and the facets are those of the
 * plain search, and the same window is reordered the same way whatever page is asked, so paging stays
 * consistent.
 *
 * Blend: each candidate at plain position `i` (0-based) starts from the reciprocal-rank score
 * `K / (K + i)` (1 for the first; K = {@link RERANK_K}, the usual constant of reciprocal rank fusion),
 * plus `weight × signal` for each signal in [0, 1] (semantic: the cosine similarity, floored at 0;
 * personalization: the affinity). Ranks rather than raw BM25 scores are blended, so the weights mean the
 * same on every catalog and query, whatever the scoring of the text match (which may change): a signal
 * of weight 0.3 lifts a product that has it fully over those that have none by about as much as it
 * takes to climb from position 26 to 1.
 *
 * Stages, in this order (docs/learning.md, "Order of the re-rank stages"): merchandising rules act in
 * the plain ranking itself (boosts multiply relevance, hides take products out, pins are placed after
 * every stage and never move); then the click stage (learning/click-evidence.ts) reorders the best
 * {@link CLICK_DEPTH} by the same blend with the click signal alone, and its order is the plain order
 * the next blend starts from; then personalization and semantic similarity are blended together over
 * it. So what shoppers taught is corrected per customer and per meaning, not the reverse.
 * @module
 */
import type { Product } from '../types.js';
import type { RANK_STAGES } from '../contract/schemas.js';

/**
 * How many of the best plain-order results semantic similarity scores (each costs an embedding, cached).
 * Beyond it the plain ranking is trusted: a product past position 100 for the query's words rarely
 * becomes the best answer by similarity alone.
 */
export const SEMANTIC_DEPTH = 100;

/**
 * How many of the best plain-order results personalization may reorder: broad queries ("shirt") have
 * hundreds of equally good matches, and the customer's brand may first appear far down; an affinity is a
 * few map look-ups, so the window is wider (measured in docs/personalization.md).
 */
export const PERSONALIZATION_DEPTH = 500;

/**
 * How many of the best plain-order results the click stage reorders (at least the first 100, the
 * contract says; the evidence of a query rarely reaches further down).
 */
export const CLICK_DEPTH = 100;

/** Reciprocal-rank constant of the plain order's share of the blend. */
export const RERANK_K = 60;

/** One signal over the candidates: a value in [0, 1] per candidate (in plain order) and its weight. */
export interface RerankSignal {
  values: ArrayLike<number>;
  weight: number;
}

/**
 * The new order of `count` candidates (given in plain order) under the blend of the module doc: indexes
 * into the plain order, best first. Ties keep the plain order. Pure.
 */
export function blendOrder(count: number, signals: readonly RerankSignal[]): number[] {
  const score = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let s = RERANK_K / (RERANK_K + i);
    for (const sig of signals) {
      // A host embedder's NaN or infinite similarity counts as none (a NaN would break the sort).
      const v = sig.values[i];
      if (Number.isFinite(v)) s += sig.weight * v;
    }
    score[i] = s;
  }
  return Array.from({ length: count }, (_, i) => i).sort((a, b) => score[b] - score[a] || a - b);
}

/** A stage that re-ranks the plain order, as `settings.ranked_by` names it (in stage order). */
export type RankStage = (typeof RANK_STAGES)[number];

/** The outcome of a re-rank: the new order and the semantic model that took part, if one did. */
export interface RerankOutcome {
  /** Indexes into the candidates, best first. */
  order: readonly number[];
  /** `id@version` of the semantic model whose similarities were blended in (for `settings.ats_model`). */
  rankedBy?: string;
  /** The stages whose signal took part, in stage order. */
  stages: RankStage[];
}

/** A re-rank stage for one search: computes its signals over the candidates (best first). */
export interface SearchReranker {
  /** How many of the best plain-order results it reorders. */
  depth: number;
  /** `revisions[i]`: candidate i's revision (see product-store.ts), what per-product caches key by. */
  reorder(candidates: readonly Product[], revisions: ArrayLike<number>): Promise<RerankOutcome>;
}

/** What the stage blends for one search. */
export interface RerankInputs {
  /** Semantic similarity of the query to each candidate (undefined when the model cannot rank). */
  semantic?: { weight: number; scores: (candidates: readonly Product[], revisions: ArrayLike<number>) => Promise<{ label: string; similarities: ArrayLike<number> } | undefined> };
  /** The customer's affinity for a product, in [0, 1]. */
  personalization?: { weight: number; affinity: (product: Product) => number };
  /**
   * The click signal of each candidate, in [0, 1) (learning/click-evidence.ts); undefined when the
   * query has no evidence that may re-rank it (below its distinct sessions, or no clicks).
   */
  clicks?: { weight: number; signals: (candidates: readonly Product[]) => ArrayLike<number> | undefined };
}

/** Builds the re-rank stage from its inputs (see module doc); undefined when there is nothing to blend. */
export function makeReranker(inputs: RerankInputs): SearchReranker | undefined {
  const { semantic, personalization, clicks } = inputs;
  if (!semantic && !personalization && !clicks) return undefined;
  return {
    depth: personalization ? PERSONALIZATION_DEPTH : Math.max(SEMANTIC_DEPTH, clicks ? CLICK_DEPTH : 0),
    async reorder(all, allRevisions) {
      const stages: RankStage[] = [];
      // The click stage: its order is the plain order of the blend that follows.
      let base: readonly number[] | undefined;
      if (clicks && clicks.weight > 0 && all.length > 1) {
        const found = clicks.signals(all.slice(0, CLICK_DEPTH));
        if (found !== undefined && Array.prototype.some.call(found, (v: number) => v > 0)) {
          const values = new Float64Array(all.length);
          for (let i = 0; i < found.length && i < all.length; i++) values[i] = found[i]!;
          base = blendOrder(all.length, [{ values, weight: clicks.weight }]);
          stages.push('clicks');
        }
      }
      const candidates = base ? base.map((i) => all[i]!) : all;
      const revisions = base ? base.map((i) => allRevisions[i]!) : allRevisions;
      const signals: RerankSignal[] = [];
      let rankedBy: string | undefined;
      if (personalization && personalization.weight > 0) {
        signals.push({ values: candidates.map(personalization.affinity), weight: personalization.weight });
        stages.push('personalization');
      }
      if (semantic && semantic.weight > 0 && candidates.length > 1) {
        const scored = await semantic.scores(candidates.slice(0, SEMANTIC_DEPTH), Array.prototype.slice.call(revisions, 0, SEMANTIC_DEPTH) as number[]);
        if (scored) {
          // The cosine itself, not rescaled over the window: when every candidate is about as similar
          // (a precise query), the plain order stands; rescaling would turn noise into order (measured:
          // docs/semantic-search.md). Candidates past SEMANTIC_DEPTH count as unrelated (0).
          const values = new Float64Array(candidates.length);
          for (let i = 0; i < scored.similarities.length; i++) values[i] = Math.max(0, scored.similarities[i]);
          signals.push({ values, weight: semantic.weight });
          rankedBy = scored.label;
          stages.push('semantic');
        }
      }
      const blended = blendOrder(candidates.length, signals);
      return { order: base ? blended.map((j) => base[j]!) : blended, rankedBy, stages };
    },
  };
}
