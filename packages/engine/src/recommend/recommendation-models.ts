/**
 * The recommendation models of one website and the recommendation operations over them.
 *
 * Models, updated incrementally by `applyView` / `applyPurchase` (see docs/recommendations.md):
 * - viewed together: per item, its co-viewed items (same session, any customer) with the number of
 *   sessions in which both were viewed, plus the number of sessions per item (for Jaccard);
 * - bought together: per item, its co-bought items; an order of n distinct items adds 1/√n to each of
 *   its pairs (a huge order says less about each pair than a small one), and an order also pairs its
 *   items with the customer's earlier purchases at a lower weight (`customerCoPurchaseWeight` / n);
 *   per item the same weight summed over its orders (the denominator of the share of its orders that
 *   held a neighbour, against which co-bought and popular lists are made less redundant);
 * - popularity: purchases (then views) per item over a trailing window, from the newest event time;
 * - customer histories: latest session, earlier sessions (≤ 20), purchased items;
 * - attribute and visual similarity: derived from the catalog, rebuilt when its version changes — in
 *   the request for small catalogs, else in the background (look-ups use the previous index meanwhile).
 * All item ids are interned integers; neighbour lists are capped and live in typed-array slabs.
 * @module
 */
import type { WebsiteConfig } from '../config.js';
import type { BundleResponse, CatalogView, PurchaseRecord, RecommendParams, RecommendResponse, RetailMediaSlotData, ViewRecord } from '../types.js';

/** A recommendation as the models answer it: the response but its `queryId` (issued by the engine, which remembers the list). */
export type ModelRecommendation = Omit<RecommendResponse, 'queryId'>;
/** The bundles as the models answer them (without the `queryId` the engine adds). */
export type ModelBundles = Omit<BundleResponse, 'queryId'>;
import { AttributeSimilarity } from './attribute-similarity.js';
import { indexReadiness, runSync } from './background-build.js';
import { assembleBundles, checkBundleBody } from './bundles.js';
import { runFill, type CascadeOutcome, type Scored, type Tactic } from './cascade.js';
import { CustomerHistory } from './customer-history.js';
import { GrowableFloat64, Interner } from './interner.js';
import { ItemStatus } from './item-status.js';
import { checkParams, resolveMethod, TacticLabels, type CheckedParams, type MethodSpec, type TacticKey } from './methods.js';
import { NeighbourTable } from './neighbour-table.js';
import { PopularityKind, PopularityWindow } from './popularity.js';
import { lessRedundant } from './redundancy.js';
import { addSponsoredSlot, sponsoredPosition } from '../retail-media/index.js';
import { boostCampaigns, buildSlots, recommenderIdOf } from './slots.js';
import { VisualSimilarity } from './visual-similarity.js';
import { KeptAnswers, type AnswerBasis } from './kept-answers.js';
import { ModelState } from './model-state.js';

const DAY_MS = 86_400_000;

/** Tunable constants of the models (all documented in docs/recommendations.md). */
export interface RecommendationTuning {
  /** Co-viewed neighbours kept per item. */
  viewNeighbourCap: number;
  /** Co-bought neighbours kept per item. */
  purchaseNeighbourCap: number;
  /** Distinct items of one session that are paired and kept as "recently viewed". */
  sessionCap: number;
  /** Items of the historic-viewed list (spec: at most 20). */
  historicCap: number;
  /** Distinct purchased items remembered per customer (customer-level co-purchase). */
  purchasedCap: number;
  /** Distinct items of one order that are paired (the first ones of the order). */
  orderItemCap: number;
  /** Weight of pairing an order's items with the same customer's earlier purchases, relative to same-order pairs. */
  customerCoPurchaseWeight: number;
  /** Added to the Jaccard denominator so that items seen in one session do not reach similarity 1. */
  jaccardDamping: number;
  /** Extra co-view weight of the edge a → b when b was viewed right after a in a session (the browsing direction). */
  viewAdjacencyBonus: number;
  /** Extra co-view weight of the edge b → a when b was viewed right after a (against the browsing direction). */
  viewBackwardBonus: number;
  /** The k-th newest recently viewed item (0-based) seeds the "… Recently Viewed" tactics with weight 1 / (1 + this·k). */
  recentSeedDecay: number;
  /** Trailing window of Popular Items. */
  popularWindowMs: number;
  /** Wall time between re-rankings of the popular list when it changed. */
  popularRefreshMs: number;
  /** Score multiplier of retailer-boosted products among the candidates. */
  boostFactor: number;
  /**
   * Half-life of bought-together evidence in days (0 = no decay): an order's pairs count
   * 2^((eventTime − t₀)/halfLife), so newer orders weigh more ("forward decay": nothing is rewritten
   * when time passes; the table is rescaled now and then to stay within float range).
   */
  boughtHalfLifeDays: number;
  /**
   * Bought-together scores are multiplied by (orders of the candidate + 1)^this: below 0 discounts items
   * bought with everything (an IDF-like weight), above 0 favours them.
   */
  boughtPopularityExponent: number;
  /** Each pair of an order of n distinct items gains r(t) / n^this (1: split evenly; 0: every pair counts fully). */
  basketSizeExponent: number;
  /**
   * Co-bought and popular lists are re-ranked against redundancy: a candidate's score is multiplied by
   * 1 − this × (the largest share of its orders that also held an item placed above it); 0 = off.
   */
  redundancyPenalty: number;
  /**
   * Catalogs of at most this many live products have their attribute and vector indexes built in the
   * request (a few ms); larger ones in the background, in time slices, never blocking a look-up.
   */
  indexSyncLimit: number;
  /** Newcomers an order may bring into one item's full co-bought list (the rest only strengthen listed neighbours). */
  orderEvictionCap: number;
  /** Number of image vectors from which Visually Similar uses the approximate (IVF) index. */
  visualAnnThreshold: number;
}

