/**
 * What shoppers' clicks, add-to-carts and conversions taught about one website's queries: per
 * normalised query and product, the evidence of each shopper (a customer id counts once per (query,
 * product), however often it clicks), from which {@link ClickEvidence.signals} derives the click
 * stage's signal (search/rerank.ts). Pure data structure: the reader of the stored clicks
 * (click-learner.ts) feeds it; nothing here does I/O.
 *
 * Debiasing: inverse propensity weighting under the position-based model (Joachims et al., 2017). A
 * shopper examines position k with probability ∝ 1/k (η = 1), so a click at k counts k times a click
 * at 1; the weight is clipped at {@link MAX_PROPENSITY_POSITION} (clipped IPW: bounded variance, at the
 * price of under-crediting clicks deeper down). Chosen over a click model (cascade, DBN) because it
 * needs only the clicks and their positions — no impressions per product, which would cost a row per
 * product shown per search on every replica — and is unbiased whenever each candidate has a position
 * with a non-zero propensity, which the top of the list has.
 *
 * A shopper's evidence for (query, product) is the largest of its events' `type weight × 1/propensity`
 * (click 1, add-to-cart 2, purchase 4: {@link EVIDENCE_TYPE_WEIGHTS}), dated by that event, decaying
 * by half every `halfLifeDays` at read time. The signal of a product is its evidence over the query's
 * total plus {@link PRIOR_EVIDENCE} (a prior in favour of the text ranking: until the query has earned
 * about ten position-1 clicks' worth, every signal stays small and the text order mostly stands).
 *
 * Memory: one entry per (query, product, shopper): two small integers (the shopper as a 31-bit hash
 * of its customer id, the event as minute × 32 + type/position code) in a flat array per product, or a
 * `Map` once a product has many shoppers; at most `maxEntries` of them (default {@link MAX_EVIDENCE_ENTRIES}): beyond, the queries
 * touched least recently are dropped whole. docs/learning.md measures the bytes per click.
 * @module
 */

/** Weight of each kind of evidence (a purchase converts the click it follows). */
export const EVIDENCE_TYPE_WEIGHTS = { click: 1, addToCart: 2, purchase: 4 } as const;

/** A kind of evidence. */
export type EvidenceType = keyof typeof EVIDENCE_TYPE_WEIGHTS;

const TYPES: readonly EvidenceType[] = ['click', 'addToCart', 'purchase'];

/** Positions at and past this one share its propensity (clipped inverse propensity weights). */
export const MAX_PROPENSITY_POSITION = 10;

/** The prior's worth, in position-1 clicks: how much evidence the text ranking stands for (see the module doc). */
export const PRIOR_EVIDENCE = 10;

/** Most (query, product, shopper) entries one website keeps by default. */
export const MAX_EVIDENCE_ENTRIES = 1_000_000;

/** Most (shopper, product) pairs remembered for conversions, and most purchases waiting for their click. */
export const MAX_CONVERSION_KEYS = 200_000;

/** Minutes are counted from here (so minute × 32 + code stays a small integer until 2083). */
const EPOCH_MS = Date.UTC(2020, 0, 1);
const MINUTE_MS = 60_000;
const CODES = 32;
const MAX_MINUTE = 2 ** 25 - 1;
const DAY_MS = 86_400_000;

/** The examination propensity of a 1-based position (position-based model, η = 1, clipped). Pure. */
export function propensity(position: number): number {
  return 1 / Math.min(Math.max(1, Math.floor(position) || 1), MAX_PROPENSITY_POSITION);
}

/** A 31-bit FNV-1a hash of a shopper id (lower-cased: GUIDs are compared case-insensitively). */
export function shopperHash(id: string): number {
  let h = 0x811c9dc5;
  const s = id.toLowerCase();
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 1;
}

function codeOf(type: EvidenceType, position: number): number {
  return TYPES.indexOf(type) * MAX_PROPENSITY_POSITION + Math.round(1 / propensity(position)) - 1;
}

/** The evidence weight of an event code: its type's weight over its position's propensity. */
function weightOf(code: number): number {
  const type = TYPES[Math.floor(code / MAX_PROPENSITY_POSITION)]!;
  return EVIDENCE_TYPE_WEIGHTS[type] * ((code % MAX_PROPENSITY_POSITION) + 1);
}

