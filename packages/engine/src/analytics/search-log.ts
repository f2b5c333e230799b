/**
 * The analytics log of every website: searches (first page, `q` not empty) and recommendation
 * responses, the clicks and attributed purchases that follow them, as hourly and daily roll-ups in the
 * store (`analytics_rollups`: one row per website, hour or day, and query or method and tactic, so
 * reports read rows per distinct query, never the searches themselves), plus the raw logged responses
 * (`logged_responses`, deleted after `eventRetentionDays`) that let a click count once per search in
 * `ctr` (every search is logged; a recommendation response only once a click or a purchase names it). It feeds the searches and recommendations reports and `suggestions.queries`.
 *
 * A search is held in memory until its search-as-you-type chain can no longer grow (search-chains.ts,
 * 10 s); then it is counted, or, when a later search of its session absorbed it, logged as counted under
 * that one. Writes never slow a search: `record*` only add to an in-memory batch, written in one
 * transaction about every second (and at close, and before a report). A failed write keeps its batch for
 * the next attempt (up to {@link MAX_PENDING_ROWS} entries; beyond that the oldest are dropped), and is
 * reported through `onError`.
 *
 * Completions come from an in-memory index per website of the queries that found something, with the
 * distinct sessions that searched them (completion-index.ts): loaded from the store at start (the
 * `query_sessions` table: a checkpoint, nothing is replayed), kept up to date by this process's own
 * searches and, when replicas share the store, reloaded from it every {@link SEARCH_LOG_REFRESH_MS}.
 * @module
 */
import { createHash } from 'node:crypto';
import type { CatalogState } from '../catalog/catalog-index.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { queryIdTime } from '../clicks/query-ids.js';
import { SEARCH_REPORT_LIMITS } from '../contract/limits.js';
import {
  readReportTimes, RecommendationReportQuerySchema, SearchReportQuerySchema, type RecommendationReportParams, type SearchReportParams,
} from '../contract/query-schemas.js';
import { describeAjvError, validatorFor } from '../contract/validate.js';
import type { SuggestionSettings } from '../config.js';
import type { RecommendationReport, SearchReport } from '../engine-api.js';
import { AisleError, ValidationError } from '../errors.js';
import { problemDetails, unknownReportParameters } from '../events/validate-common.js';
import { mergeSuggestions, vocabularyCompletions } from '../search/query-suggestions.js';
import { EXPERIMENT_KEY_SEPARATOR, EXPERIMENT_KIND_PREFIX, hourOf } from '../store/analytics-rows.js';
import type {
  AnalyticsBatch, AnalyticsKind, ExperimentAnalyticsKind, LoggedResponse, QuerySession, ResponseOutcome, RollupCounter, RollupCounters, RollupDelta,
  RollupWindow, Store,
} from '../store/store.js';
import { CompletionIndex, MAX_INDEXED_QUERIES } from './completion-index.js';
import { recommendationReportOf, searchReportOf } from './reports.js';
import { CHAIN_WINDOW_MS, ChainBuffer, type ChainSearch } from './search-chains.js';
import { excludedPhrases, hasPersonalData, isExcluded } from './suggestion-filters.js';

/** How often the batch is written to the store. */
export const SEARCH_LOG_FLUSH_MS = 1_000;
/** Longest normalised query logged (longer ones are cut): a pasted paragraph is not a query worth keeping whole. */
export const MAX_LOGGED_QUERY_LENGTH = 200;
/** Most entries (responses, roll-up deltas, outcomes, sessions) waiting for the store when its writes fail. */
export const MAX_PENDING_ROWS = 50_000;
/** Pending entries that start a write at once, before the timer (a burst of traffic stays bounded in memory). */
export const FLUSH_AT_ENTRIES = 10_000;
/**
 * How long a click or conversion naming a response the store does not hold yet is kept back: another
 * replica answered the search and holds it until its search-as-you-type chain ends ({@link CHAIN_WINDOW_MS}),
 * then writes it with its next batch. Past this it is counted without its response (not in `clicked`).
 */
