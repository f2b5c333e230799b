/**
 * The answers a website's models gave, kept for the same request while nothing they were computed from
 * has changed (decision 0091). A busy storefront asks the same thing over and over — PopularItems on
 * every home page, the same product page's recommendations — and between two events the models answer
 * it the same way: the cascade, the redundancy re-ranking and the slots were most of a recommendation's
 * time in the engine. What an answer is computed from is named by its {@link AnswerBasis}; any change of
 * it drops every kept answer, so a kept answer is always the one a computation would give.
 *
 * The answers of one kept answer share its lists: `payload`, `slots` and each slot are frozen when the
 * answer is kept, and every answer of the request is a new object holding those frozen lists (decision
 * 0094). Copying them for each answer, so that a caller might change its own, cost ~0.25 µs of a
 * ~1.5 µs recommendation; shared, they also let a serialiser write a kept answer's JSON once (the HTTP
 * adapter's codecs). A caller that wants to change a list copies it.
 * @module
 */
import type { RecommendResponse } from '../types.js';

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

/** Freezes an answer's lists and slots in place: from now on they are shared by every answer of its request. */
function freezeLists(answer: Answer): void {
  for (const slot of answer.slots) {
    if (slot.retailMedia !== undefined) Object.freeze(slot.retailMedia);
    if (slot.retailBoost !== undefined) Object.freeze(slot.retailBoost);
    Object.freeze(slot);
  }
  Object.freeze(answer.slots);
  Object.freeze(answer.payload);
}

/** A new answer holding the kept one's frozen lists (new: the engine adds the list id to each answer). Pure. */
export function shareAnswer(kept: Answer): Answer {
  return { type: kept.type, code: kept.code, payload: kept.payload, slots: kept.slots, recommenderId: kept.recommenderId };
}

/** The kept answers of one website's models (see the module comment). */
export class KeptAnswers {
  private basis: AnswerBasis | undefined;
  private readonly answers = new Map<string, Answer>();

  /** An answer sharing the lists kept for `request` under `basis`, or undefined (a changed basis drops them all). */
  get(request: string, basis: AnswerBasis): Answer | undefined {
    if (this.basis === undefined || !sameBasis(this.basis, basis)) {
      this.answers.clear();
      this.basis = basis;
      return undefined;
    }
    const kept = this.answers.get(request);
    return kept === undefined ? undefined : shareAnswer(kept);
  }

  /**
   * Keeps `answer` for `request`, computed under `basis` (read after the computation: it may have moved
   * it). Its lists are frozen in place: the caller that computed it holds the same lists as later ones.
   */
  keep(request: string, basis: AnswerBasis, answer: Answer): void {
    if (this.basis === undefined || !sameBasis(this.basis, basis)) {
      this.answers.clear();
      this.basis = basis;
    }
    if (this.answers.size >= MAX_KEPT_ANSWERS) this.answers.clear();
    freezeLists(answer);
    this.answers.set(request, shareAnswer(answer));
  }
}