function pack(atMs: number, code: number): number {
  const minute = Math.min(MAX_MINUTE, Math.max(0, Math.floor((atMs - EPOCH_MS) / MINUTE_MS)));
  return minute * CODES + code;
}

function timeOf(packed: number): number {
  return EPOCH_MS + Math.floor(packed / CODES) * MINUTE_MS;
}

/** One evidence event: a shopper's click or add-to-cart on a product of a search result list. */
export interface EvidenceEvent {
  /** The normalised query of the list. */
  query: string;
  refId: string;
  /** The shopper (customer id). */
  shopper: string;
  type: 'click' | 'addToCart';
  /** 1-based position in the whole result list. */
  position: number;
  /** Event time (ms). */
  at: number;
}

/**
 * A product's entries: per shopper hash its packed event — a flat array `[hash, packed, …]` while few
 * (a `Map` costs ~200 bytes even with one entry, the array ~50), a `Map` from {@link MAP_FROM} on.
 */
type Entries = number[] | Map<number, number>;

/** Entries of one product from which a `Map` holds them. */
const MAP_FROM = 16;

function entryOf(e: Entries, hash: number): number | undefined {
  if (!Array.isArray(e)) return e.get(hash);
  for (let i = 0; i < e.length; i += 2) if (e[i] === hash) return e[i + 1];
  return undefined;
}

/** Sets the entry of `hash`; returns the entries (a new `Map` once the array grows past {@link MAP_FROM}). */
function withEntry(e: Entries, hash: number, packed: number): Entries {
  if (!Array.isArray(e)) return e.set(hash, packed);
  for (let i = 0; i < e.length; i += 2) {
    if (e[i] === hash) {
      e[i + 1] = packed;
      return e;
    }
  }
  if (e.length + 2 < 2 * MAP_FROM) {
    // A new array of the exact size: `push` would reserve room for ~16 more numbers (~150 bytes) in each
    // of the many products with one or two shoppers.
    const next: number[] = new Array<number>(e.length + 2);
    for (let i = 0; i < e.length; i++) next[i] = e[i]!;
    next[e.length] = hash;
    next[e.length + 1] = packed;
    return next;
  }
  const map = new Map<number, number>();
  for (let i = 0; i < e.length; i += 2) map.set(e[i]!, e[i + 1]!);
  return map.set(hash, packed);
}

function sizeOf(e: Entries): number {
  return Array.isArray(e) ? e.length / 2 : e.size;
}

function* pairsOf(e: Entries): Iterable<[number, number]> {
  if (!Array.isArray(e)) {
    yield* e;
    return;
  }
  for (let i = 0; i < e.length; i += 2) yield [e[i]!, e[i + 1]!];
}

/** A query's evidence: per product, per shopper hash, the packed event. */
interface QueryEvidence {
  products: Map<string, Entries>;
  /** Signals computed at `at` with `halfLifeDays`, until the evidence changes. */
  cached?: { at: number; halfLifeDays: number; signals: ReadonlyMap<string, number> };
}

/** How long cached signals are served before the decay is applied again. */
const SIGNAL_CACHE_MS = 60_000;

/** Options of {@link ClickEvidence}. */
export interface ClickEvidenceOptions {
  /** Most entries kept (see the module doc). */
  maxEntries?: number;
  /** The attribution window (ms): a purchase converts a click at most this long before it. */
  attributionWindowMs?: () => number;
}

/** The serialised form of {@link ClickEvidence} (for the model checkpoint): plain values and typed arrays. */
export interface ClickEvidenceSnapshot {
  queries: string[];
  /** Per query, how many products follow in `refIds`. */
  productCounts: Uint32Array;
  refIds: string[];
  /** Per product, how many entries follow in `shoppers`/`events`. */
  entryCounts: Uint32Array;
  shoppers: Int32Array;
  events: Int32Array;
}

