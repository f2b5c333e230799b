/**
 * The search log of every website: each search (first page only, `q` not empty) counted under its
 * normalised query and the hour it was made, in the store (`search_log`: one row per website, hour
 * and query, so growth follows distinct queries, not searches), for the searches report and for
 * `suggestions.queries`.
 *
 * Writes never slow a search: `record` only adds to an in-memory batch, written in one transaction
 * about every second (and at close). Rows older than {@link SEARCH_LOG_RETENTION_DAYS} are deleted by
 * those writes. A failed write keeps its rows for the next attempt (up to {@link MAX_PENDING_ROWS}
 * rows; beyond that the oldest are dropped), and is reported through `onError`.
 *
 * Completions come from an in-memory index per website of the queries that found something: loaded
 * from the store at start (the most frequent {@link MAX_INDEXED_QUERIES} of the retention window), kept
 * up to date by this process's own searches, and, when replicas share the store, reloaded from it every
 * {@link SEARCH_LOG_REFRESH_MS} so that the other replicas' searches count too.
 * @module
 */
import { lowerBound, type CatalogState } from '../catalog/catalog-index.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { SearchReport } from '../engine-api.js';
import { AisleError, ValidationError } from '../errors.js';
import { parseIsoDateTime, problemDetails } from '../events/validate-common.js';
import { mergeSuggestions, vocabularyCompletions } from '../search/query-suggestions.js';
import type { SearchLogRow, Store } from '../store/store.js';

/** Days of search log kept in the store. */
export const SEARCH_LOG_RETENTION_DAYS = 90;
/** How often the batch of searches is written to the store. */
export const SEARCH_LOG_FLUSH_MS = 1_000;
/** Longest normalised query logged (longer ones are cut): a pasted paragraph is not a query worth keeping whole. */
export const MAX_LOGGED_QUERY_LENGTH = 200;
/** Most rows waiting for the store (distinct website, hour and query) when its writes fail. */
export const MAX_PENDING_ROWS = 50_000;
/** Most distinct successful queries kept in memory per website for completions. */
export const MAX_INDEXED_QUERIES = 20_000;
/** How often replicas sharing a store reload the completion indexes from it. */
export const SEARCH_LOG_REFRESH_MS = 60_000;
/** Most entries of `payload.suggestions.queries`. */
export const MAX_SUGGESTED_QUERIES = 5;
/** Default and largest `limit` of the searches report. */
export const SEARCH_REPORT_LIMITS = { default: 20, max: 1_000 } as const;

const HOUR_MS = 3_600_000;

/** A query as the log keys it: its words joined by one space, cut at {@link MAX_LOGGED_QUERY_LENGTH}. */
export function logQuery(q: string): string {
  return tokenize(q).join(' ').slice(0, MAX_LOGGED_QUERY_LENGTH);
}

/** The start of the hour of `ms`. */
export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** Successful queries of one website, by count, with a sorted key list for prefix look-ups. */
class QueryIndex {
  readonly counts = new Map<string, number>();
  /** The queries in code-unit order (a new one is inserted in place: a memmove of at most 20 000 slots). */
  private sorted: string[] = [];

  add(query: string, n: number): void {
    const had = this.counts.get(query);
    if (had === undefined && this.counts.size >= MAX_INDEXED_QUERIES) this.evictRare();
    this.counts.set(query, (had ?? 0) + n);
    if (had === undefined) this.sorted.splice(lowerBound(this.sorted, query), 0, query);
  }

  /** Drops the queries seen once (the long tail) to make room. */
  private evictRare(): void {
    for (const [q, c] of this.counts) if (c <= 1) this.counts.delete(q);
    if (this.counts.size >= MAX_INDEXED_QUERIES) {
      const keep = [...this.counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_INDEXED_QUERIES / 2);
      this.counts.clear();
      for (const [q, c] of keep) this.counts.set(q, c);
    }
    this.sorted = [...this.counts.keys()].sort();
  }

  /** Up to `limit` queries that start with `prefix` (and are longer), most frequent first. */
  complete(prefix: string, limit: number): string[] {
    const found: [string, number][] = [];
    for (let i = lowerBound(this.sorted, prefix); i < this.sorted.length && this.sorted[i].startsWith(prefix); i++) {
      const q = this.sorted[i];
      const count = this.counts.get(q);
      if (q !== prefix && count !== undefined) found.push([q, count]);
    }
    return found.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit).map(([q]) => q);
  }
}

/** Options of a {@link SearchLog}. */
export interface SearchLogOptions {
  now?: () => number;
  /** Called when a batch cannot be written (the rows are kept for the next attempt). */
  onError: (err: unknown) => void;
}

