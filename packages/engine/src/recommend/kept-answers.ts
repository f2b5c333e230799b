/**
 * The answers a website's models gave, kept for the same request while nothing they were computed from
 * has changed (decision 0091). A busy storefront asks the same thing over and over — PopularItems on
 * every home page, the same product page's recommendations — and between two events the models answer
 * it the same way: the cascade, the redundancy re-ranking and the slots were most of a recommendation's
 * time in the engine. What an answer is computed from is named by its {@link AnswerBasis}; any change of
 * it drops every kept answer, so a kept answer is always the one a computation would give.
 * @module
 */
import type { RecommendationSlot, RecommendResponse } from '../types.js';

/** A method's answer without the list id the engine adds (recommendation-models.ts). */
type Answer = Omit<RecommendResponse, 'queryId'>;

/**
 * What every answer is computed from, besides its request: the events applied and the settings set
 * (`changes`, counted by the models), the catalog version (what exists, what is in stock), the popularity
 * ranking's generation (−1 while a recomputation is due: the ranking changes with time once events
 * came), and the derived indexes answering now (compared by identity: a background build swaps them).
 */
export interface AnswerBasis {
  changes: number;
  catalogVersion: number;
  ranking: number;
  attributes: unknown;
  visual: unknown;
}

/** Most answers kept per website: beyond, all are dropped and kept again as asked. */
export const MAX_KEPT_ANSWERS = 1024;

function sameBasis(a: AnswerBasis, b: AnswerBasis): boolean {
  return a.changes === b.changes && a.catalogVersion === b.catalogVersion && a.ranking === b.ranking && a.attributes === b.attributes && a.visual === b.visual;
}

/** A copy of a slot: the caller may change what it is given. Pure. */
function copySlot(slot: RecommendationSlot): RecommendationSlot {
  const copy: RecommendationSlot = { refId: slot.refId, tacticLabel: slot.tacticLabel, tacticId: slot.tacticId };
  if (slot.retailMedia !== undefined) copy.retailMedia = structuredClone(slot.retailMedia);
  if (slot.retailBoost !== undefined) copy.retailBoost = { ...slot.retailBoost };
  return copy;
}

/** A copy of an answer (its lists and slots too): neither the kept one nor the caller's changes the other. Pure. */
export function copyAnswer(answer: Answer): Answer {
  return { type: answer.type, code: answer.code, payload: answer.payload.slice(), slots: answer.slots.map(copySlot), recommenderId: answer.recommenderId };
}

/** The kept answers of one website's models (see the module comment). */
export class KeptAnswers {
  private basis: AnswerBasis | undefined;
  private readonly answers = new Map<string, Answer>();

  /** A copy of the answer kept for `request` under `basis`, or undefined (a changed basis drops them all). */
  get(request: string, basis: AnswerBasis): Answer | undefined {
    if (this.basis === undefined || !sameBasis(this.basis, basis)) {
      this.answers.clear();
      this.basis = basis;
      return undefined;
    }
    const kept = this.answers.get(request);
    return kept === undefined ? undefined : copyAnswer(kept);
  }

  /** Keeps a copy of `answer` for `request`, computed under `basis` (read after the computation: it may have moved it). */
  keep(request: string, basis: AnswerBasis, answer: Answer): void {
    if (this.basis === undefined || !sameBasis(this.basis, basis)) {
      this.answers.clear();
      this.basis = basis;
    }
    if (this.answers.size >= MAX_KEPT_ANSWERS) this.answers.clear();
    this.answers.set(request, copyAnswer(answer));
  }
}