/** The defaults of {@link RecommendationTuning}. */
export const DEFAULT_TUNING: Readonly<RecommendationTuning> = {
  viewNeighbourCap: 64,
  purchaseNeighbourCap: 192,
  sessionCap: 30,
  historicCap: 20,
  purchasedCap: 10,
  orderItemCap: 25,
  customerCoPurchaseWeight: 0.05,
  jaccardDamping: 2,
  recentSeedDecay: 4,
  viewAdjacencyBonus: 3,
  viewBackwardBonus: 1,
  popularWindowMs: 7 * DAY_MS,
  popularRefreshMs: 1000,
  boostFactor: 1.5,
  boughtHalfLifeDays: 180,
  boughtPopularityExponent: 0.1,
  basketSizeExponent: 0.5,
  redundancyPenalty: 0.75,
  indexSyncLimit: 1000,
  orderEvictionCap: 2,
  visualAnnThreshold: 20_000,
};

/** Options of {@link RecommendationModels}. */
export interface RecommendationModelsOptions {
  website: WebsiteConfig;
  catalog: CatalogView;
  /** Wall clock in ms (slot time stamps, cache refresh); default `Date.now`. */
  now?: () => number;
  tuning?: Partial<RecommendationTuning>;
  /** Called with each failed build of a derived index (similar attributes, visual similarity). */
  onIndexError?: (error: unknown) => void;
  /**
   * Hold the background builds of the derived indexes until {@link RecommendationModels.startIndexes}
   * (the engine's start: searches first, then the indexes).
   */
  holdIndexes?: boolean;
  /**
   * Event-derived state to start from (a checkpoint, see model-checkpoint.ts), saved by
   * {@link RecommendationModels.saveState} with the same tuning. Loaded before the derived indexes
   * intern the catalog's products, so item ids stay those of the saved models. Throws when it does not fit.
   */
  state?: ModelState;
}

/** A seed of an aggregating tactic with its weight. */
interface Seed {
  item: number;
  weight: number;
}

/** The per-request context of the tactics. */
interface RequestContext {
  params: CheckedParams;
  productSeed: number;
  cartSeeds: number[];
  /** Seeds of the per-product tactics: the product, or (Cart) the cart items. */
  productSeeds: Seed[];
  recentSeeds: Seed[];
  customerHistoric: number[];
  candidateLimit: number;
  /** Whether an item may be recommended at all (not an input, in the catalog, in stock when asked). */
  accept: (item: number) => boolean;
  /** The request has no input item: `accept` depends only on the catalog version and `filterOutOfStock`. */
  noInputs: boolean;
}

/** A popular list re-ranked against redundancy, with what it was computed from (see RecommendationModels.popularItems). */
interface PopularMemo {
  rankingGeneration: number;
  limit: number;
  catalogVersion: number;
  purchases: number;
  places: number;
  inStockOnly: boolean;
  list: readonly Scored<number>[];
}

/** Recommendation models and methods of one website. */
export class RecommendationModels {
  private website: WebsiteConfig;
  private readonly catalog: CatalogView;
  private readonly now: () => number;
  private readonly tuning: RecommendationTuning;
  private readonly items = new Interner();
  private readonly viewCo: NeighbourTable;
  private readonly viewSessions = new GrowableFloat64();
  private readonly boughtCo: NeighbourTable;
  private readonly orderCounts = new GrowableFloat64();
  /** Per item: the pair weight of its orders summed (recency / n^basketSizeExponent), the denominator of its overlap shares. */
  private readonly boughtMass = new GrowableFloat64();
  /** Per item: stamp of the redundancy re-ranking that placed it (an O(1) "placed?" in the overlap look-ups). */
  private placedMarks = new Int32Array(1024);
  private placedStamp = 0;
  private readonly popularity: PopularityWindow;
  private readonly customers: CustomerHistory;
  private readonly attributes: AttributeSimilarity;
  private readonly visual: VisualSimilarity;
  private readonly status: ItemStatus;
  private boosted = new Map<string, string>();
  /** Origin of the forward-decay weights of bought-together (ms); set by the first purchase. */
  private decayOrigin = Number.NaN;
  /** Purchases applied by this instance (any change of the co-purchase tables counts one). */
  private purchasesApplied = 0;
  /** The last Popular Items list of a request without inputs. */
  private popularMemo: PopularMemo | undefined;
  /** Events applied and settings set, counted: part of what an answer is computed from ({@link AnswerBasis}). */
  private changes = 0;
  /** Answers kept for the same request while their basis holds (kept-answers.ts). */
  private readonly kept = new KeptAnswers();
  /**
   * The checked parameters and request key made from a frozen parameters object, by that object, then
   * by method: the HTTP adapter hands the same frozen object to every request with the same query
   * string, so a storefront's repeated request is checked and keyed once — also a product page asking
   * several methods with one query string (checking is pure; a frozen object cannot change). Weakly held;
   * at most one entry per method (seventeen) per object.
   */
  private readonly requests = new WeakMap<object, Map<MethodSpec, { style: boolean; checked: CheckedParams; key: string }>>();

