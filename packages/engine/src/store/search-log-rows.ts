/**
 * The in-memory store's search-log arithmetic (the SQL stores do the same in SQL): row keys and the
 * per-query totals of a window. Pure.
 * @module
 */
import type { SearchLogRow, SearchLogTotals } from './store.js';

/** The key of a search-log row: website, hour, query. */
export function searchLogKey(row: Pick<SearchLogRow, 'websiteId' | 'hour' | 'query'>): string {
  return JSON.stringify([row.websiteId, row.hour, row.query]);
}

const byCountThenQuery = (a: { query: string; count: number }, b: { query: string; count: number }) => b.count - a.count || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0);

/** Per-query totals of `rows` (already limited to one website and window), `limit` of each list. */
export function totalsOfSearchLog(rows: readonly SearchLogRow[], limit: number): SearchLogTotals {
  const byQuery = new Map<string, { searches: number; results: number; noResults: number }>();
  for (const r of rows) {
    const t = byQuery.get(r.query) ?? { searches: 0, results: 0, noResults: 0 };
    t.searches += r.searches;
    t.results += r.results;
    t.noResults += r.noResults;
    byQuery.set(r.query, t);
  }
  const all = [...byQuery];
  return {
    top: all.map(([query, t]) => ({ query, count: t.searches, avgResults: t.results / t.searches })).sort(byCountThenQuery).slice(0, limit),
    noResults: all.filter(([, t]) => t.noResults > 0).map(([query, t]) => ({ query, count: t.noResults })).sort(byCountThenQuery).slice(0, limit),
  };
}
