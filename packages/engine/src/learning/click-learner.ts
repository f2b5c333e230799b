/**
 * The learned ranking state of an engine's websites — click evidence per (query, product)
 * (click-evidence.ts) and `_popularity` (behaviour-popularity.ts) — and how it is fed:
 * - clicks are read from the store's clicks table, incrementally after a cursor per website, so a click
 *   any replica stored counts on every replica: after each click request of this process ({@link poke})
 *   and, on a store other processes share, every poll interval ({@link startPolling});
 * - purchases come from the event service's sink (this process's, the replay's and other replicas'),
 *   turning the buyer's clicks on the product into conversions.
 * The state rides along with the recommendation models' checkpoint ({@link saveState}/{@link loadState}:
 * the clicks cursor is saved with it, so a start reads only the clicks stored after it).
 * @module
 */
import type { ModelState } from '../recommend/model-state.js';
import { modelEventTime } from '../events/event-time.js';
import type { Store, StoredClick } from '../store/store.js';
import type { PurchaseRecord } from '../types.js';
import { BehaviourPopularity } from './behaviour-popularity.js';
import { ClickEvidence } from './click-evidence.js';
import type { ClickRanking } from './click-ranking-settings.js';
import { PopularityKeys } from './popularity-keys.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import type { NumericValues } from '../catalog/columns/numeric-column.js';
import type { RerankInputs } from '../search/rerank.js';

/** Where the distinct sessions that searched a query are counted (the search log's completion evidence). */
export interface QuerySessionCounts {
  sessionCount(websiteId: string, query: string): number;
}

/** Clicks read per page. */
const PAGE = 5000;
/** Layout version of the saved section; another one is not loaded (the clicks are read again instead). */
export const LEARNING_STATE_FORMAT = 1;

/** One website's learned state. */
export interface SiteLearning {
  evidence: ClickEvidence;
  popularity: BehaviourPopularity;
  /** The last stored click (clicks table sequence) applied. */
  cursor: number;
}

/** Options of a {@link ClickLearner}. */
export interface ClickLearnerOptions {
  store: Store;
  /** A website's attribution window (ms): a purchase converts a click at most this long before. */
  attributionWindowMs: (websiteId: string) => number;
  /** Where a failed read goes (the next poke or poll goes on from the same cursor). */
  onError: (err: unknown, websiteId?: string) => void;
  /** Told of every batch of events applied (the checkpoint is due). */
  onApplied?: () => void;
  /**
   * Where a failed timed poll goes (default: `onError`): it is retried at every interval, so a store
   * outage is told once (FailureReporter.reportRetried) rather than per interval.
   */
  onPollError?: (err: unknown) => void;
  /** A timed poll succeeded (after failures: the outage is over). */
  onPollRecovered?: () => void;
}

