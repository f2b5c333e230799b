/**
 * The SQL of the analytics tables, written once for both SQL stores (SQLite and PostgreSQL differ only
 * in the table prefix — PostgreSQL's schema —, the column types and the placeholder syntax): the
 * migration, the roll-up upsert's conflict clause, the report's totals query and the retention deletes.
 * @module
 */
import { ROLLUP_COLUMNS, type WindowRanges } from './analytics-rows.js';
import type { RetentionKind } from './store.js';

/** The placeholder of the `i`-th parameter (1-based): `?` for SQLite, `$i` for PostgreSQL. */
export type Placeholder = (i: number) => string;

/** The roll-up row's key columns, in the order every statement binds them. */
export const ROLLUP_KEY_COLUMNS = ['website_id', 'kind', 'grain', 'start', 'key', 'tactic'] as const;

/**
 * The migration creating the analytics tables in `prefix` (`''` or `schema.`) with these integer and
 * real types, moving the search log's hourly rows into hourly and daily roll-up rows, and dropping it.
 */
export function analyticsTablesSql(prefix: string, int: string, real: string): string {
  const counters = ROLLUP_COLUMNS.map((c) => `${c} ${c === 'revenue' ? real : int} NOT NULL DEFAULT 0`).join(', ');
  return `CREATE TABLE ${prefix}analytics_rollups (
     website_id TEXT NOT NULL, kind TEXT NOT NULL, grain TEXT NOT NULL, start ${int} NOT NULL, key TEXT NOT NULL, tactic TEXT NOT NULL,
     ${counters},
     PRIMARY KEY (${ROLLUP_KEY_COLUMNS.join(', ')})
   );
   CREATE TABLE ${prefix}logged_responses (
     query_id TEXT PRIMARY KEY, website_id TEXT NOT NULL, kind TEXT NOT NULL, at ${int} NOT NULL, key TEXT NOT NULL,
     counted_as TEXT, clicked ${int} NOT NULL, converted ${int} NOT NULL
   );
   CREATE INDEX logged_responses_age ON ${prefix}logged_responses (website_id, kind, at);
   CREATE TABLE ${prefix}query_sessions (
     website_id TEXT NOT NULL, query TEXT NOT NULL, session TEXT NOT NULL, hour ${int} NOT NULL,
     PRIMARY KEY (website_id, query, session)
   );
   CREATE INDEX query_sessions_age ON ${prefix}query_sessions (website_id, hour);
   INSERT INTO ${prefix}analytics_rollups (${ROLLUP_KEY_COLUMNS.join(', ')}, responses, results, no_results)
     SELECT website_id, 'search', 'h', hour, query, '', searches, results, no_results FROM ${prefix}search_log;
   INSERT INTO ${prefix}analytics_rollups (${ROLLUP_KEY_COLUMNS.join(', ')}, responses, results, no_results)
     SELECT website_id, 'search', 'd', hour - hour % 86400000, query, '', SUM(searches), SUM(results), SUM(no_results)
     FROM ${prefix}search_log GROUP BY website_id, hour - hour % 86400000, query;
   DROP TABLE ${prefix}search_log;`;
}

/** The clause that makes an insert into `analytics_rollups AS r` add to an existing row. */
export const ROLLUP_CONFLICT_SQL = `ON CONFLICT (${ROLLUP_KEY_COLUMNS.join(', ')}) DO UPDATE SET `
  + ROLLUP_COLUMNS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ');

/** The totals query of a window: website and kind, then the ranges' bounds, are its parameters. */
export function rollupTotalsSql(prefix: string, ranges: WindowRanges, ph: Placeholder): { sql: string; params: number[] } {
  const params: number[] = [];
  const conditions: string[] = [];
  const range = (grain: 'h' | 'd', [a, b]: [number, number]) => {
    params.push(a, b);
    conditions.push(`(grain = '${grain}' AND start >= ${ph(params.length + 1)} AND start <= ${ph(params.length + 2)})`);
  };
  for (const h of ranges.hours) range('h', h);
  if (ranges.days) range('d', ranges.days);
  const sums = ROLLUP_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(', ');
  return {
    sql: `SELECT key, tactic, ${sums} FROM ${prefix}analytics_rollups WHERE website_id = ${ph(1)} AND kind = ${ph(2)}
      AND (${conditions.length > 0 ? conditions.join(' OR ') : '1 = 0'}) GROUP BY key, tactic`,
    params,
  };
}

/** The statements deleting one batch of a kind's expired raw rows, each bound to (websiteId, before, limit) by `bind`. */
export function retentionSql(prefix: string, kind: RetentionKind, ph: Placeholder): { sql: string; bind: (websiteId: string, before: number, limit: number) => unknown[] }[] {
  switch (kind) {
    case 'views':
    case 'purchases': {
      const eventKind = kind === 'views' ? 'view' : 'purchase';
      // The oldest `limit` events first, then those of them that expired: an index range of `limit`
      // entries, never a scan of every event when none has expired.
      return [{
        sql: `DELETE FROM ${prefix}events WHERE seq IN (SELECT seq FROM ${prefix}events WHERE website_id = ${ph(1)} AND kind = '${eventKind}'
          ORDER BY seq LIMIT ${ph(2)}) AND received_at < ${ph(3)}`,
        bind: (websiteId, before, limit) => [websiteId, limit, before],
      }];
    }
    case 'searches':
    case 'recommendations': {
      const responses = {
        sql: `DELETE FROM ${prefix}logged_responses WHERE query_id IN (SELECT query_id FROM ${prefix}logged_responses
          WHERE website_id = ${ph(1)} AND kind = '${kind === 'searches' ? 'search' : 'recommendation'}' AND at < ${ph(2)} ORDER BY at LIMIT ${ph(3)})`,
        bind: (websiteId: string, before: number, limit: number) => [websiteId, before, limit],
      };
      if (kind === 'recommendations') return [responses];
      return [responses, {
        sql: `DELETE FROM ${prefix}query_sessions WHERE (website_id, query, session) IN (SELECT website_id, query, session FROM ${prefix}query_sessions
          WHERE website_id = ${ph(1)} AND hour < ${ph(2)} LIMIT ${ph(3)})`,
        bind: (websiteId, before, limit) => [websiteId, before, limit],
      }];
    }
  }
}