  constructor(options: RecommendationModelsOptions) {
    this.website = options.website;
    this.catalog = options.catalog;
    this.now = options.now ?? Date.now;
    this.tuning = { ...DEFAULT_TUNING, ...options.tuning };
    this.viewCo = new NeighbourTable(this.tuning.viewNeighbourCap);
    this.boughtCo = new NeighbourTable(this.tuning.purchaseNeighbourCap);
    this.popularity = new PopularityWindow(this.tuning.popularWindowMs, this.tuning.popularRefreshMs, this.now);
    this.customers = new CustomerHistory(this.tuning.sessionCap, this.tuning.historicCap, this.tuning.purchasedCap);
    this.attributes = new AttributeSimilarity(this.catalog, this.items, undefined, undefined, this.tuning.indexSyncLimit);
    this.status = new ItemStatus(this.catalog, this.items);
    this.visual = new VisualSimilarity(this.catalog, this.items, { syncLimit: this.tuning.indexSyncLimit, annThreshold: this.tuning.visualAnnThreshold });
    if (options.state) this.loadState(options.state);
    this.attributes.index.onError = options.onIndexError;
    this.visual.index.onError = options.onIndexError;
    if (options.holdIndexes) {
      this.attributes.index.hold();
      this.visual.index.hold();
    }
    this.setWebsite(options.website);
    // Derived indexes are (re)built when the catalog changes, never at a look-up: the same request gets
    // the same answer, and readiness can wait for the first build.
    options.catalog.onNewVersion?.(() => this.refreshIndexes());
    this.refreshIndexes();
  }

  /** Settings changed (retail media, boost, style-id use, secret, field roles — the latter rebuild the attribute index). */
  setWebsite(config: WebsiteConfig): void {
    this.changes++;
    this.website = config;
    this.boosted = boostCampaigns(config.settings?.retailBoost?.collections);
    this.attributes.setFieldRoles(config.settings?.fieldRoles);
  }

  /**
   * Starts the builds the catalog (or the field roles) need: synchronously for a small catalog, else in
   * the background; the previous index answers until its replacement is swapped in. Called on every new
   * catalog version; never waits.
   */
  refreshIndexes(): void {
    this.attributes.index.refresh();
    this.visual.index.refresh();
  }

  /** Starts the derived indexes' builds held back by {@link RecommendationModelsOptions.holdIndexes}. */
  startIndexes(): void {
    this.attributes.index.release();
    this.visual.index.release();
  }

  /**
   * Whether the Similar Attributes and Visually Similar indexes may serve: built for the loaded catalog
   * (during a later rebuild the previous index serves, so this stays true), with the reason when not.
   */
  indexReadiness(): { ready: boolean; reason?: string } {
    const live = this.catalog.liveCount;
    for (const [name, index] of [['similar-attributes', this.attributes.index], ['visually-similar', this.visual.index]] as const) {
      const r = indexReadiness(name, index.status(), live);
      if (!r.ready) return r;
    }
    return { ready: true };
  }

  /** Feeds one durable view (live or replayed). Views of another website are ignored. */
  applyView(view: ViewRecord): void {
    if (view.websiteId !== undefined && view.websiteId !== this.website.websiteId) return;
    if (typeof view.refId !== 'string' || view.refId === '' || !Number.isFinite(view.eventTime)) return;
    this.changes++;
    const item = this.items.intern(view.refId);
    this.popularity.record(item, PopularityKind.View, view.eventTime);
    // Without a customer id the session stands for the visitor (never pool anonymous views together).
    const visitor = typeof view.customerId === 'string' && view.customerId !== '' ? view.customerId : `\u0000session:${String(view.sessionId)}`;
    const { newInSession, sessionItems } = this.customers.recordView(visitor, String(view.sessionId ?? ''), item, view.eventTime);
    if (!newInSession) return;
    this.viewSessions.add(item, 1);
    // sessionItems is newest first: [0] is the item viewed just before this one. Viewed one after the
    // other says more than viewed in the same session (browsing follows relations: accessories,
    // alternatives), and most in the direction of browsing: on a product page, what shoppers went on to
    // view next is the question.
    const forward = 1 + this.tuning.viewAdjacencyBonus;
    const backward = 1 + this.tuning.viewBackwardBonus;
    sessionItems.forEach((other, k) => {
      this.viewCo.add(other, item, k === 0 ? forward : 1);
      this.viewCo.add(item, other, k === 0 ? backward : 1);
    });
  }

