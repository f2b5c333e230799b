/**
 * Cascades as pure functions. A tactic is a label and a function producing scored candidates (best
 * first); a cascade takes its tactics in order: the first one whose result is non-empty AFTER the
 * filters leads the list, and the later ones complete it up to `count` (a tactic that is empty after
 * the filters is passed over). A single-tactic method is a cascade of one tactic: only what it finds.
 * Retailer boost re-ranks each tactic's candidates before they are taken.
 * @module
 */

/** A candidate with its score (higher is better). */
export interface Scored<T> {
  item: T;
  score: number;
}

/** One step of a cascade. */
export interface Tactic<T> {
  label: string;
  /** Candidates, best first (may contain duplicates or filtered items; the cascade cleans them up). */
  run: () => readonly Scored<T>[];
  /** Takes part only when the list is still empty: it may lead, never complete another tactic's list. */
  onlyToLead?: boolean;
}

/** How candidates are filtered and ranked. */
export interface CascadeOptions<T> {
  /** False for items never to recommend (inputs, cart items, out of stock, deleted, unknown). */
  accept: (item: T) => boolean;
  /** Length of the list. */
  count: number;
  /** Score multiplier for boosted items (retailer boost); 1 for the rest. */
  boost?: (item: T) => number;
  /**
   * Keep every accepted candidate of the tactics that ran in {@link CascadeOutcome.candidates} (retail
   * media picks its ad among them). Without it (and without `boost`, which ranks them all), a tactic's
   * candidates are checked only until the list is full: a short list from a long tactic checks only what
   * it returns.
   */
  keepCandidates?: boolean;
}

/** An item of the result with the tactic that produced it. */
export interface Picked<T> {
  item: T;
  label: string;
}

/** The outcome of a cascade. */
export interface CascadeOutcome<T> {
  /** The leading tactic (the first with a result), or undefined when every tactic was empty. */
  label: string | undefined;
  /** At most `count` items. */
  picked: Picked<T>[];
  /** The accepted candidates of the tactics that ran, ranked: all of them with `keepCandidates`, else at least the picked ones. */
  candidates: T[];
}

/**
 * Drops rejected and repeated items, applies the boost multiplier and ranks (stable for equal scores).
 * Stops once `limit` items are accepted (only without a boost, which may promote any later candidate).
 */
export function cleanCandidates<T>(raw: readonly Scored<T>[], options: Pick<CascadeOptions<T>, 'accept' | 'boost'>, limit = Infinity): Scored<T>[] {
  const seen = new Set<T>();
  const out: Scored<T>[] = [];
  const stopAt = options.boost ? Infinity : limit;
  for (const c of raw) {
    if (out.length >= stopAt) break;
    if (seen.has(c.item)) continue;
    seen.add(c.item);
    if (!options.accept(c.item)) continue;
    out.push(options.boost ? { item: c.item, score: c.score * options.boost(c.item) } : c);
  }
  if (options.boost) {
    // Stable sort: equal scores keep the tactic's own order.
    const indexed = out.map((c, i) => ({ c, i }));
    indexed.sort((x, y) => y.c.score - x.c.score || x.i - y.i);
    return indexed.map((x) => x.c);
  }
  return out;
}

/**
 * Fills the list from the tactics in order: the first tactic's items, then the next one's items that
 * are not there yet, until `count`; later tactics are not run once the list is full.
 */
export function runFill<T>(tactics: readonly Tactic<T>[], options: CascadeOptions<T>): CascadeOutcome<T> {
  const picked: Picked<T>[] = [];
  const taken = new Set<T>();
  const candidates: T[] = [];
  const listed = new Set<T>();
  let label: string | undefined;
  for (const tactic of tactics) {
    if (picked.length >= options.count) break;
    if (tactic.onlyToLead && picked.length > 0) continue;
    const limit = options.keepCandidates ? Infinity : options.count - picked.length;
    const ranked = cleanCandidates(tactic.run(), { accept: (item) => !taken.has(item) && options.accept(item), boost: options.boost }, limit);
    for (const c of ranked) {
      if (!listed.has(c.item)) {
        listed.add(c.item);
        candidates.push(c.item);
      }
      if (picked.length < options.count) {
        picked.push({ item: c.item, label: tactic.label });
        taken.add(c.item);
        label ??= tactic.label;
      }
    }
  }
  return { label, picked, candidates };
}
