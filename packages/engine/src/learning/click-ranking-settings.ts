/**
 * `settings.clickRanking` with its defaults filled in (the schema is in contract/settings-schema.ts).
 * @module
 */
import type { ClickRankingSetting } from '../contract/settings-schema.js';

/** `settings.clickRanking` once on, every key filled in. */
export interface ClickRanking {
  /** Weight of the click evidence in the click stage's blend (see search/rerank.ts). */
  weight: number;
  /** Distinct sessions that must have searched a query (first page) before its clicks re-rank it. */
  minSessions: number;
  /** Days after which a shopper's evidence counts half. */
  halfLifeDays: number;
}

/** The values `true` stands for (DESIGN.md, "Learning to rank from shoppers"). */
export const DEFAULT_CLICK_RANKING: Readonly<ClickRanking> = Object.freeze({ weight: 1, minSessions: 5, halfLifeDays: 30 });

/** The click ranking in force: undefined when off, else every key filled in. Pure. */
export function clickRankingOf(setting: ClickRankingSetting | undefined): ClickRanking | undefined {
  if (!setting) return undefined;
  return setting === true ? { ...DEFAULT_CLICK_RANKING } : { ...DEFAULT_CLICK_RANKING, ...setting };
}