  /** Feeds one durable purchase event (one order). Purchases of another website are ignored. */
  applyPurchase(purchase: PurchaseRecord): void {
    if (purchase.websiteId !== undefined && purchase.websiteId !== this.website.websiteId) return;
    if (!Number.isFinite(purchase.eventTime) || !Array.isArray(purchase.items)) return;
    this.changes++;
    this.purchasesApplied++;
    const distinct: number[] = [];
    const seen = new Set<number>();
    for (const line of purchase.items) {
      if (typeof line?.refId !== 'string' || line.refId === '') continue;
      const item = this.items.intern(line.refId);
      if (seen.has(item)) continue;
      seen.add(item);
      distinct.push(item);
    }
    if (distinct.length === 0) return;
    for (const item of distinct) {
      this.popularity.record(item, PopularityKind.Purchase, purchase.eventTime);
      this.orderCounts.add(item, 1);
    }
    const paired = distinct.length > this.tuning.orderItemCap ? distinct.slice(0, this.tuning.orderItemCap) : distinct;
    const recency = this.recencyWeight(purchase.eventTime);
    // A 3-item basket says more about each of its pairs than a 25-line wholesale order: 1/√n per pair.
    const w = recency / paired.length ** this.tuning.basketSizeExponent;
    for (const a of paired) this.boughtMass.add(a, w);
    if (paired.length > 1) for (const a of paired) this.boughtCo.addAll(a, paired, w, true, this.tuning.orderEvictionCap);
    if (typeof purchase.customerId === 'string' && purchase.customerId !== '') {
      const earlier = this.customers.recordPurchase(purchase.customerId, paired);
      const cw = (recency * this.tuning.customerCoPurchaseWeight) / paired.length;
      if (cw > 0) {
        // Bounded: the order's first `purchasedCap` items × the customer's latest `purchasedCap` earlier items.
        const cap = this.tuning.purchasedCap;
        const sources = paired.length > cap ? paired.slice(0, cap) : paired;
        if (earlier.length > 0) {
          // A weak second signal: it strengthens listed neighbours and fills free places, never evicts.
          for (const a of sources) this.boughtCo.addAll(a, earlier, cw, false);
          for (const b of earlier) this.boughtCo.addAll(b, sources, cw, false);
        }
      }
    }
  }

  /**
   * Writes the state the events built — item ids, co-view and co-purchase tables, counts, popularity
   * window, customer histories, decay origin — with the tuning it was built with (see model-state.ts).
   * The derived indexes (attributes, vectors, item status) are not part of it: they come from the
   * catalog. The arrays are shared, not copied: encode the state before the next event is applied.
   */
  saveState(state: ModelState): void {
    runSync(this.saveStateSteps(state));
  }

  /**
   * {@link saveState} one part at a time, yielding in between, for a caller that lets the event loop run
   * meanwhile and applies no event until it is over (EventService.atQuietPoint holds them). Only the
   * item ids can change in between — a recommendation or an index build interns catalog products — so
   * they are saved first, as copies; nothing else refers to ids interned later.
   */
  *saveStateSteps(state: ModelState): Generator<void, void, void> {
    state.putValue('tuning', this.tuning);
    state.putNumber('decayOrigin', this.decayOrigin);
    // Copies of the ids interned when it begins, in steps (interns between them are left out).
    yield* this.items.saveStateSteps(state, 'items');
    const parts: [string, { saveState(state: ModelState, name: string): void }][] = [
      ['viewCo', this.viewCo], ['viewSessions', this.viewSessions], ['boughtCo', this.boughtCo], ['orderCounts', this.orderCounts],
      ['boughtMass', this.boughtMass], ['popularity', this.popularity], ['customers', this.customers],
    ];
    for (const [name, part] of parts) {
      part.saveState(state, name);
      yield;
    }
  }

  /** Loads what {@link saveState} wrote (in the constructor only: nothing may have been interned yet). */
  private loadState(state: ModelState): void {
    if (JSON.stringify(state.value('tuning')) !== JSON.stringify(this.tuning)) throw new Error('the saved models were built with another tuning');
    this.decayOrigin = state.number('decayOrigin');
    this.items.loadState(state, 'items');
    this.viewCo.loadState(state, 'viewCo');
    this.viewSessions.loadState(state, 'viewSessions');
    this.boughtCo.loadState(state, 'boughtCo');
    this.orderCounts.loadState(state, 'orderCounts');
    this.boughtMass.loadState(state, 'boughtMass');
    this.popularity.loadState(state, 'popularity');
    this.customers.loadState(state, 'customers');
  }

