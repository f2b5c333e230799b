/**
 * Popular items over a trailing window: purchases (and, as a tie-breaker, views) per item within the
 * last `windowMs`, measured back from the newest event time recorded for the website, so a replayed
 * history ranks exactly as live traffic did.
 *
 * The events of the window sit in a ring of typed arrays; when the newest time moves on, the events
 * falling out of the window are subtracted again. Updates are O(1) amortised; the ranking is
 * recomputed lazily, at most once per `refreshMs` of wall time, and cached.
 * @module
 */
import { GrowableFloat64 } from './interner.js';
import type { ModelState } from './model-state.js';

/** Kind of a popularity event. */
export const enum PopularityKind {
  View = 0,
  Purchase = 1,
}

/** A scored item of a ranking. */
export interface ScoredItem {
  item: number;
  score: number;
}

/** Purchase and view counts of every item over a trailing window. */
export class PopularityWindow {
  private times = new Float64Array(1024);
  /** The item of each event: `item` for a view, `~item` (negative) for a purchase — 12 bytes an event. */
  private events = new Int32Array(1024);
  private head = 0;
  private length = 0;
  private readonly purchases = new GrowableFloat64();
  private readonly views = new GrowableFloat64();
  /** One past the largest item id recorded (ranking scans the counts up to it, at most once per refresh). */
  private itemBound = 0;
  private newest = Number.NEGATIVE_INFINITY;
  private cache: ScoredItem[] | undefined;
  private cacheLimit = 0;
  private cacheAt = Number.NEGATIVE_INFINITY;
  private dirty = true;
  private rebuilds = 0;

  /** Changes whenever the ranking is recomputed: equal generations, equal rankings (for callers that keep what they derive from it). */
  get generation(): number {
    return this.rebuilds;
  }

  constructor(readonly windowMs: number, private readonly refreshMs: number, private readonly now: () => number) {}

  /** Whether the ranking would be recomputed now: events came since, and `refreshMs` has passed. */
  refreshDue(): boolean {
    return this.cache === undefined || (this.dirty && this.now() - this.cacheAt >= this.refreshMs);
  }

  /** Records one event; events older than the window (relative to the newest seen) are ignored. */
  record(item: number, kind: PopularityKind, time: number): void {
    if (time > this.newest) this.advance(time);
    if (time <= this.newest - this.windowMs) return;
    this.push(kind === PopularityKind.Purchase ? ~item : item, time);
    (kind === PopularityKind.Purchase ? this.purchases : this.views).add(item, 1);
    if (item >= this.itemBound) this.itemBound = item + 1;
    this.dirty = true;
  }

  /** Moves the newest time forward (e.g. on an event of another model) and evicts expired events. */
  advance(time: number): void {
    if (time <= this.newest) return;
    this.newest = time;
    const cutoff = time - this.windowMs;
    const cap = this.times.length;
    let changed = false;
    while (this.length > 0 && this.times[this.head]! <= cutoff) {
      const event = this.events[this.head]!;
      if (event < 0) this.purchases.add(~event, -1);
      else this.views.add(event, -1);
      this.head = (this.head + 1) % cap;
      this.length--;
      changed = true;
    }
    if (changed) this.dirty = true;
  }

  /** Writes the window's state under `prefix` (see model-state.ts); the ranking cache is not kept. */
  saveState(state: ModelState, prefix: string): void {
    state.putArray(`${prefix}.times`, this.times);
    state.putArray(`${prefix}.events`, this.events);
    state.putNumber(`${prefix}.head`, this.head);
    state.putNumber(`${prefix}.length`, this.length);
    state.putNumber(`${prefix}.itemBound`, this.itemBound);
    state.putNumber(`${prefix}.newest`, this.newest);
    this.purchases.saveState(state, `${prefix}.purchases`);
    this.views.saveState(state, `${prefix}.views`);
  }

  /** Replaces the window's state with the one saved under `prefix` (the ranking is computed again). */
  loadState(state: ModelState, prefix: string): void {
    const times = state.array(`${prefix}.times`, Float64Array);
    const events = state.array(`${prefix}.events`, Int32Array);
    const head = state.number(`${prefix}.head`);
    const length = state.number(`${prefix}.length`);
    if (events.length !== times.length || head >= Math.max(1, times.length) || length > times.length) {
      throw new Error(`model state ${prefix}: the popularity window does not fit together`);
    }
    this.times = times;
    this.events = events;
    this.head = head;
    this.length = length;
    this.itemBound = state.number(`${prefix}.itemBound`);
    this.newest = state.number(`${prefix}.newest`);
    this.purchases.loadState(state, `${prefix}.purchases`);
    this.views.loadState(state, `${prefix}.views`);
    this.cache = undefined;
    this.dirty = true;
  }

  /** Purchases of `item` in the window. */
  purchaseCount(item: number): number {
    return this.purchases.get(item);
  }

  /**
   * Items by purchases in the window, then views, then id (deterministic); `limit` first entries.
   * The score is `purchases + views / (views + 1)`, so a purchase always outranks any number of views.
   */
  ranking(limit: number): ScoredItem[] {
    const t = this.now();
    if (this.cache === undefined || limit > this.cacheLimit || (this.dirty && t - this.cacheAt >= this.refreshMs)) {
      this.cacheLimit = Math.max(limit, 200);
      this.rebuild(this.cacheLimit);
      this.cacheAt = t;
      this.dirty = false;
    }
    return this.cache!.length > limit ? this.cache!.slice(0, limit) : this.cache!;
  }

  /**
   * Top `limit` in one pass over the counts (typed arrays: ~1 ms per million items, at most once per
   * refresh — cheaper in memory than a set of the items in the window), pruning below the running
   * threshold (no full sort).
   */
  private rebuild(limit: number): void {
    this.rebuilds++;
    const kept: ScoredItem[] = [];
    let floor = -Infinity;
    const byRank = (x: ScoredItem, y: ScoredItem): number => y.score - x.score || x.item - y.item;
    for (let item = 0; item < this.itemBound; item++) {
      const views = this.views.get(item);
      const purchases = this.purchases.get(item);
      if (views <= 0 && purchases <= 0) continue;
      const score = this.purchases.get(item) + views / (views + 1);
      if (kept.length >= limit && score < floor) continue;
      kept.push({ item, score });
      if (kept.length >= limit * 2) {
        kept.sort(byRank);
        kept.length = limit;
        floor = kept[limit - 1]!.score;
      }
    }
    kept.sort(byRank);
    if (kept.length > limit) kept.length = limit;
    this.cache = kept;
  }

  private push(event: number, time: number): void {
    if (this.length === this.times.length) this.growRing();
    const at = (this.head + this.length) % this.times.length;
    this.times[at] = time;
    this.events[at] = event;
    this.length++;
  }

  private growRing(): void {
    // By half: a full window of millions of events leaves at most a third of the ring unused.
    const n = Math.ceil(this.times.length * 1.5);
    const times = new Float64Array(n);
    const events = new Int32Array(n);
    for (let k = 0; k < this.length; k++) {
      const from = (this.head + k) % this.times.length;
      times[k] = this.times[from]!;
      events[k] = this.events[from]!;
    }
    this.times = times;
    this.events = events;
    this.head = 0;
  }
}
