/**
 * The SQL of the analytics tables, written once for both SQL stores (SQLite and PostgreSQL differ only
 * in the table prefix — PostgreSQL's schema —, the column types and the placeholder syntax): the
 * migration, the roll-up upsert's conflict clause, the report's totals query and the retention deletes.
 * @module
 */
import { EXPERIMENT_KEY_SEPARATOR, EXPERIMENT_KIND_PREFIX, LIFETIME_GRAIN, ROLLUP_COLUMNS, ROLLUP_GRAINS, type WindowRanges } from './analytics-rows.js';
import type { ResultPageRetention, RetentionKind } from './store.js';

/** The placeholder of the `i`-th parameter (1-based): `?` for SQLite, `$i` for PostgreSQL. */
export type Placeholder = (i: number) => string;

/** The roll-up row's key columns, in the order every statement binds them. */
export const ROLLUP_KEY_COLUMNS = ['website_id', 'kind', 'grain', 'start', 'key', 'tactic'] as const;

/**
 * The migration creating the analytics tables in `prefix` (`''` or `schema.`) with these integer and
 * real types, moving the search log's hourly rows into roll-up rows of every grain, and dropping it.
 * `clustered` ends the roll-up table's definition: SQLite's ` WITHOUT ROWID` stores the rows in key order,
 * so a report's range is one B-tree walk, not an index walk and a row look-up per row (about a sixth less
 * time measured).
 */
export function analyticsTablesSql(prefix: string, int: string, real: string, clustered: string): string {
  const counters = ROLLUP_COLUMNS.map((c) => `${c} ${c === 'revenue' ? real : int} NOT NULL DEFAULT 0`).join(', ');
  return `CREATE TABLE ${prefix}analytics_rollups (
     website_id TEXT NOT NULL, kind TEXT NOT NULL, grain TEXT NOT NULL, start ${int} NOT NULL, key TEXT NOT NULL, tactic TEXT NOT NULL,
     ${counters},
     PRIMARY KEY (${ROLLUP_KEY_COLUMNS.join(', ')})
   )${clustered};
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
   CREATE TABLE ${prefix}completion_queries (
     website_id TEXT NOT NULL, query TEXT NOT NULL, sessions ${int} NOT NULL,
     PRIMARY KEY (website_id, query)
   );
   CREATE INDEX completion_queries_sessions ON ${prefix}completion_queries (website_id, sessions);
   ${ROLLUP_GRAINS.map(({ grain, ms }) => `INSERT INTO ${prefix}analytics_rollups (${ROLLUP_KEY_COLUMNS.join(', ')}, responses, results, no_results)
     SELECT website_id, 'search', '${grain}', hour - hour % ${ms}, query, '', SUM(searches), SUM(results), SUM(no_results)
     FROM ${prefix}search_log GROUP BY website_id, hour - hour % ${ms}, query;`).join('\n   ')}
   DROP TABLE ${prefix}search_log;`;
}

/** The clause that makes an insert into `analytics_rollups AS r` add to an existing row. */
export const ROLLUP_CONFLICT_SQL = `ON CONFLICT (${ROLLUP_KEY_COLUMNS.join(', ')}) DO UPDATE SET `
  + ROLLUP_COLUMNS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ');

/**
 * The totals query of a website's roll-ups of one kind over a window, with its parameters. Each run of
 * rows is its own index range (`website_id, kind, grain, start` is the key's prefix) joined by `UNION
 * ALL`: one condition ORing the runs would not be an index range and would read every row of the kind.
 */
export function rollupTotalsSql(prefix: string, websiteId: string, kind: string, ranges: WindowRanges, ph: Placeholder): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const runs = ranges.map(({ grain, from, to }) => {
    params.push(websiteId, kind, grain, from, to);
    const n = params.length;
    return `SELECT key, tactic, ${ROLLUP_COLUMNS.join(', ')} FROM ${prefix}analytics_rollups
      WHERE website_id = ${ph(n - 4)} AND kind = ${ph(n - 3)} AND grain = ${ph(n - 2)} AND start >= ${ph(n - 1)} AND start <= ${ph(n)}`;
  });
  if (runs.length === 0) return { sql: `SELECT '' AS key, '' AS tactic WHERE 1 = 0`, params };
  const sums = ROLLUP_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(', ');
  return { sql: `SELECT key, tactic, ${sums} FROM (${runs.join(' UNION ALL ')}) AS runs GROUP BY key, tactic`, params };
}