  /**
   * What a customer viewed and bought (RefIds, newest first, as bounded by the history caps), for
   * personalized search; undefined for an unknown customer.
   */
  customerActivity(customerId: string): { purchased: string[]; recent: string[]; historic: string[] } | undefined {
    const state = this.customers.get(customerId);
    if (!state) return undefined;
    const names = (list: readonly number[]): string[] => list.map((i) => this.items.name(i));
    return { purchased: names(state.purchased), recent: names(state.recent), historic: names(state.historic) };
  }

  /** Runs a recommendation method (segment as in the spec, case-insensitive). */
  /**
   * A method's list. `cascade` replaces the method's tactics (in order) for this request: a
   * recommendations experiment's variant (experiments/experiment-service.ts).
   */
  recommend(method: string, params: RecommendParams, cascade?: readonly TacticKey[]): ModelRecommendation {
    const spec = resolveMethod(method);
    const { checked, key: request } = this.checkRequest(spec, params, cascade);
    const kept = this.kept.get(request, this.answerBasis());
    if (kept !== undefined) return kept;
    const excluded = new Set<number>();
    const productSeed = checked.productRef === undefined ? -1 : this.seedId(checked.productRef);
    if (productSeed >= 0) excluded.add(productSeed);
    const cartSeeds: number[] = [];
    for (const ref of checked.items) {
      const id = this.seedId(ref);
      if (id >= 0) {
        excluded.add(id);
        cartSeeds.push(id);
      }
    }
    const customer = checked.customerId === undefined ? undefined : this.customers.get(checked.customerId);
    const decay = this.tuning.recentSeedDecay;
    const recentSeeds = (customer?.recent ?? []).map((item, k) => ({ item, weight: 1 / (1 + decay * k) }));
    const productSeeds =
      checked.productRef !== undefined
        ? productSeed >= 0 ? [{ item: productSeed, weight: 1 }] : []
        : cartSeeds.map((item) => ({ item, weight: 1 }));
    const accept = (item: number): boolean => !excluded.has(item) && this.status.accepts(item, checked.filterOutOfStock);
    const ctx: RequestContext = {
      accept,
      params: checked,
      productSeed,
      cartSeeds,
      productSeeds,
      recentSeeds,
      customerHistoric: customer?.historic ?? [],
      candidateLimit: Math.max(50, checked.count * 3 + excluded.size),
      noInputs: excluded.size === 0,
    };
    const boostFactor = this.tuning.boostFactor;
    const boost = this.boosted.size === 0 ? undefined : (item: number) => (this.boosted.has(this.items.name(item)) ? boostFactor : 1);
    const count = spec.name === 'HistoricViewed' ? Math.min(checked.count, this.tuning.historicCap) : checked.count;
    // The shopper has seen the latest session's items: the other tactics set them aside, and the history
    // tactics (Recently Viewed) may answer when nothing else does but do not pad another tactic's list.
    const seen = spec.skipSessionItems && customer !== undefined && customer.recent.length > 0 ? new Set(customer.recent) : undefined;
    const tactics: Tactic<number>[] = (cascade ?? spec.tactics).map((key) => {
      const history = key === 'recentlyViewed' || key === 'historicViewed';
      return {
        label: TacticLabels[key],
        onlyToLead: spec.skipSessionItems === true && history,
        run: () => {
          const found = this.runTactic(key, ctx);
          return seen === undefined || history ? found : found.filter((c) => !seen.has(c.item));
        },
      };
    });
    const retailMedia = this.website.settings?.retailMedia;
    const position = sponsoredPosition(spec, retailMedia);
    // Retail media may pick its ad among every accepted candidate; otherwise the cascade checks only what it returns.
    const adSets = retailMedia?.adSets ?? [];
    const keepCandidates = position !== undefined && adSets.length > 0;
    const outcome: CascadeOutcome<number> = runFill(tactics, { accept, count, boost, keepCandidates });

    let picked = outcome.picked.map((p) => ({ item: this.items.name(p.item), label: p.label }));
    const websiteId = this.website.websiteId;
    let sponsored: { refId: string; data: RetailMediaSlotData } | undefined;
    if (keepCandidates && position !== undefined) {
      const candidates = new Set(outcome.candidates);
      ({ picked, sponsored } = addSponsoredSlot(picked, adSets, { position, count, secret: this.website.hmacSecret, timeMs: this.now() }, {
        inputs: [...(checked.productRef ? [checked.productRef] : []), ...checked.items],
        mayRecommend: (refId) => {
          const id = this.items.lookup(refId);
          if (id >= 0 && excluded.has(id)) return false;
          return this.catalog.has(refId) && !(checked.filterOutOfStock && !this.catalog.isInStock(refId));
        },
        isCandidate: (refId) => candidates.has(this.items.lookup(refId)),
        product: (refId) => this.catalog.getProduct(refId),
      }));
    }
    const answer: ModelRecommendation = {
      type: 1,
      code: 0,
      payload: picked.map((p) => p.item),
      slots: buildSlots(websiteId, picked, { sponsored, boosted: this.boosted }),
      recommenderId: recommenderIdOf(websiteId, spec.name),
    };
    // A sponsored slot is signed with the time it was served: such an answer is never the next one.
    if (!keepCandidates) this.kept.keep(request, this.answerBasis(), answer);
    return answer;
  }