/** See the module doc. */
export class ClickEvidence {
  /** In order of last change (a touched query moves to the end): the first are dropped first. */
  private readonly queries = new Map<string, QueryEvidence>();
  private entries = 0;
  /** (shopper, refId) → the queries the shopper clicked it from (most recent last), for conversions. */
  private readonly clickedFrom = new Map<string, string[]>();
  /** (shopper, refId) → time of a purchase whose click has not been seen yet (clicks arrive after purchases on replicas). */
  private readonly waitingPurchases = new Map<string, number>();
  /** One string per refId held (a refId clicked under many queries is kept once, not once per query). */
  private readonly refIds = new Map<string, string>();
  private readonly maxEntries: number;
  private readonly windowMs: () => number;

  constructor(options: ClickEvidenceOptions = {}) {
    this.maxEntries = options.maxEntries ?? MAX_EVIDENCE_ENTRIES;
    this.windowMs = options.attributionWindowMs ?? (() => 30 * DAY_MS);
  }

  /** Entries held ((query, product, shopper) triples). */
  get size(): number {
    return this.entries;
  }

  /** Queries held. */
  get queryCount(): number {
    return this.queries.size;
  }

  /** Adds a click or add-to-cart (see the module doc); a purchase already seen for it makes it a conversion. */
  add(e: EvidenceEvent): void {
    const key = conversionKey(e.shopper, e.refId);
    const bought = this.waitingPurchases.get(key);
    const converts = bought !== undefined && bought >= e.at && bought - e.at <= this.windowMs();
    this.put(e.query, e.refId, shopperHash(e.shopper), pack(converts ? bought : e.at, codeOf(converts ? 'purchase' : e.type, e.position)));
    const from = this.clickedFrom.get(key);
    if (from === undefined) {
      bounded(this.clickedFrom, key, [e.query]);
    } else if (!from.includes(e.query)) from.push(e.query);
  }

  /**
   * A purchase of `refId` by `shopper` at `at`: the shopper's clicks on it (within the attribution
   * window before) become conversions; remembered a while for clicks not seen yet.
   */
  addPurchase(shopper: string, refId: string, at: number): void {
    const key = conversionKey(shopper, refId);
    bounded(this.waitingPurchases, key, at);
    const hash = shopperHash(shopper);
    for (const query of this.clickedFrom.get(key) ?? []) {
      const entries = this.queries.get(query)?.products.get(refId);
      const packed = entries === undefined ? undefined : entryOf(entries, hash);
      if (packed === undefined) continue;
      const clickedAt = timeOf(packed);
      if (at < clickedAt - MINUTE_MS || at - clickedAt > this.windowMs()) continue;
      const code = packed % CODES;
      const position = (code % MAX_PROPENSITY_POSITION) + 1;
      this.put(query, refId, hash, pack(at, codeOf('purchase', position)));
    }
  }

  /** Keeps the larger evidence of the shopper for (query, refId). */
  private put(query: string, refId: string, hash: number, packed: number): void {
    let q = this.queries.get(query);
    let known = this.refIds.get(refId);
    if (known === undefined) this.refIds.set(refId, (known = refId));
    refId = known;
    if (q === undefined) {
      q = { products: new Map() };
    } else {
      this.queries.delete(query);
    }
    this.queries.set(query, q);
    q.cached = undefined;
    const shoppers = q.products.get(refId) ?? [];
    const before = entryOf(shoppers, hash);
    if (before === undefined) {
      q.products.set(refId, withEntry(shoppers, hash, packed));
      this.entries++;
      if (this.entries > this.maxEntries) this.evict(query);
    } else if (weightOf(packed % CODES) > weightOf(before % CODES) || (weightOf(packed % CODES) === weightOf(before % CODES) && packed > before)) {
      q.products.set(refId, withEntry(shoppers, hash, packed));
    }
  }

  /** Drops the least recently changed queries (never `keep`) until at most 90 % of the bound is held. */
  private evict(keep: string): void {
    const target = Math.floor(this.maxEntries * 0.9);
    for (const [query, q] of this.queries) {
      if (this.entries <= target) break;
      if (query === keep) continue;
      for (const shoppers of q.products.values()) this.entries -= sizeOf(shoppers);
      this.queries.delete(query);
    }
    // The refIds no query holds any more go too.
    const held = new Set<string>();
    for (const q of this.queries.values()) for (const refId of q.products.keys()) held.add(refId);
    for (const refId of this.refIds.keys()) if (!held.has(refId)) this.refIds.delete(refId);
  }

