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
  private items = new Int32Array(1024);
  private kinds = new Uint8Array(1024);
  private head = 0;
  private length = 0;
  private readonly purchases = new GrowableFloat64();
  private readonly views = new GrowableFloat64();
  /** Items with a non-zero count in the window (so ranking does not scan every interned id). */
  private readonly live = new Set<number>();
  private newest = Number.NEGATIVE_INFINITY;
  private cache: ScoredItem[] | undefined;
  private cacheLimit = 0;
  private cacheAt = Number.NEGATIVE_INFINITY;
  private dirty = true;

  constructor(readonly windowMs: number, private readonly refreshMs: number, private readonly now: () => number) {}

  /** Records one event; events older than the window (relative to the newest seen) are ignored. */
  record(item: number, kind: PopularityKind, time: number): void {
    if (time > this.newest) this.advance(time);
    if (time <= this.newest - this.windowMs) return;
    this.push(item, kind, time);
    (kind === PopularityKind.Purchase ? this.purchases : this.views).add(item, 1);
    this.live.add(item);
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
      const item = this.items[this.head]!;
      const counts = this.kinds[this.head] === PopularityKind.Purchase ? this.purchases : this.views;
      counts.add(item, -1);
      if (this.purchases.get(item) <= 0 && this.views.get(item) <= 0) this.live.delete(item);
      this.head = (this.head + 1) % cap;
      this.length--;
      changed = true;
    }
    if (changed) this.dirty = true;
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

  /** Top `limit` in one pass over the live items, pruning below the running threshold (no full sort). */
  private rebuild(limit: number): void {
    const kept: ScoredItem[] = [];
    let floor = -Infinity;
    const byRank = (x: ScoredItem, y: ScoredItem): number => y.score - x.score || x.item - y.item;
    for (const item of this.live) {
      const views = this.views.get(item);
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

  private push(item: number, kind: PopularityKind, time: number): void {
    if (this.length === this.times.length) this.growRing();
    const at = (this.head + this.length) % this.times.length;
    this.times[at] = time;
    this.items[at] = item;
    this.kinds[at] = kind;
    this.length++;
  }

  private growRing(): void {
    const n = this.times.length * 2;
    const times = new Float64Array(n);
    const items = new Int32Array(n);
    const kinds = new Uint8Array(n);
    for (let k = 0; k < this.length; k++) {
      const from = (this.head + k) % this.times.length;
      times[k] = this.times[from]!;
      items[k] = this.items[from]!;
      kinds[k] = this.kinds[from]!;
    }
    this.times = times;
    this.items = items;
    this.kinds = kinds;
    this.head = 0;
  }
}