/**
 * How a dialect takes the variant out of an experiment row's key: the part before the first character
 * of code `separator`, the whole key when it has none.
 */
export type VariantOfKey = (key: string, separator: number) => string;

/** SQLite's {@link VariantOfKey}. */
export const SQLITE_VARIANT_OF_KEY: VariantOfKey = (key, code) => `CASE WHEN instr(${key}, char(${code})) > 0 THEN substr(${key}, 1, instr(${key}, char(${code})) - 1) ELSE ${key} END`;
/** PostgreSQL's {@link VariantOfKey}. */
export const PG_VARIANT_OF_KEY: VariantOfKey = (key, code) => `split_part(${key}, chr(${code}), 1)`;

/**
 * The migration that gives the experiments logged before lifetime rows existed theirs (`LIFETIME_GRAIN`
 * in analytics-rows.ts): each customer's 64-day blocks summed (every delta is in exactly one of them).
 */
export function lifetimeRowsSql(prefix: string): string {
  const sums = ROLLUP_COLUMNS.map((c) => `SUM(${c})`).join(', ');
  return `INSERT INTO ${prefix}analytics_rollups (website_id, kind, grain, start, key, tactic, ${ROLLUP_COLUMNS.join(', ')})
    SELECT website_id, kind, '${LIFETIME_GRAIN}', 0, key, tactic, ${sums} FROM ${prefix}analytics_rollups
    WHERE kind LIKE '${EXPERIMENT_KIND_PREFIX}%' AND grain = '${ROLLUP_GRAINS.at(-1)!.grain}' GROUP BY website_id, kind, key, tactic`;
}

/**
 * The query of an experiment's `ExperimentSums` (parameters: website, kind): its lifetime rows — one per
 * customer and tactic, already summed as they were logged — summed per variant and tactic inside the
 * database, so a report reads a few rows and sums nothing per customer (decision 0050;
 * `experimentSumsOf` in analytics-rows.ts is the same arithmetic in JS). A customer's clicked responses
 * count at most their responses (a CTR is at most 1). The products of counters are taken in double precision (a customer's counters are integers; their squares summed over a million
 * customers stay exact far past any count a website reaches).
 */
export function experimentSumsSql(prefix: string, ph: Placeholder, variantOf: VariantOfKey): string {
  const product = (a: string, b: string) => `SUM(CAST(${a} AS DOUBLE PRECISION) * ${b})`;
  return `SELECT variant, tactic, COUNT(*) AS users, ${ROLLUP_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(', ')},
      SUM(CASE WHEN conversions > 0 THEN 1 ELSE 0 END) AS converters, SUM(ctr_clicked) AS ctr_clicked, ${product('ctr_clicked', 'ctr_clicked')} AS ctr_clicked_squares,
      ${product('responses', 'responses')} AS responses_squares, ${product('ctr_clicked', 'responses')} AS ctr_clicked_responses, SUM(revenue * revenue) AS revenue_squares
    FROM (SELECT ${variantOf('key', EXPERIMENT_KEY_SEPARATOR.charCodeAt(0))} AS variant, tactic, ${ROLLUP_COLUMNS.join(', ')},
        CASE WHEN clicked > responses THEN responses ELSE clicked END AS ctr_clicked
      FROM ${prefix}analytics_rollups WHERE website_id = ${ph(1)} AND kind = ${ph(2)} AND grain = '${LIFETIME_GRAIN}' AND start = 0
        AND (tactic <> '' OR responses > 0)) AS customers
    GROUP BY variant, tactic`;
}

/**
 * One statement deleting a batch of expired raw rows, bound to (websiteId, before, limit) by `bind`.
 * With `sessionsGone` it deletes session evidence and answers the query of each row deleted, which the
 * store takes off `completion_queries` ({@link completionDecrementSql}).
 */
export interface RetentionStatement {
  sql: string;
  bind: (websiteId: string, before: number, limit: number) => unknown[];
  sessionsGone?: true;
}

