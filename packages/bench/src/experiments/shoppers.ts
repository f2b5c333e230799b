/**
 * Simulated shoppers for the experiments evaluation (docs/experiments.md): known-item intents on a real
 * catalog, each answered by two rankings, and a position-based click model (Craswell et al. 2008):
 * a shopper examines rank k with probability 1/k, clicks an examined result with its attractiveness
 * (the wanted product or a product with the same title words: {@link RELEVANT_ATTRACTIVENESS}; any
 * other: {@link NOISE_ATTRACTIVENESS}, noisy clicks), and buys a wanted product it clicked with
 * {@link PURCHASE_AFTER_CLICK}. Because the model is explicit, every ranking's true click-through rate
 * is known exactly ({@link expectedCtr}), so an experiment's verdict can be checked against the truth.
 * Pure and seeded.
 * @module
 */
import { preferredTeam, teamDraftInterleave, type RatioSums, type UserSums } from '@aisle/engine/internal';

/** Chance of clicking an examined product the shopper wants. */
export const RELEVANT_ATTRACTIVENESS = 0.6;
/** Chance of clicking an examined product the shopper does not want (noise). */
export const NOISE_ATTRACTIVENESS = 0.05;
/** Chance of buying a wanted product after clicking it. */
export const PURCHASE_AFTER_CLICK = 0.25;

/** One shopper intent: the query's two rankings (top 10 refIds) and the products that satisfy it. */
export interface Intent {
  rankings: readonly [readonly string[], readonly string[]];
  relevant: ReadonlySet<string>;
  /** Price of each product of either ranking (revenue of a purchase). */
  prices: ReadonlyMap<string, number>;
}

/** Probability that rank `k` (1-based) is examined. */
export function examination(k: number): number {
  return 1 / k;
}

function clickChance(intent: Intent, refId: string, k: number, scale: number): number {
  const attractiveness = intent.relevant.has(refId) ? RELEVANT_ATTRACTIVENESS : NOISE_ATTRACTIVENESS;
  return examination(k) * Math.min(1, attractiveness * scale);
}

/** The exact probability that a search showing `ranking` gets at least one click. */
export function expectedCtr(intent: Intent, ranking: readonly string[], scale = 1): number {
  let none = 1;
  for (let i = 0; i < ranking.length; i++) none *= 1 - clickChance(intent, ranking[i]!, i + 1, scale);
  return 1 - none;
}

/** The true CTR of a variant: the mean of {@link expectedCtr} over the intents. */
export function trueCtr(intents: readonly Intent[], variant: 0 | 1, scale = 1): number {
  let sum = 0;
  for (const intent of intents) sum += expectedCtr(intent, intent.rankings[variant], scale);
  return sum / intents.length;
}

/**
 * The attractiveness scale that makes variant 0's true CTR `factor` times its own (a known effect,
 * e.g. 1.1 for +10 %), found by bisection (the CTR grows with the scale).
 */
export function scaleForCtr(intents: readonly Intent[], factor: number): number {
  const target = trueCtr(intents, 0) * factor;
  let low = 0;
  let high = 1 / NOISE_ATTRACTIVENESS;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (trueCtr(intents, 0, mid) < target) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** One arm of an A/B test: which ranking it shows and the attractiveness scale (1 = the model as is). */
export interface Arm {
  ranking: 0 | 1;
  scale: number;
}

/** Per-user outcomes of one arm, as an experiment report aggregates them. */
export interface ArmOutcome {
  users: number;
  /** The CTR's per-user sums (x: the user's searches with a click, y: the user's searches), as the report keeps them. */
  ctr: RatioSums;
  /** Users with at least one purchase. */
  converted: number;
  /** Per-user revenue. */
  revenue: UserSums;
}

const sumsOf = (): UserSums => ({ n: 0, sum: 0, sumSquares: 0 });
function add(s: UserSums, value: number): void {
  s.n++;
  s.sum += value;
  s.sumSquares += value * value;
}

/** Searches per user: 1 to 3, uniformly (returning shoppers search again). */
function searchesOf(random: () => number): number {
  return 1 + Math.floor(random() * 3);
}

/** Simulates `users` shoppers of one arm. */
export function simulateArm(intents: readonly Intent[], arm: Arm, users: number, random: () => number): ArmOutcome {
  const outcome: ArmOutcome = { users, ctr: { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 }, converted: 0, revenue: sumsOf() };
  for (let u = 0; u < users; u++) {
    const searches = searchesOf(random);
    let clicked = 0;
    let revenue = 0;
    let bought = false;
    for (let s = 0; s < searches; s++) {
      const intent = intents[Math.floor(random() * intents.length)]!;
      const ranking = intent.rankings[arm.ranking];
      let any = false;
      for (let i = 0; i < ranking.length; i++) {
        const refId = ranking[i]!;
        if (random() >= clickChance(intent, refId, i + 1, arm.scale)) continue;
        any = true;
        if (intent.relevant.has(refId) && random() < PURCHASE_AFTER_CLICK) {
          bought = true;
          revenue += intent.prices.get(refId) ?? 0;
        }
      }
      if (any) clicked++;
    }
    const c = outcome.ctr;
    Object.assign(c, { n: c.n + 1, x: c.x + clicked, y: c.y + searches, xx: c.xx + clicked * clicked, yy: c.yy + searches * searches, xy: c.xy + clicked * searches });
    add(outcome.revenue, revenue);
    if (bought) outcome.converted++;
  }
  return outcome;
}

/**
 * Simulates `users` shoppers of an interleaving experiment: every search shows the team-draft
 * interleaving of the two rankings; a user prefers the ranking credited with more of their clicks.
 */
export function simulateInterleaving(intents: readonly Intent[], users: number, random: () => number): { wins: [number, number]; ties: number } {
  const wins: [number, number] = [0, 0];
  let ties = 0;
  for (let u = 0; u < users; u++) {
    const searches = searchesOf(random);
    let credit0 = 0;
    let credit1 = 0;
    for (let s = 0; s < searches; s++) {
      const intent = intents[Math.floor(random() * intents.length)]!;
      const { items, teams } = teamDraftInterleave(intent.rankings[0], intent.rankings[1], 10, random);
      const clicked: number[] = [];
      for (let i = 0; i < items.length; i++) if (random() < clickChance(intent, items[i]!, i + 1, 1)) clicked.push(i);
      const team = preferredTeam(teams, clicked);
      if (team === 0) credit0++;
      else if (team === 1) credit1++;
    }
    if (credit0 > credit1) wins[0]++;
    else if (credit1 > credit0) wins[1]++;
    else ties++;
  }
  return { wins, ties };
}
