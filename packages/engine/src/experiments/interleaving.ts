/**
 * Team-draft interleaving (Radlinski, Kurup and Joachims, 2008): two rankings are merged into one list
 * as two captains pick teams: in each round a coin decides which ranking picks first, and each then
 * adds its highest-ranked item not yet in the list. Every position remembers which ranking placed it,
 * so a click credits that ranking. A shopper sees one ordinary list, and the comparison happens inside
 * each response, which is why interleaving needs far fewer users than an A/B test (docs/experiments.md).
 * Pure: the coin is a seeded generator, so a response can be re-derived from its seed.
 * @module
 */

/** An interleaved list: the items and, per position, the index (0 or 1) of the ranking that placed it. */
export interface Interleaved<T> {
  items: T[];
  teams: Uint8Array;
}

/**
 * Interleaves `a` and `b` (best first) into at most `length` items by team draft. `random` returns
 * uniform numbers in [0, 1). Items are compared by identity (`===`): pass refIds or doc ids.
 */
export function teamDraftInterleave<T>(a: readonly T[], b: readonly T[], length: number, random: () => number): Interleaved<T> {
  const items: T[] = [];
  const teams: number[] = [];
  const taken = new Set<T>();
  const rankings = [a, b];
  const next = [0, 0];
  const picked = [0, 0];
  const advance = (team: number): T | undefined => {
    const ranking = rankings[team]!;
    while (next[team]! < ranking.length && taken.has(ranking[next[team]!]!)) next[team]!++;
    return next[team]! < ranking.length ? ranking[next[team]!] : undefined;
  };
  while (items.length < length) {
    const candidateA = advance(0);
    const candidateB = advance(1);
    if (candidateA === undefined && candidateB === undefined) break;
    // The team with fewer picks goes next; a tie is broken by the coin (the "draft").
    let team: number;
    if (candidateA === undefined) team = 1;
    else if (candidateB === undefined) team = 0;
    else if (picked[0]! !== picked[1]!) team = picked[0]! < picked[1]! ? 0 : 1;
    else team = random() < 0.5 ? 0 : 1;
    const item = (team === 0 ? candidateA : candidateB)!;
    items.push(item);
    teams.push(team);
    taken.add(item);
    picked[team]!++;
  }
  return { items, teams: Uint8Array.from(teams) };
}

/**
 * Which ranking a set of clicked positions (0-based into the interleaved list) prefers: the one whose
 * team placed more of the clicked items; `null` for a tie or no clicks.
 */
export function preferredTeam(teams: Uint8Array, clickedPositions: Iterable<number>): 0 | 1 | null {
  let credit0 = 0;
  let credit1 = 0;
  for (const position of clickedPositions) {
    if (position < 0 || position >= teams.length) continue;
    if (teams[position] === 0) credit0++;
    else credit1++;
  }
  if (credit0 === credit1) return null;
  return credit0 > credit1 ? 0 : 1;
}