/** The search log: batching writer, report reader, completion index. */
export class SearchLog {
  private pending = new Map<string, SearchLogRow>();
  private readonly indexes = new Map<string, QueryIndex>();
  private timer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly store: Store, private readonly options: SearchLogOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Loads a website's successful queries of the retention window into its completion index (replacing
   * it: the store holds this process's written searches too; those of the pending batch are added).
   */
  async load(websiteId: string): Promise<void> {
    const index = new QueryIndex();
    const since = hourOf(this.now() - SEARCH_LOG_RETENTION_DAYS * 24 * HOUR_MS);
    for (const { query, count } of await this.store.successfulQueries(websiteId, since, MAX_INDEXED_QUERIES)) index.add(query, count);
    for (const row of this.pending.values()) if (row.websiteId === websiteId && row.searches > row.noResults) index.add(row.query, row.searches - row.noResults);
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

  /** Counts one search (cheap: memory only; written with the next batch). */
  record(websiteId: string, q: string, totalResults: number): void {
    const query = logQuery(q);
    if (query === '') return;
    const hour = hourOf(this.now());
    const key = JSON.stringify([websiteId, hour, query]);
    const row = this.pending.get(key);
    if (row) {
      row.searches++;
      row.results += totalResults;
      if (totalResults === 0) row.noResults++;
    } else this.pending.set(key, { websiteId, hour, query, searches: 1, results: totalResults, noResults: totalResults === 0 ? 1 : 0 });
    if (totalResults > 0) {
      let index = this.indexes.get(websiteId);
      if (!index) this.indexes.set(websiteId, (index = new QueryIndex()));
      index.add(query, 1);
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => { this.timer = undefined; void this.flush(); }, SEARCH_LOG_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Up to `limit` logged successful queries completing `q`, most frequent first. */
  completions(websiteId: string, q: string, limit: number): string[] {
    const prefix = logQuery(q);
    if (prefix === '') return [];
    return this.indexes.get(websiteId)?.complete(prefix, limit) ?? [];
  }

  /** Writes the pending batch (one at a time); failures go to `onError`, the rows stay pending. */
  flush(): Promise<void> {
    this.writing = (this.writing ?? Promise.resolve()).then(() => this.writeBatch());
    return this.writing;
  }

  private async writeBatch(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.addSearchLog([...batch.values()], hourOf(this.now() - SEARCH_LOG_RETENTION_DAYS * 24 * HOUR_MS));
    } catch (err) {
      this.options.onError(err);
      // Kept for the next attempt, merged with what came meanwhile, within the bound.
      for (const [key, row] of this.pending) {
        const old = batch.get(key);
        if (old) { old.searches += row.searches; old.results += row.results; old.noResults += row.noResults; } else batch.set(key, row);
      }
      this.pending = batch.size <= MAX_PENDING_ROWS ? batch : new Map([...batch].slice(batch.size - MAX_PENDING_ROWS));
      if (this.timer === undefined) {
        this.timer = setTimeout(() => { this.timer = undefined; void this.flush(); }, SEARCH_LOG_FLUSH_MS);
        this.timer.unref();
      }
    }
  }

  /**
   * `suggestions.queries` for `q`: completions from the website's successful searches, then from the
   * catalog vocabulary, at most {@link MAX_SUGGESTED_QUERIES}.
   */
  suggestions(websiteId: string, q: string, catalog: CatalogState): string[] {
    const logged = this.completions(websiteId, q, MAX_SUGGESTED_QUERIES);
    if (logged.length >= MAX_SUGGESTED_QUERIES) return logged;
    return mergeSuggestions(q, logged, vocabularyCompletions(catalog, q, MAX_SUGGESTED_QUERIES), MAX_SUGGESTED_QUERIES);
  }

  /**
   * The searches report: per-query totals of the hours whose start lies in [hour of `from`, `to`]
   * (ISO 8601, both optional; `to` defaults to now), `limit` of each list. Throws `ValidationError`
   * naming a bad parameter, `STORE_FAILURE` when the store cannot be read.
   */
  async report(websiteId: string, range: { from?: string; to?: string; limit?: number | string }): Promise<SearchReport> {
    const errors: Record<string, string[]> = {};
    const fromMs = range.from === undefined ? 0 : parseIsoDateTime(range.from);
    const toMs = range.to === undefined ? this.now() : parseIsoDateTime(range.to);
    if (fromMs === undefined) errors.from = ['The from parameter must be an ISO 8601 date-time.'];
    if (toMs === undefined) errors.to = ['The to parameter must be an ISO 8601 date-time.'];
    const limit = range.limit === undefined ? SEARCH_REPORT_LIMITS.default : Number(range.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_REPORT_LIMITS.max) {
      errors.limit = [`The limit parameter must be an integer from 1 to ${SEARCH_REPORT_LIMITS.max}.`];
    }
    if (fromMs === undefined || toMs === undefined || Object.keys(errors).length > 0) throw new ValidationError(problemDetails(errors));
    // Searches still in the batch are part of the report.
    await this.flush();
    try {
      const totals = await this.store.searchLogTotals(websiteId, { fromHour: hourOf(fromMs), toHour: toMs, limit });
      return { websiteId, ...(range.from !== undefined && { from: range.from }), ...(range.to !== undefined && { to: range.to }), ...totals };
    } catch (err) {
      throw new AisleError('STORE_FAILURE', `the store failed to read the search log: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.refreshTimer);
    await this.refreshing;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
