/**
 * `_popularity`: a per-product value derived from shoppers' behaviour, usable as a sort key
 * (`sort_fields`, `ranking.tieBreakers`). Formula (docs/learning.md):
 *
 *   _popularity(p) = Σ over the last {@link POPULARITY_WINDOW_DAYS} UTC days (today included) of
 *                    Σ over the shoppers active on p that day of the weight of their strongest event
 *                    (click 1, add-to-cart 2, purchase 4: click-evidence.ts's type weights)
 *
 * so one shopper (customer id) counts at most 4 per product per day however many events it sends.
 * Clicks count from any list (search, recommendation) or none; purchases count every purchased line.
 * Kept as a ring of daily sums per product that has any (memory: products with activity × 2 × window
 * numbers) and, for the de-duplication, the (shopper, product) pairs of the latest two days seen (events
 * arrive about in time order: live, and replayed in store order), at most {@link MAX_DAILY_PAIRS}: past
 * that bound a new pair is not counted (a flood cannot buy popularity), nor is an event dated before the
 * day before the latest (it could not be de-duplicated).
 * @module
 */
import { EVIDENCE_TYPE_WEIGHTS, shopperHash, type EvidenceType } from './click-evidence.js';

/** The trailing window of `_popularity`, in days. */
export const POPULARITY_WINDOW_DAYS = 30;

/** Most (day, shopper, product) pairs remembered for the de-duplication (latest two days). */
export const MAX_DAILY_PAIRS = 1_000_000;

const DAY_MS = 86_400_000;
const W = POPULARITY_WINDOW_DAYS;

/** The serialised form (for the model checkpoint). */
export interface PopularitySnapshot {
  refIds: string[];
  /** Per product, W day numbers then W sums. */
  rings: Float64Array;
}

/** See the module doc. */
export class BehaviourPopularity {
  /** Per product: [day of slot 0…W-1, sum of slot 0…W-1]; slot = day mod W. */
  private readonly rings = new Map<string, Float64Array>();
  /** `day|shopperHash|refId` → strongest weight counted, for the latest two days (insertion order ≈ day order). */
  private readonly pairs = new Map<string, number>();
  /** The latest day (UTC day number) an event was counted for. */
  private latestDay = -Infinity;
  /** Changes since creation (for the per-doc array's cache). */
  version = 0;

  /** Products with any activity in the ring. */
  get size(): number {
    return this.rings.size;
  }

  /** Counts one event (see the module doc). */
  add(shopper: string, refId: string, type: EvidenceType, at: number): void {
    const day = Math.floor(at / DAY_MS);
    if (day < this.latestDay - 1) return;
    if (day > this.latestDay) this.startDay(day);
    const key = `${day}|${shopperHash(shopper).toString(36)}|${refId}`;
    const weight = EVIDENCE_TYPE_WEIGHTS[type];
    const before = this.pairs.get(key);
    if (before !== undefined && before >= weight) return;
    if (before === undefined && this.pairs.size >= MAX_DAILY_PAIRS) return;
    this.pairs.set(key, weight);
    let ring = this.rings.get(refId);
    if (ring === undefined) this.rings.set(refId, (ring = new Float64Array(2 * W).fill(-1, 0, W)));
    const slot = day % W;
    if (ring[slot]! < day) { ring[slot] = day; ring[W + slot] = 0; }
    if (ring[slot] !== day) return; // older than the slot's day: out of the window
    ring[W + slot] += weight - (before ?? 0);
    this.version++;
  }

  /** A later day starts: the pairs of days before the day before it are dropped. */
  private startDay(day: number): void {
    this.latestDay = day;
    for (const key of this.pairs.keys()) {
      if (Number(key.slice(0, key.indexOf('|'))) >= day - 1) break;
      this.pairs.delete(key);
    }
  }

  /** `_popularity` of `refId` at `now`. */
  valueOf(refId: string, now: number): number {
    const ring = this.rings.get(refId);
    if (ring === undefined) return 0;
    const today = Math.floor(now / DAY_MS);
    let sum = 0;
    for (let s = 0; s < W; s++) if (ring[s]! > today - W && ring[s]! <= today) sum += ring[W + s]!;
    return sum;
  }

  /** Every product with activity and its value at `now` (those at 0 left out). */
  *values(now: number): Iterable<[string, number]> {
    for (const refId of this.rings.keys()) {
      const v = this.valueOf(refId, now);
      if (v > 0) yield [refId, v];
    }
  }

  /** The rings as arrays (the de-duplication pairs are not kept: a restart may count a shopper's day twice). */
  serialize(): PopularitySnapshot {
    const refIds = [...this.rings.keys()];
    const rings = new Float64Array(refIds.length * 2 * W);
    refIds.forEach((id, i) => rings.set(this.rings.get(id)!, i * 2 * W));
    return { refIds, rings };
  }

  /** Replaces the rings with serialised ones; throws (changing nothing) when malformed. */
  restore(s: PopularitySnapshot): void {
    if (s.rings.length !== s.refIds.length * 2 * W) throw new Error('popularity: lengths disagree');
    this.rings.clear();
    s.refIds.forEach((id, i) => this.rings.set(id, s.rings.slice(i * 2 * W, (i + 1) * 2 * W)));
    this.version++;
  }
}