  /**
   * The checked parameters of a request and its key: what the answer depends on besides its basis — the
   * method, the cascade, the checked parameters. Remembered for a frozen parameters object (its cart list
   * frozen too) without a cascade.
   */
  private checkRequest(spec: MethodSpec, params: RecommendParams, cascade: readonly TacticKey[] | undefined): { checked: CheckedParams; key: string } {
    const style = this.website.settings?.useStyleIdForVisualSimilarity === true;
    // Object.freeze is shallow: a library caller's frozen object may hold a cart list it still changes,
    // which the memo would then answer with the old cart's key. The cart (`items`) is the parameters'
    // only nested value; the adapter freezes it with the object (query.ts).
    const memo = cascade === undefined && typeof params === 'object' && params !== null && Object.isFrozen(params)
      && (params.items === undefined || Object.isFrozen(params.items));
    let bySpec = memo ? this.requests.get(params) : undefined;
    const known = bySpec?.get(spec);
    if (known !== undefined && known.style === style) return known;
    const checked = checkParams(spec, params, style);
    const key = `${spec.name}\u0000${cascade === undefined ? '' : cascade.join(',')}\u0000${JSON.stringify(checked)}`;
    if (memo) {
      if (bySpec === undefined) this.requests.set(params, (bySpec = new Map()));
      bySpec.set(spec, { style, checked, key });
    }
    return { checked, key };
  }

  /** What an answer is computed from besides its request, now (see {@link AnswerBasis}). */
  private answerBasis(): AnswerBasis {
    return {
      changes: this.changes, catalogVersion: this.catalog.version, ranking: this.popularity.refreshDue() ? -1 : this.popularity.generation,
      attributes: this.attributes.index.peek(), visual: this.visual.index.peek(),
    };
  }

  /** The bundle call: validates `body` (RECOMMEND_BAD_PARAMS naming the field) and assembles bundles. */
  bundles(body: unknown): ModelBundles {
    const checked = checkBundleBody(body);
    const inputs = checked.productRefIds.filter((ref) => this.catalog.has(ref));
    const seeds = inputs.map((ref) => this.seedId(ref)).filter((id) => id >= 0);
    const excluded = new Set(seeds);
    const accept = (item: number): boolean => !excluded.has(item) && this.status.accepts(item, checked.filterOutOfStock);
    const perBundle = checked.count - checked.productRefIds.length;
    const wanted = perBundle + checked.setCount - 1;
    const companions: number[] = [];
    const taken = new Set<number>();
    const take = (list: readonly Scored<number>[]): void => {
      for (const c of list) {
        if (companions.length >= wanted) return;
        if (taken.has(c.item) || !accept(c.item)) continue;
        taken.add(c.item);
        companions.push(c.item);
      }
    };
    if (inputs.length > 0) {
      // 1. Items bought with every input, then with fewer of them (coverage first, then summed normalised strength).
      take(this.boughtWithAll(seeds));
      // 2. Fallback: items viewed with the inputs; 3. popular items.
      if (companions.length < wanted) take(this.aggregate(seeds.map((item) => ({ item, weight: 1 })), (s) => this.viewedWith(s)));
      if (companions.length < wanted) take(this.popularity.ranking(wanted + excluded.size + 200));
    }
    const bundles = inputs.length === 0 ? [] : assembleBundles(inputs, companions.map((id) => this.items.name(id)), perBundle, checked.setCount);
    return { type: 1, code: 0, payload: bundles, recommenderId: recommenderIdOf(this.website.websiteId, 'bundle') };
  }

  /**
   * Resolves when the attribute and vector indexes reflect the catalog version current at the call
   * (starting their builds if needed). `recommend` never waits for them; this is for tests, warm-up
   * after a catalog load, and benchmarks.
   */
  async whenIndexesReady(): Promise<void> {
    await Promise.all([this.attributes.whenReady(), this.visual.whenReady()]);
  }

  /** Whether the attribute and vector indexes answering now reflect the current catalog version. */
  indexesUpToDate(): boolean {
    return this.attributes.upToDate && this.visual.upToDate;
  }

  /** Sizes of the models (for stats and the docs' memory figures). */
  modelStats(): { items: number; customers: number; viewNeighbourBytes: number; purchaseNeighbourBytes: number; viewNeighbourUsedBytes: number; purchaseNeighbourUsedBytes: number } {
    return {
      items: this.items.size,
      customers: this.customers.size,
      viewNeighbourBytes: this.viewCo.byteSize,
      purchaseNeighbourBytes: this.boughtCo.byteSize,
      viewNeighbourUsedBytes: this.viewCo.usedBytes,
      purchaseNeighbourUsedBytes: this.boughtCo.usedBytes,
    };
  }