export const OUTCOME_WAIT_MS = CHAIN_WINDOW_MS + 5 * SEARCH_LOG_FLUSH_MS;
/** How often replicas sharing a store reload the completion indexes from it. */
export const SEARCH_LOG_REFRESH_MS = 60_000;
/** Most entries of `payload.suggestions.queries`. */
export const MAX_SUGGESTED_QUERIES = 5;
/** Candidates looked at per source: twice as many as shown, since some may have nothing within a scope. */
const SUGGESTION_CANDIDATES = 2 * MAX_SUGGESTED_QUERIES;

/** The catalog vocabulary's completions of `q`, neither excluded nor among `logged`: {@link SUGGESTION_CANDIDATES} at most. */
function vocabularyCandidates(catalog: CatalogState, q: string, phrases: readonly string[][], logged: readonly string[]): string[] {
  return vocabularyCompletions(catalog, q, SUGGESTION_CANDIDATES).filter((s) => !isExcluded(s, phrases) && !logged.includes(s));
}

/** Default and largest `limit` of the searches report (declared with the contract's other limits). */
export { SEARCH_REPORT_LIMITS } from '../contract/limits.js';

/** The last query {@link logQuery} normalised, and how (a search asks for its query's three or four times). */
let lastQuery: { q: string; logged: string } = { q: '', logged: '' };

/** A query as the log keys it: its words joined by one space, cut at {@link MAX_LOGGED_QUERY_LENGTH}. */
export function logQuery(q: string): string {
  if (q !== lastQuery.q) lastQuery = { q, logged: tokenize(q).join(' ').slice(0, MAX_LOGGED_QUERY_LENGTH) };
  return lastQuery.logged;
}

/** The experiment a logged response was served under (the list's experiment, without its teams). */
export interface ServedExperiment {
  id: string;
  /** The variant served (`"interleaved"` for an interleaved list). */
  variant: string;
  customerId: string;
}

/** The roll-up kind of one experiment's rows. */
export function experimentKind(experimentId: string): ExperimentAnalyticsKind {
  return `${EXPERIMENT_KIND_PREFIX}${experimentId}`;
}

export { EXPERIMENT_KEY_SEPARATOR };

/** The key of a customer's rows in an experiment's roll-ups: its variant and its id. */
export function experimentUserKey(variant: string, customerId: string): string {
  return `${variant}${EXPERIMENT_KEY_SEPARATOR}${customerId}`;
}

/**
 * The id under which a response is logged for its experiment: the response's own id is logged for the
 * search or recommendation reports, and one id is one logged response.
 */
function experimentResponseId(queryId: string): string {
  return queryId + EXPERIMENT_RESPONSE_SUFFIX;
}
const EXPERIMENT_RESPONSE_SUFFIX = '~x';

/** A search to log: the first page of a query. */
export interface LoggedSearch {
  /** The response's id (see query-id.ts). */
  queryId: string;
  /** `q` as typed. */
  q: string;
  /** The search's session: its `session_id`, else its `customer_id`; undefined when it has neither. */
  session: string | undefined;
  totalResults: number;
  /** The experiment that served it, when one did (counted in that experiment's roll-ups too). */
  experiment?: ServedExperiment;
}

/** A recommendation response to log. */
export interface ServedRecommendation {
  queryId: string;
  method: string;
  /** The tactic label of each item served, in order (none for a bundle: its items carry no label). */
  tactics: readonly string[];
  /** Items served when they carry no tactic label (a bundle response's RefIds); otherwise `tactics.length`. */
  items?: number;
  /** The experiment that served it, when one did. */
  experiment?: ServedExperiment;
}

/** What identifies the response a click or a conversion follows. */
interface OutcomeTarget {
  websiteId: string;
  /** When it happened (ms). */
  at: number;
  kind: AnalyticsKind;
  /** The response's id; absent or unknown: counted under `key` at the hour of `at`, outside `ctr`. */
  queryId?: string;
  /** The normalised query (searches) or the method (recommendations). */
  key: string;
  /** The tactic label of the item (recommendations). */
  tactic?: string;
  /**
   * The experiment the response was served under: the outcome counts in that experiment's row of the
   * customer too, per tactic (recommendations) or per credited team (`team`, interleaved lists).
   */
  experiment?: ServedExperiment & { team?: string };
}