  /**
   * Per product with evidence for `query`, its signal in [0, 1) at `now` (see the module doc): evidence
   * over (the query's total + {@link PRIOR_EVIDENCE}). Empty when the query has none. Cached a minute.
   */
  signals(query: string, now: number, halfLifeDays: number): ReadonlyMap<string, number> {
    const q = this.queries.get(query);
    if (q === undefined) return EMPTY;
    const cached = q.cached;
    if (cached && cached.halfLifeDays === halfLifeDays && now - cached.at < SIGNAL_CACHE_MS && now >= cached.at) return cached.signals;
    const halfLifeMs = halfLifeDays * DAY_MS;
    const evidence = new Map<string, number>();
    let total = 0;
    for (const [refId, shoppers] of q.products) {
      let e = 0;
      for (const [, packed] of pairsOf(shoppers)) e += weightOf(packed % CODES) * 2 ** (-Math.max(0, now - timeOf(packed)) / halfLifeMs);
      evidence.set(refId, e);
      total += e;
    }
    const signals = new Map<string, number>();
    for (const [refId, e] of evidence) signals.set(refId, e / (total + PRIOR_EVIDENCE));
    q.cached = { at: now, halfLifeDays, signals };
    return signals;
  }

  /** The evidence as plain arrays (for the model checkpoint); the maps of conversions in flight are not kept. */
  serialize(): ClickEvidenceSnapshot {
    const queries: string[] = [];
    const productCounts: number[] = [];
    const refIds: string[] = [];
    const entryCounts: number[] = [];
    const shoppers = new Int32Array(this.entries);
    const events = new Int32Array(this.entries);
    let k = 0;
    for (const [query, q] of this.queries) {
      queries.push(query);
      productCounts.push(q.products.size);
      for (const [refId, entries] of q.products) {
        refIds.push(refId);
        entryCounts.push(sizeOf(entries));
        for (const [hash, packed] of pairsOf(entries)) {
          shoppers[k] = hash;
          events[k++] = packed;
        }
      }
    }
    return { queries, productCounts: Uint32Array.from(productCounts), refIds, entryCounts: Uint32Array.from(entryCounts), shoppers, events };
  }

  /** Replaces the evidence with a serialised one; throws (changing nothing) when it is malformed. */
  restore(s: ClickEvidenceSnapshot): void {
    const fail = (why: string): never => { throw new Error(`click evidence: ${why}`); };
    if (s.productCounts.length !== s.queries.length || s.entryCounts.length !== s.refIds.length || s.shoppers.length !== s.events.length) fail('lengths disagree');
    const queries = new Map<string, QueryEvidence>();
    const interned = new Map<string, string>();
    let p = 0;
    let k = 0;
    s.queries.forEach((query, i) => {
      const products = new Map<string, Entries>();
      for (let j = 0; j < s.productCounts[i]!; j++, p++) {
        const named = s.refIds[p] ?? fail('products run past their list');
        let refId = interned.get(named);
        if (refId === undefined) interned.set(named, (refId = named));
        let entries: Entries = [];
        for (let n = 0; n < s.entryCounts[p]!; n++, k++) {
          if (k >= s.shoppers.length) fail('entries run past their list');
          entries = withEntry(entries, s.shoppers[k]!, s.events[k]!);
        }
        products.set(refId, entries);
      }
      queries.set(query, { products });
    });
    if (p !== s.refIds.length || k !== s.shoppers.length) fail('unused products or entries');
    this.queries.clear();
    for (const [query, q] of queries) this.queries.set(query, q);
    this.refIds.clear();
    for (const [refId, same] of interned) this.refIds.set(refId, same);
    this.entries = k;
  }
}

const EMPTY: ReadonlyMap<string, number> = new Map();

/** The (shopper, refId) key of the conversion look-ups: the shopper's hash in base 36, then the refId. */
function conversionKey(shopper: string, refId: string): string {
  return `${shopperHash(shopper).toString(36)}\u0000${refId}`;
}

/** Sets `key` last in `map`, dropping the oldest keys past {@link MAX_CONVERSION_KEYS}. */
function bounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CONVERSION_KEYS) map.delete(map.keys().next().value!);
}