  /** Forward-decay multiplier of an order at `time` (1 without decay); rescales the table when it grows large. */
  private recencyWeight(time: number): number {
    const half = this.tuning.boughtHalfLifeDays * DAY_MS;
    if (!(half > 0)) return 1;
    if (Number.isNaN(this.decayOrigin)) this.decayOrigin = time;
    let exponent = (time - this.decayOrigin) / half;
    while (exponent > 64) {
      // Keep Float32 weights in range: shift the origin by 64 half-lives and scale everything down alike.
      this.boughtCo.scale(2 ** -64);
      this.boughtMass.scale(2 ** -64);
      this.decayOrigin += 64 * half;
      exponent -= 64;
    }
    return 2 ** Math.max(-64, exponent);
  }

  /** The interned id of an input RefId: known from events, or a catalog product (interned now); else -1. */
  private seedId(refId: string): number {
    const id = this.items.lookup(refId);
    if (id >= 0 || !this.catalog.has(refId)) return id;
    return this.items.intern(refId);
  }

  private runTactic(key: TacticKey, ctx: RequestContext): readonly Scored<number>[] {
    const limit = ctx.candidateLimit;
    switch (key) {
      case 'viewedWith':
        return this.aggregate(ctx.productSeeds, (s) => this.viewedWith(s));
      case 'viewedTogether':
        return ctx.productSeed >= 0 ? this.viewedWith(ctx.productSeed) : [];
      case 'boughtWith':
        return this.lessRedundant(this.aggregate(ctx.productSeeds, (s) => this.boughtWith(s)), ctx);
      case 'boughtTogether':
        return ctx.productSeed >= 0 ? this.lessRedundant(this.boughtWith(ctx.productSeed), ctx) : [];
      case 'visuallySimilar':
        return this.visuallySimilar(ctx, limit);
      case 'viewedWithRecentlyViewed':
        return this.aggregate(ctx.recentSeeds, (s) => this.viewedWith(s));
      case 'boughtWithRecentlyViewed':
        return this.lessRedundant(this.aggregate(ctx.recentSeeds, (s) => this.boughtWith(s)), ctx);
      case 'boughtWithCartContents':
        return this.lessRedundant(this.aggregate(ctx.cartSeeds.map((item) => ({ item, weight: 1 })), (s) => this.boughtWith(s)), ctx);
      case 'recentlyViewed':
        return ctx.recentSeeds.map((s, k) => ({ item: s.item, score: ctx.recentSeeds.length - k }));
      case 'historicViewed':
        return ctx.customerHistoric.map((item, k) => ({ item, score: ctx.customerHistoric.length - k }));
      case 'popularItems':
        return this.popularItems(ctx, limit + 200);
      case 'jaccardViewedTogether':
        return ctx.productSeed >= 0 ? this.jaccard(ctx.productSeed) : [];
      case 'similarAttributes':
        return ctx.productSeed >= 0 ? this.attributes.similar(ctx.productSeed, limit) : [];
    }
  }

  /**
   * The popular items re-ranked against redundancy. Without input items the list is the same for every
   * shopper until the ranking is recomputed (at most once per `popularRefreshMs`), a purchase changes
   * the overlaps, or the catalog changes what is accepted: it is kept and reused until then (the
   * re-ranking was most of a PopularItems call's time).
   */
  private popularItems(ctx: RequestContext, limit: number): readonly Scored<number>[] {
    const ranking = this.popularity.ranking(limit);
    if (!ctx.noInputs) return this.lessRedundant(ranking, ctx);
    const key = {
      rankingGeneration: this.popularity.generation, limit, catalogVersion: this.catalog.version, purchases: this.purchasesApplied,
      places: ctx.params.count, inStockOnly: ctx.params.filterOutOfStock,
    };
    const memo = this.popularMemo;
    if (memo !== undefined && memo.rankingGeneration === key.rankingGeneration && memo.limit === key.limit && memo.catalogVersion === key.catalogVersion
      && memo.purchases === key.purchases && memo.places === key.places && memo.inStockOnly === key.inStockOnly) return memo.list;
    const list = this.lessRedundant(ranking, ctx);
    this.popularMemo = { ...key, list };
    return list;
  }

  private visuallySimilar(ctx: RequestContext, limit: number): readonly Scored<number>[] {
    if (ctx.params.productStyleId !== undefined) return this.visual.byStyle(ctx.params.productStyleId, limit);
    return this.aggregate(ctx.productSeeds, (s) => this.visual.byProduct(s, limit));
  }

  /** Co-viewed items of `seed` by number of shared sessions (ties: more sessions, then id). */
  private viewedWith(seed: number): Scored<number>[] {
    const out: Scored<number>[] = [];
    this.viewCo.forEachNeighbour(seed, (item, w) => out.push({ item, score: w }));
    return out.sort((x, y) => y.score - x.score || this.viewSessions.get(y.item) - this.viewSessions.get(x.item) || x.item - y.item);
  }