/** A click on an item of a response (`type` `addToCart` is not a click event of these reports). */
export interface ClickOutcome extends OutcomeTarget {
  /** 1-based rank of the item in the whole list, when known. */
  position?: number;
  type: 'click' | 'addToCart';
}

/** A purchase line attributed to a response. */
export interface ConversionOutcome extends OutcomeTarget {
  revenue: number;
}

/** A search held until its chain ends. */
interface HeldSearch extends ChainSearch {
  websiteId: string;
  queryId: string;
  typed: string;
  results: number;
  experiment?: ServedExperiment;
}

/** Options of a {@link SearchLog}. */
export interface SearchLogOptions {
  now?: () => number;
  /**
   * Other processes log responses to this store too (replicas): an outcome naming a response the store
   * does not hold yet waits up to {@link OUTCOME_WAIT_MS} for it. Alone, a response is this process's or none.
   */
  sharedStore?: boolean;
  /** Called when a batch cannot be written (the rows are kept for the next attempt). */
  onError: (err: unknown) => void;
}

const emptyBatch = (): { responses: LoggedResponse[]; rollups: RollupDelta[]; outcomes: ResponseOutcome[]; sessions: QuerySession[] } =>
  ({ responses: [], rollups: [], outcomes: [], sessions: [] });

/**
 * The roll-up row a pending delta adds to, as a map key: the website and the tactic are length-prefixed
 * and the kind is letters followed by the hour's digits, so no two rows share a key whatever their strings.
 */
function pendingRollupKey(websiteId: string, kind: AnalyticsKind, hour: number, key: string, tactic: string): string {
  return `${websiteId.length}:${websiteId}${kind}${hour}:${tactic.length}:${tactic}${key}`;
}

/** The roll-up rows one recommendation response added to: its method's, then one per item (its tactic's). */
interface ServedRows {
  websiteId: string;
  hour: number;
  method: string;
  tactics: readonly string[];
  rows: RollupDelta[];
}