/** See the module doc. */
export class ClickLearner {
  private readonly sites = new Map<string, SiteLearning>();
  private readonly popularityKeys = new Map<string, PopularityKeys>();
  /** Serialises the reads (one at a time, cursor order). */
  private chain: Promise<void> = Promise.resolve();
  /** Websites poked while a read runs: read again after it. */
  private readonly poked = new Set<string>();
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ClickLearnerOptions) {}

  /** The learned state of `websiteId` (made empty on first use). */
  site(websiteId: string): SiteLearning {
    let s = this.sites.get(websiteId);
    if (s === undefined) {
      s = {
        evidence: new ClickEvidence({ attributionWindowMs: () => this.options.attributionWindowMs(websiteId) }),
        popularity: new BehaviourPopularity(),
        cursor: 0,
      };
      this.sites.set(websiteId, s);
    }
    return s;
  }

  /**
   * Reads the clicks stored since the cursor of each of `websiteIds` (in order, one read at a time);
   * resolves to how many were read.
   */
  catchUp(websiteIds: Iterable<string>): Promise<number> {
    const ids = [...websiteIds];
    const run = this.chain.then(async () => {
      let read = 0;
      for (const id of ids) if (!this.closed) read += await this.readClicks(id);
      return read;
    });
    this.chain = run.then(() => undefined, () => undefined);
    return run;
  }

  private async readClicks(websiteId: string): Promise<number> {
    const site = this.site(websiteId);
    let read = 0;
    for (;;) {
      const page = await this.options.store.readClicks(websiteId, site.cursor, PAGE);
      for (const c of page) applyClick(site, c);
      read += page.length;
      if (page.length > 0) {
        site.cursor = page.at(-1)!.seq;
        this.options.onApplied?.();
      }
      if (page.length < PAGE) return read;
    }
  }

  /** New clicks of `websiteId` were stored: read them soon (reads of pokes close together are one). */
  poke(websiteId: string): void {
    this.poked.add(websiteId);
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const ids = [...this.poked];
      this.poked.clear();
      this.catchUp(ids).catch((err: unknown) => this.options.onError(err));
    });
  }

  /** Reads every website's new clicks every `intervalMs` (replicas: clicks other processes stored). */
  startPolling(websites: () => Iterable<string>, intervalMs: number): void {
    const failed = this.options.onPollError ?? ((err: unknown) => this.options.onError(err));
    this.timer = setInterval(() => {
      this.catchUp(websites()).then(() => this.options.onPollRecovered?.(), failed);
    }, intervalMs);
    this.timer.unref();
  }

  /** A stored purchase (any process's): its lines convert the buyer's clicks and count for `_popularity`. */
  onPurchase(purchase: PurchaseRecord): void {
    const site = this.site(purchase.websiteId);
    for (const item of purchase.items) {
      site.evidence.addPurchase(purchase.customerId, item.refId, purchase.eventTime);
      site.popularity.add(purchase.customerId, item.refId, 'purchase', purchase.eventTime);
    }
  }

  /**
   * The click stage of a search for `query` (normalised) under `settings`: undefined while fewer than
   * `minSessions` distinct sessions searched it (`sessions`), or while it has no evidence; otherwise
   * each candidate's signal, read at the time of the search.
   */
  clickStage(websiteId: string, query: string, settings: ClickRanking, sessions: QuerySessionCounts): RerankInputs['clicks'] {
    if (query === '' || sessions.sessionCount(websiteId, query) < settings.minSessions) return undefined;
    const evidence = this.site(websiteId).evidence;
    // No evidence: no stage, so the search selects one page, not the stage's depth.
    if (evidence.signals(query, Date.now(), settings.halfLifeDays).size === 0) return undefined;
    return {
      weight: settings.weight,
      signals: (candidates) => {
        const signals = evidence.signals(query, Date.now(), settings.halfLifeDays);
        return signals.size === 0 ? undefined : candidates.map((p) => signals.get(p.refId) ?? 0);
      },
    };
  }

  /** `_popularity` of every doc of `state` (learning/popularity-keys.ts). */
  popularityValues(websiteId: string, state: CatalogState): NumericValues {
    let keys = this.popularityKeys.get(websiteId);
    if (keys === undefined) this.popularityKeys.set(websiteId, (keys = new PopularityKeys(() => this.site(websiteId).popularity)));
    return keys.valuesFor(state, Date.now());
  }

  /** Writes `websiteId`'s state into a checkpoint's state (names under `learning.`). */
  saveState(websiteId: string, state: ModelState): void {
    const site = this.site(websiteId);
    const e = site.evidence.serialize();
    const p = site.popularity.serialize();
    state.putValue('learning', { format: LEARNING_STATE_FORMAT, cursor: site.cursor, queries: e.queries, refIds: e.refIds, popularRefIds: p.refIds });
    state.putArray('learning.productCounts', e.productCounts);
    state.putArray('learning.entryCounts', e.entryCounts);
    state.putArray('learning.shoppers', e.shoppers);
    state.putArray('learning.events', e.events);
    state.putArray('learning.popularity', p.rings);
  }

  /**
   * Loads `websiteId`'s state from a checkpoint's state; false (nothing changed: the clicks are read
   * from the first) when it has no section of this format. Throws when the section is malformed.
   */
  loadState(websiteId: string, state: ModelState): boolean {
    if (!('learning' in state.values)) return false;
    const v = state.value('learning') as { format?: unknown; cursor?: unknown; queries?: unknown; refIds?: unknown; popularRefIds?: unknown };
    if (v.format !== LEARNING_STATE_FORMAT) return false;
    const strings = (x: unknown): string[] => {
      if (!Array.isArray(x) || x.some((s) => typeof s !== 'string')) throw new Error('learning state: malformed lists');
      return x as string[];
    };
    if (typeof v.cursor !== 'number' || !Number.isSafeInteger(v.cursor) || v.cursor < 0) throw new Error('learning state: malformed cursor');
    const evidence = new ClickEvidence({ attributionWindowMs: () => this.options.attributionWindowMs(websiteId) });
    evidence.restore({
      queries: strings(v.queries), refIds: strings(v.refIds),
      productCounts: state.array('learning.productCounts', Uint32Array), entryCounts: state.array('learning.entryCounts', Uint32Array),
      shoppers: state.array('learning.shoppers', Int32Array), events: state.array('learning.events', Int32Array),
    });
    const popularity = new BehaviourPopularity();
    popularity.restore({ refIds: strings(v.popularRefIds), rings: state.array('learning.popularity', Float64Array) });
    this.sites.set(websiteId, { evidence, popularity, cursor: v.cursor });
    return true;
  }

  /** Stops polling and waits for the read under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.chain;
  }
}

/** Applies one stored click: `_popularity` always, the query's evidence when it came from a search list with a position. */
function applyClick(site: SiteLearning, c: StoredClick): void {
  const at = modelEventTime(c.click.eventTimeMs, c.receivedAt);
  site.popularity.add(c.customerId, c.click.refId, c.click.type, at);
  const list = c.click.list;
  if (list?.kind !== 'search' || list.source === '' || c.click.position === undefined) return;
  site.evidence.add({ query: list.source, refId: c.click.refId, shopper: c.customerId, type: c.click.type, position: c.click.position, at });
}