/** The statements deleting one batch of a kind's expired raw rows. */
export function retentionSql(prefix: string, kind: RetentionKind, ph: Placeholder): RetentionStatement[] {
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
    case 'clicks':
      // As events: the oldest `limit` clicks of the website, then those of them that expired.
      return [{
        sql: `DELETE FROM ${prefix}clicks WHERE seq IN (SELECT seq FROM ${prefix}clicks WHERE website_id = ${ph(1)}
          ORDER BY seq LIMIT ${ph(2)}) AND received_at < ${ph(3)}`,
        bind: (websiteId, before, limit) => [websiteId, limit, before],
      }];
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
          WHERE website_id = ${ph(1)} AND hour < ${ph(2)} LIMIT ${ph(3)}) RETURNING query`,
        bind: (websiteId, before, limit) => [websiteId, before, limit],
        sessionsGone: true,
      }];
    }
  }
}

/** Takes `n` sessions off a query's count (parameters: website, query, n), then drops counts at zero (website). */
export function completionDecrementSql(prefix: string, ph: Placeholder): [string, string] {
  return [
    `UPDATE ${prefix}completion_queries SET sessions = sessions - ${ph(3)} WHERE website_id = ${ph(1)} AND query = ${ph(2)}`,
    `DELETE FROM ${prefix}completion_queries WHERE website_id = ${ph(1)} AND sessions <= 0`,
  ];
}

/** Adds `n` sessions to a query's count (parameters: website, query, n). */
export function completionIncrementSql(prefix: string, ph: Placeholder): string {
  return `INSERT INTO ${prefix}completion_queries AS c (website_id, query, sessions) VALUES (${ph(1)}, ${ph(2)}, ${ph(3)})
    ON CONFLICT (website_id, query) DO UPDATE SET sessions = c.sessions + excluded.sessions`;
}

/** The sessions of the `limit` queries with the most (parameters: website, limit): rows of (query, session), one query's together. */
export function querySessionsSql(prefix: string, ph: Placeholder): string {
  return `WITH top AS (SELECT query, sessions FROM ${prefix}completion_queries WHERE website_id = ${ph(1)} ORDER BY sessions DESC LIMIT ${ph(2)})
    SELECT top.query, s.session FROM top JOIN ${prefix}query_sessions s ON s.website_id = ${ph(1)} AND s.query = top.query ORDER BY top.sessions DESC, top.query`;
}

/**
 * The two statements deleting one batch (at most `limit` rows each) of a website's result lists past its
 * retention (`ResultPageRetention`): those answered before `before`, oldest first; then the oldest beyond
 * the `keep` newest. The count is only walked (an index walk of `keep` entries) when the website's span of
 * sequence numbers — two index look-ups, at least its count of lists — exceeds `keep` (a CASE evaluates
 * the walk lazily on both databases). Parameters: {@link resultPagePruneArgs}.
 */
export function resultPagePruneSql(prefix: string, ph: Placeholder): [string, string] {
  const t = `${prefix}result_pages`;
  return [
    `DELETE FROM ${t} WHERE seq IN (SELECT seq FROM ${t} WHERE website_id = ${ph(1)} AND created_at < ${ph(2)} ORDER BY created_at LIMIT ${ph(3)})`,
    `DELETE FROM ${t} WHERE seq IN (SELECT seq FROM ${t} WHERE website_id = ${ph(1)} AND seq <= CASE
        WHEN (SELECT seq FROM ${t} WHERE website_id = ${ph(2)} ORDER BY seq DESC LIMIT 1) - (SELECT seq FROM ${t} WHERE website_id = ${ph(3)} ORDER BY seq LIMIT 1) >= ${ph(4)}
        THEN (SELECT seq FROM ${t} WHERE website_id = ${ph(5)} ORDER BY seq DESC LIMIT 1 OFFSET ${ph(6)}) ELSE 0 END
      ORDER BY seq LIMIT ${ph(7)})`,
  ];
}

/** The parameters of {@link resultPagePruneSql}'s two statements for one website's retention. */
export function resultPagePruneArgs(r: ResultPageRetention, limit: number): [unknown[], unknown[]] {
  return [[r.websiteId, r.before, limit], [r.websiteId, r.websiteId, r.websiteId, r.keep, r.websiteId, r.keep, limit]];
}