/** Whether two lists hold the same strings in the same order. Pure. */
function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * When a recommendation response was served, as its rows count it: the time its id carries (the ids of
 * a busy website's answers share one, at most `MAX_SIGNATURE_AGE_MS` before the answer), so the hour it
 * is counted in as served and the hour its first outcome logs it in are the same; `fallback` for a
 * string not shaped as an id. Pure.
 */
function servedAt(queryId: string, fallback: number): number {
  return queryIdTime(queryId) ?? fallback;
}

/** The session as the store keeps it: a digest, never the shopper's id. */
function sessionDigest(websiteId: string, session: string): string {
  return createHash('sha256').update(websiteId).update('\0').update(session).digest('base64url').slice(0, 22);
}

/** The analytics log: chain buffer, batching writer, report reader, completion index. */
export class SearchLog {
  private pending = emptyBatch();
  /** The pending roll-up deltas by their row ({@link pendingRollupKey}): a row's deltas add up as they come. */
  private readonly rollupIndex = new Map<string, RollupDelta>();
  /** The rows the last recommendation response added to, while they are pending (see {@link SearchLog.countServed}). */
  private lastServed: ServedRows | undefined;
  private readonly chains = new ChainBuffer<HeldSearch>();
  /** Ids of the searches held in the chain buffer: their outcomes wait for them. */
  private readonly held = new Set<string>();
  private readonly indexes = new Map<string, CompletionIndex>();
  private timer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  /** A write started because the batch grew past {@link FLUSH_AT_ENTRIES} is under way. */
  private burstWrite = false;
  private readonly now: () => number;
  /** When each pending outcome was first seen (see {@link OUTCOME_WAIT_MS}). */
  private readonly seen = new WeakMap<ResponseOutcome, number>();
  /** Closing: the last write applies every outcome (nothing waits any more). */
  private closing = false;

  constructor(private readonly store: Store, private readonly options: SearchLogOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Loads a website's completion evidence from the store into its index (replacing it: the store holds
   * this process's written sessions too; those still pending are added).
   */
  async load(websiteId: string): Promise<void> {
    const index = new CompletionIndex();
    for (const { query, sessions } of await this.store.querySessions(websiteId, MAX_INDEXED_QUERIES)) for (const s of sessions) index.add(query, s);
    for (const e of this.pending.sessions) if (e.websiteId === websiteId) index.add(e.query, e.session);
    this.indexes.set(websiteId, index);
  }

  /** Reloads the completion indexes of `websites()` every `intervalMs` (replicas sharing the store). */
  startRefreshing(websites: () => readonly string[], intervalMs = SEARCH_LOG_REFRESH_MS): void {
    this.refreshTimer = setInterval(() => {
      this.refreshing ??= (async () => {
        for (const id of websites()) await this.load(id);
      })().catch((err: unknown) => this.options.onError(err)).finally(() => { this.refreshing = undefined; });
    }, intervalMs);
    this.refreshTimer.unref();
  }

  /**
   * The distinct sessions whose first page of `query` (normalised) found something, as completions
   * count them (up to `SUGGESTION_LIMITS.minSessions`; a search-as-you-type chain counts once,
   * when it ends): the threshold of click ranking too.
   */
  sessionCount(websiteId: string, query: string): number {
    return this.indexes.get(websiteId)?.sessionsOf(query) ?? 0;
  }

  /** Logs the first page of a search (cheap: memory only; counted when its chain ends). */
  record(websiteId: string, search: LoggedSearch): void {
    const query = logQuery(search.q);
    if (query === '') return;
    const session = search.session === undefined ? undefined : `${websiteId}\0${search.session}`;
    this.chains.add({
      websiteId, queryId: search.queryId, typed: search.q, results: search.totalResults, session, at: this.now(), query,
      ...(search.experiment !== undefined && { experiment: search.experiment }),
    });
    this.held.add(search.queryId);
    this.schedule();
  }

  /** Logs a recommendation response (those without items are not served: nothing is logged). */
  recordServed(websiteId: string, served: ServedRecommendation): void {
    const items = served.items ?? served.tactics.length;
    if (items === 0) return;
    // Counted in the hour its id names, as its outcomes are (see addOutcome): no row of its own is
    // logged until a click or a purchase names it.
    const hour = hourOf(servedAt(served.queryId, this.now()));
    this.countServed(websiteId, hour, served.method, served.tactics, items);
    const x = served.experiment;
    if (x !== undefined) {
      const kind = experimentKind(x.id);
      const key = experimentUserKey(x.variant, x.customerId);
      this.addRollup(websiteId, kind, hour, key, '', { responses: 1, results: served.tactics.length });
      for (const tactic of served.tactics) this.addRollup(websiteId, kind, hour, key, tactic, { results: 1 });
    }
    this.schedule();
  }

  /** Counts a click on an item of a response (a search's key is normalised here). */
  recordClickOutcome(click: ClickOutcome): void {
    if (click.type !== 'click') return;
    const positioned = click.position !== undefined;
    this.addOutcome(click, { clicks: 1, positionedClicks: positioned ? 1 : 0, clickPositions: click.position ?? 0 }, 'clicked');
  }

  /** Counts a purchase line attributed to a response. */
  recordConversion(conversion: ConversionOutcome): void {
    this.addOutcome(conversion, { conversions: 1, revenue: conversion.revenue }, 'converted');
  }

  /**
   * Counts a recommendation response in its method's roll-up row and an item in its tactic's row for
   * each item. A busy endpoint serves the same method with the same tactics response after response:
   * the rows of the last response are kept, and a response like it adds to them without building their
   * keys and looking them up (four keys and look-ups for a list of three, the most of what logging a
   * response cost the main thread: docs/benchmarks.md, "Speed, round three").
   */
  private countServed(websiteId: string, hour: number, method: string, tactics: readonly string[], items: number): void {
    const last = this.lastServed;
    if (last !== undefined && last.websiteId === websiteId && last.hour === hour && last.method === method && sameStrings(last.tactics, tactics)) {
      const { counters } = last.rows[0]!;
      counters.responses = (counters.responses ?? 0) + 1;
      counters.results = (counters.results ?? 0) + items;
      for (let i = 1; i < last.rows.length; i++) {
        const row = last.rows[i]!.counters;
        row.results = (row.results ?? 0) + 1;
      }
      return;
    }
    const rows = [this.addRollup(websiteId, 'recommendation', hour, method, '', { responses: 1, results: items })];
    for (const tactic of tactics) rows.push(this.addRollup(websiteId, 'recommendation', hour, method, tactic, { results: 1 }));
    this.lastServed = { websiteId, hour, method, tactics, rows };
  }

  /**
   * Adds counters to the pending roll-up delta of (website, kind, hour, key, tactic), made when missing.
   * The deltas of one row add up here, as they are logged, instead of one delta per response: a busy
   * recommendation endpoint logs thousands of responses a second into a few rows, and a delta per
   * response cost more to hand to the store's thread and merge there than the recommendation itself
   * (docs/benchmarks.md, "Speed, round three").
   */
  private addRollup(websiteId: string, kind: AnalyticsKind, hour: number, key: string, tactic: string, counters: Partial<RollupCounters>): RollupDelta {
    const id = pendingRollupKey(websiteId, kind, hour, key, tactic);
    const delta = this.rollupIndex.get(id);
    if (delta === undefined) {
      const fresh: RollupDelta = { websiteId, kind, hour, key, tactic, counters: { ...counters } };
      this.rollupIndex.set(id, fresh);
      this.pending.rollups.push(fresh);
      return fresh;
    }
    for (const c of Object.keys(counters) as RollupCounter[]) delta.counters[c] = (delta.counters[c] ?? 0) + counters[c]!;
    return delta;
  }

  /** Forgets the index of the pending deltas (their batch is being written or replaced), and the last response's rows with it. */
  private clearRollupIndex(): void {
    this.rollupIndex.clear();
    this.lastServed = undefined;
  }

  /** Indexes the pending roll-up deltas by their row (after the pending batch was replaced). */
  private indexPendingRollups(): void {
    this.clearRollupIndex();
    for (const d of this.pending.rollups) this.rollupIndex.set(pendingRollupKey(d.websiteId, d.kind, d.hour, d.key, d.tactic), d);
  }

  private addOutcome(target: OutcomeTarget, counters: ResponseOutcome['counters'], flag: ResponseOutcome['flag']): void {
    const key = target.kind === 'search' ? logQuery(target.key) : target.key;
    const seen = this.now();
    const add = (o: ResponseOutcome) => {
      this.seen.set(o, seen);
      this.pending.outcomes.push(o);
    };
    add({
      websiteId: target.websiteId, kind: target.kind, at: target.at, key, counters, flag,
      ...(target.queryId !== undefined && { queryId: target.queryId }), ...(target.tactic !== undefined && { tactic: target.tactic }),
    });
    // A recommendation response is logged by its first outcome, not when served (the store inserts it
    // unless it holds it already, before it looks the outcome's response up): most responses get no
    // click, and a row per response was a third of the store's work on every answer (decision 0091).
    const logResponse = target.kind === 'recommendation' && target.queryId !== undefined;
    const at = logResponse ? servedAt(target.queryId!, target.at) : 0;
    if (logResponse) this.pending.responses.push({ websiteId: target.websiteId, queryId: target.queryId!, kind: 'recommendation', at, key, countedAs: null });
    const x = target.experiment;
    if (x !== undefined) {
      // The customer's row of the experiment, and its tactic's (recommendations) or credited team's (interleaving) row.
      const tactic = x.team ?? target.tactic;
      const userKey = experimentUserKey(x.variant, x.customerId);
      const queryId = target.queryId === undefined ? undefined : experimentResponseId(target.queryId);
      if (logResponse) this.pending.responses.push({ websiteId: target.websiteId, queryId: queryId!, kind: 'recommendation', at, key: userKey, countedAs: null });
      add({
        websiteId: target.websiteId, kind: experimentKind(x.id), at: target.at, key: userKey, counters, flag,
        ...(queryId !== undefined && { queryId }), ...(tactic !== undefined && { tactic }),
      });
    }
    this.schedule();
  }

  private schedule(): void {
    const { responses, rollups, outcomes, sessions } = this.pending;
    if (!this.burstWrite && responses.length + rollups.length + outcomes.length + sessions.length >= FLUSH_AT_ENTRIES) {
      this.burstWrite = true;
      void this.flush().finally(() => { this.burstWrite = false; });
      return;
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => { this.timer = undefined; void this.flush(); }, SEARCH_LOG_FLUSH_MS);
      this.timer.unref();
    }
  }

  /**
   * Writes the pending batch (one at a time): the searches whose chains ended (all of them with
   * `endChains`: before a report, at close), and the outcomes not waiting for a held search. Failures go
   * to `onError`; the batch stays pending.
   */
  flush(endChains = false): Promise<void> {
    this.writing = (this.writing ?? Promise.resolve()).then(() => this.writeBatch(endChains));
    return this.writing;
  }

  /** Moves the searches whose chains ended into the pending batch (counted rows, session evidence, completions). */
  private takeEndedChains(now: number): void {
    for (const { search, absorbed } of this.chains.finished(now)) {
      const { websiteId, queryId, query, results } = search;
      this.pending.responses.push({ websiteId, queryId, kind: 'search', at: search.at, key: query, countedAs: null });
      for (const a of absorbed) this.pending.responses.push({ websiteId, queryId: a.queryId, kind: 'search', at: a.at, key: a.query, countedAs: queryId });
      this.addRollup(websiteId, 'search', hourOf(search.at), query, '', { responses: 1, results, noResults: results === 0 ? 1 : 0 });
      this.countInExperiment(search, absorbed);
      for (const s of [search, ...absorbed]) this.held.delete(s.queryId);
      // Completion evidence: a session's search that found something, typed without personal data.
      if (search.session !== undefined && results > 0 && !hasPersonalData(search.typed)) {
        const session = sessionDigest(websiteId, search.session);
        let index = this.indexes.get(websiteId);
        if (!index) this.indexes.set(websiteId, (index = new CompletionIndex()));
        if (index.add(query, session)) this.pending.sessions.push({ websiteId, query, session, hour: hourOf(search.at) });
      }
    }
  }

  /**
   * An ended chain in its experiment's roll-ups, when its counted search was served by one: one search
   * of the customer's row, with the chain's other searches logged as counted under it (their clicks
   * count once, in that search's `clicked`).
   */
  private countInExperiment(search: HeldSearch, absorbed: readonly HeldSearch[]): void {
    const x = search.experiment;
    if (x === undefined) return;
    const { websiteId } = search;
    const key = experimentUserKey(x.variant, x.customerId);
    const counted = experimentResponseId(search.queryId);
    this.pending.responses.push({ websiteId, queryId: counted, kind: 'search', at: search.at, key, countedAs: null });
    for (const a of absorbed) {
      if (a.experiment !== undefined) this.pending.responses.push({ websiteId, queryId: experimentResponseId(a.queryId), kind: 'search', at: a.at, key, countedAs: counted });
    }
    this.addRollup(websiteId, experimentKind(x.id), hourOf(search.at), key, '', { responses: 1 });
  }

  private async writeBatch(endChains: boolean): Promise<void> {
    this.takeEndedChains(endChains ? Infinity : this.now());
    // An experiment's outcome waits for the search it names as the search's own outcome does.
    const isWaiting = (o: ResponseOutcome) => o.queryId !== undefined && this.held.has(o.queryId.endsWith(EXPERIMENT_RESPONSE_SUFFIX) ? o.queryId.slice(0, -EXPERIMENT_RESPONSE_SUFFIX.length) : o.queryId);
    const waiting = this.pending.outcomes.filter(isWaiting);
    const batch: AnalyticsBatch = { ...this.pending, outcomes: this.pending.outcomes.filter((o) => !isWaiting(o)) };
    this.pending = { ...emptyBatch(), outcomes: waiting };
    this.clearRollupIndex();
    if (this.chains.size > 0 || waiting.length > 0) this.schedule();
    if (batch.responses.length + batch.rollups.length + batch.outcomes.length + batch.sessions.length === 0) return;
    // An outcome naming a response the store does not hold yet waits a while: another replica may still hold it.
    const now = this.now();
    // Bounded: past MAX_PENDING_ROWS outcomes nothing waits (a flood of unknown ids is counted at once).
    const mayWait = this.options.sharedStore === true && !this.closing && batch.outcomes.length < MAX_PENDING_ROWS;
    for (const o of batch.outcomes) o.wait = mayWait && o.queryId !== undefined && now - (this.seen.get(o) ?? now) < OUTCOME_WAIT_MS;
    try {
      const kept = await this.store.writeAnalytics(batch);
      if (kept.length > 0) {
        this.pending.outcomes.unshift(...kept.map((i) => batch.outcomes[i]!));
        this.schedule();
      }
    } catch (err) {
      this.options.onError(err);
      // Kept for the next attempt, before what came meanwhile, within the bound (the oldest go first).
      const merged = emptyBatch();
      let dropped = 0;
      for (const part of ['responses', 'rollups', 'outcomes', 'sessions'] as const) {
        const kept = [...batch[part], ...this.pending[part]];
        dropped += Math.max(0, kept.length - MAX_PENDING_ROWS);
        (merged[part] as unknown[]) = kept.slice(-MAX_PENDING_ROWS);
      }
      this.pending = merged;
      // Said, not silent: the reports will miss these (a store away for that long lost them).
      if (dropped > 0) {
        this.options.onError(new Error(`the search log dropped its ${dropped} oldest pending entries: the store failed for longer than `
          + `${MAX_PENDING_ROWS} entries of a kind can wait, and the reports will miss them`));
      }
      this.indexPendingRollups();
      this.schedule();
    }
  }

  /**
   * `suggestions.queries` for `q`: completions from the website's search log that pass its settings
   * (distinct sessions, excluded words) and `hasResults` (the request's scope), then from the catalog
   * vocabulary (also through `hasResults`), at most {@link MAX_SUGGESTED_QUERIES}. Without
   * `hasResults`, {@link suggestionsNow}.
   */
  async suggestions(
    websiteId: string, q: string, catalog: CatalogState, settings: Required<SuggestionSettings>, hasResults?: (query: string) => Promise<boolean>,
  ): Promise<string[]> {
    if (hasResults === undefined) return this.suggestionsNow(websiteId, q, catalog, settings);
    const phrases = excludedPhrases(settings.exclude);
    // The candidates in order, up to the number shown, those without results within the scope left out.
    const keep = async (list: readonly string[]): Promise<string[]> => {
      const kept: string[] = [];
      for (const s of list) if (kept.length < MAX_SUGGESTED_QUERIES && await hasResults(s)) kept.push(s);
      return kept;
    };
    const logged = await keep(this.loggedCandidates(websiteId, q, settings, phrases));
    if (logged.length >= MAX_SUGGESTED_QUERIES) return logged;
    const fromVocabulary = await keep(vocabularyCandidates(catalog, q, phrases, logged));
    return mergeSuggestions(q, logged, fromVocabulary, MAX_SUGGESTED_QUERIES);
  }

  /**
   * {@link suggestions} of a search without a scope to check them against (every search but those
   * through a key with a forced scope), on the caller's turn: the same candidates, the first
   * {@link MAX_SUGGESTED_QUERIES} kept, without the two awaits a search paid for nothing.
   */
  suggestionsNow(websiteId: string, q: string, catalog: CatalogState, settings: Required<SuggestionSettings>): string[] {
    const phrases = excludedPhrases(settings.exclude);
    const logged = this.loggedCandidates(websiteId, q, settings, phrases).slice(0, MAX_SUGGESTED_QUERIES);
    if (logged.length >= MAX_SUGGESTED_QUERIES) return logged;
    const fromVocabulary = vocabularyCandidates(catalog, q, phrases, logged).slice(0, MAX_SUGGESTED_QUERIES);
    return mergeSuggestions(q, logged, fromVocabulary, MAX_SUGGESTED_QUERIES);
  }

  /** The search log's completions of `q`, not excluded, best first: {@link SUGGESTION_CANDIDATES} at most. */
  private loggedCandidates(websiteId: string, q: string, settings: Required<SuggestionSettings>, phrases: readonly string[][]): string[] {
    const prefix = logQuery(q);
    if (prefix === '') return [];
    return this.indexes.get(websiteId)?.complete(prefix, settings.minSessions, SUGGESTION_CANDIDATES, (query) => !isExcluded(query, phrases)) ?? [];
  }

  /**
   * A report's window from its `from`/`to` (ISO 8601, both optional; `to` defaults to now), read by the
   * contract's `readReportTimes`; every bad one is added to `errors`.
   */
  private window(range: { from?: string; to?: string }, schema: { properties: object }, errors: Record<string, string[]>): RollupWindow | undefined {
    const times = readReportTimes(range);
    Object.assign(errors, times.errors, unknownReportParameters(range, schema));
    if (Object.keys(errors).length > 0) return undefined;
    return { fromHour: hourOf(times.fromMs ?? 0), toHour: times.toMs ?? this.now() };
  }

  /** Reads the totals of a window, after writing what is pending (held chains end now). */
  private async totals(websiteId: string, kind: AnalyticsKind, window: RollupWindow) {
    await this.flush(true);
    try {
      return await this.store.rollupTotals(websiteId, kind, window);
    } catch (err) {
      throw new AisleError('STORE_FAILURE', `the store failed to read the analytics roll-ups: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }

  /**
   * The searches report: per-query totals of the hours whose start lies in [hour of `from`, `to`],
   * `limit` of each list. Throws `ValidationError` naming a bad parameter, `STORE_FAILURE` when the
   * store cannot be read.
   */
  async report(websiteId: string, range: SearchReportParams): Promise<SearchReport> {
    const errors: Record<string, string[]> = {};
    const window = this.window(range, SearchReportQuerySchema, errors);
    // The HTTP adapter decodes `limit` by the same schema; a library caller's value is checked here.
    const limit = range.limit ?? SEARCH_REPORT_LIMITS.default;
    const limitCheck = validatorFor(SearchReportQuerySchema);
    if (!limitCheck({ limit })) errors.limit = [`The limit parameter ${describeAjvError(limitCheck.errors).message}.`];
    if (window === undefined || Object.keys(errors).length > 0) throw new ValidationError(problemDetails(errors));
    const lists = searchReportOf(await this.totals(websiteId, 'search', window), limit);
    return { websiteId, ...(range.from !== undefined && { from: range.from }), ...(range.to !== undefined && { to: range.to }), ...lists };
  }

  /** The recommendations report over the same window as {@link report}. */
  async recommendationReport(websiteId: string, range: RecommendationReportParams): Promise<RecommendationReport> {
    const errors: Record<string, string[]> = {};
    const window = this.window(range, RecommendationReportQuerySchema, errors);
    if (window === undefined) throw new ValidationError(problemDetails(errors));
    const methods = recommendationReportOf(await this.totals(websiteId, 'recommendation', window));
    return { websiteId, ...(range.from !== undefined && { from: range.from }), ...(range.to !== undefined && { to: range.to }), methods };
  }

  /** Stops the timers and writes what is pending (held chains end now). */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.refreshTimer);
    await this.refreshing;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush(true);
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