  /** Damped Jaccard over sessions: c / (n_seed + n_item − c + damping), c the co-view weight clipped to min(n_seed, n_item). */
  private jaccard(seed: number): Scored<number>[] {
    const ns = this.viewSessions.get(seed);
    const damping = this.tuning.jaccardDamping;
    const out: Scored<number>[] = [];
    this.viewCo.forEachNeighbour(seed, (item, w) => {
      const ni = this.viewSessions.get(item);
      // The co-view weight counts shared sessions plus the adjacency bonus: clipped to what can be shared.
      const c = Math.min(w, ns, ni);
      out.push({ item, score: c / (ns + ni - c + damping) });
    });
    return out.sort((x, y) => y.score - x.score || x.item - y.item);
  }

  /** Co-bought items of `seed` by order-normalised strength (ties: more orders, then id). */
  private boughtWith(seed: number): Scored<number>[] {
    const out: Scored<number>[] = [];
    const beta = this.tuning.boughtPopularityExponent;
    if (beta === 0) this.boughtCo.forEachNeighbour(seed, (item, w) => out.push({ item, score: w }));
    else this.boughtCo.forEachNeighbour(seed, (item, w) => out.push({ item, score: w * (this.orderCounts.get(item) + 1) ** beta }));
    return out.sort((x, y) => y.score - x.score || this.orderCounts.get(y.item) - this.orderCounts.get(x.item) || x.item - y.item);
  }

  /**
   * A co-bought or popular list re-ranked against redundancy (see redundancy.ts) for the places of the request:
   * the overlap of candidate c with a placed item x is weight(c → x) / mass(c), the share of c's
   * (weighted) orders that also held x — read from c's own list, where x is kept if c and x are
   * often bought together.
   */
  private lessRedundant(list: readonly Scored<number>[], ctx: RequestContext): readonly Scored<number>[] {
    const penalty = this.tuning.redundancyPenalty;
    if (!(penalty > 0) || list.length <= 1) return list;
    // Only items that may be shown take a place (and make others redundant).
    if (this.placedStamp === 0x7fffffff) {
      // Stamps are Int32: start over rather than wrap.
      this.placedMarks.fill(0);
      this.placedStamp = 0;
    }
    const stamp = ++this.placedStamp;
    if (this.placedMarks.length < this.items.size) this.placedMarks = new Int32Array(Math.max(this.items.size, 2 * this.placedMarks.length));
    const marks = this.placedMarks;
    let marked = 0;
    return lessRedundant(list.filter((c) => ctx.accept(c.item)), ctx.params.count, penalty, (c, placed) => {
      while (marked < placed.length) marks[placed[marked++]!] = stamp;
      const mass = this.boughtMass.get(c);
      return mass > 0 ? this.boughtCo.maxMarkedWeight(c, marks, stamp) / mass : 0;
    });
  }

  /** Items bought with all seeds first (number of seeds covered, then summed normalised strength). */
  private boughtWithAll(seeds: readonly number[]): Scored<number>[] {
    const cover = new Map<number, number>();
    const strength = new Map<number, number>();
    for (const s of seeds) {
      const list = this.boughtWith(s);
      const top = list.length > 0 ? list[0]!.score : 1;
      for (const c of list) {
        cover.set(c.item, (cover.get(c.item) ?? 0) + 1);
        strength.set(c.item, (strength.get(c.item) ?? 0) + c.score / top);
      }
    }
    const n = Math.max(1, seeds.length);
    const out: Scored<number>[] = [];
    // Coverage dominates: strength / n is below 1, so a candidate covering more seeds always ranks higher.
    for (const [item, c] of cover) out.push({ item, score: c + strength.get(item)! / (n + 1) });
    return out.sort((x, y) => y.score - x.score || x.item - y.item);
  }

  /**
   * Sums the neighbour lists of several seeds: each list is normalised by its best score, weighted by
   * the seed's weight; the seeds themselves are not returned.
   */
  private aggregate(seeds: readonly Seed[], neighbours: (seed: number) => readonly Scored<number>[]): Scored<number>[] {
    if (seeds.length === 0) return [];
    if (seeds.length === 1) {
      const only = seeds[0]!.item;
      return neighbours(only).filter((c) => c.item !== only);
    }
    const seedSet = new Set(seeds.map((s) => s.item));
    const scores = new Map<number, number>();
    for (const seed of seeds) {
      const list = neighbours(seed.item);
      if (list.length === 0) continue;
      const top = list[0]!.score > 0 ? list[0]!.score : 1;
      for (const c of list) {
        if (seedSet.has(c.item)) continue;
        scores.set(c.item, (scores.get(c.item) ?? 0) + (seed.weight * c.score) / top);
      }
    }
    const out: Scored<number>[] = [];
    for (const [item, score] of scores) out.push({ item, score });
    return out.sort((x, y) => y.score - x.score || x.item - y.item);
  }
}
