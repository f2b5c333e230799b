/**
 * `lessRedundant` (recommend/redundancy): the re-ranking of a co-bought or popular list against
 * redundancy — ten places chosen greedily from the 250 candidates a Popular Items request hands it, with
 * co-purchase overlaps looked up as the models do (a table of shares per candidate). Issue #27 item 3:
 * it was a third of a PopularItems call's time.
 * @module
 */
import { lessRedundant } from '@aisle/engine/internal';
import { seededRandom } from '../seeded-random.js';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'lessRedundant';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const random = seededRandom(27);
  const n = 250;
  // Popular-list scores: purchases + views / (views + 1), best first, with ties.
  const list = Array.from({ length: n }, (_, item) => ({ item, score: Math.floor(40 * (1 - item / n) ** 2) + random() * 0.9 }))
    .sort((x, y) => y.score - x.score);
  // Each candidate shares orders with a few others (a sparse table, as a co-bought list holds).
  const shares = list.map(() => new Map(Array.from({ length: 8 }, () => [Math.floor(random() * n), random()] as const)));
  const overlap = (candidate: number, placed: readonly number[]): number => {
    let most = 0;
    for (const x of placed) most = Math.max(most, shares[candidate]!.get(x) ?? 0);
    return most;
  };
  return [
    { name: `10 places of ${n} candidates, penalty 0.75`, fn: () => consume(lessRedundant(list, 10, 0.75, overlap)) },
  ];
}
