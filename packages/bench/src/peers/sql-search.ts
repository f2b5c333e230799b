/**
 * What the SQL peers (SQLite FTS5, PostgreSQL full-text search) share: the typed products table they
 * load, and one SQL statement per request, written as a user of either database would write it. The
 * text match (a full-text index), the scope (WHERE on indexed columns), the total (count(*)), the facets
 * (GROUP BY), min/max (MIN/MAX) and the sorted page (ORDER BY … LIMIT/OFFSET, rank when there is no
 * sort) are all read from one materialised set of matches, so the full-text index is consulted once.
 * Only the dialect differs (placeholders, the match and rank expressions, list parameters).
 * @module
 */
import { DISTINCT_FIELD, type Product, type SearchOutcome, type SearchRequest } from '../types.js';
import { words } from '../workloads/sample.js';

/** The typed columns besides the title: text columns (facets, filters, sorts, the variants' group) and numeric ones. */
export const TEXT_COLUMNS = ['brand', 'search_category', DISTINCT_FIELD] as const;
export const NUMERIC_COLUMNS = ['price', 'ratings'] as const;
type Column = (typeof TEXT_COLUMNS)[number] | (typeof NUMERIC_COLUMNS)[number];
const COLUMNS: ReadonlySet<string> = new Set<string>([...TEXT_COLUMNS, ...NUMERIC_COLUMNS]);

/** The request keys these adapters answer; any other key is a request type they do not implement. */
const ANSWERED = new Set(['website_id', 'client', 'q', 'start', 'size', 'scope', 'aggregations', 'range_fields', 'sort_fields', 'distinct', 'range_buckets']);

/** One products row: id (the array index), refId, title, then TEXT_COLUMNS and NUMERIC_COLUMNS (null = missing). */
export type ProductRow = [number, string, string | null, ...(string | number | null)[]];

function asText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Numbers and numeric strings are numbers (as the plain scan reads them); anything else is missing. */
function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function productRow(p: Product, id: number): ProductRow {
  return [id, p.refId, asText(p.title), ...TEXT_COLUMNS.map((c) => asText(p[c])), ...NUMERIC_COLUMNS.map((c) => asNumber(p[c]))];
}

/** The columns of {@link productRow}, in order. */
export const ROW_COLUMNS = ['id', 'ref_id', 'title', ...TEXT_COLUMNS, ...NUMERIC_COLUMNS] as const;

/** What differs between the two databases when writing a search statement. */
export interface SqlDialect {
  /** Adds a parameter and returns its placeholder. */
  param(params: unknown[], value: unknown): string;
  /** `column IN (list)` with the list as parameters. */
  inList(params: unknown[], column: string, list: readonly string[]): string;
  /**
   * The text match over the products table aliased `p`: extra FROM items, the WHERE condition, the
   * rank expression (higher = better unless `rankAscending`). `terms`: the query words, the last one a prefix.
   */
  textMatch(params: unknown[], terms: readonly string[]): TextMatch;
  /** SQLite's bm25() is better when lower; ts_rank is better when higher. */
  readonly rankAscending: boolean;
}

export interface TextMatch {
  join: string;
  where: string;
  rank: string;
  /** When the full-text index is a table of its own: it alone (FROM, id column), for requests that need no product column. */
  alone?: { from: string; id: string };
}

export interface SearchStatement {
  sql: string;
  params: unknown[];
}

function column(field: string): Column {
  if (!COLUMNS.has(field)) throw new Error(`request type not implemented by this adapter (no column for field ${field})`);
  return field as Column;
}

/** Throws for requests these adapters do not answer (the peers run records the message, the report shows it). */
export function assertAnswerable(request: SearchRequest): void {
  for (const [key, value] of Object.entries(request)) {
    if (!ANSWERED.has(key) && value !== undefined && value !== false) throw new Error(`request type not implemented by this adapter (${key})`);
  }
}

/**
 * The one statement answering `request`. Its rows (part, key, n, lo, hi): part 0 the total (n); part 1
 * a facet value (key) and its count (n) of aggregations[hi]; part 2 min (lo) and max (hi) of
 * range_fields[n]; part 3 a page row (key = refId, n = its position); part 4 the count (lo) of band n
 * of range_buckets' field hi.
 */
export function searchStatement(request: SearchRequest, dialect: SqlDialect): SearchStatement {
  assertAnswerable(request);
  const params: unknown[] = [];
  const terms = words(request.q);
  const where: string[] = [];
  let join = '';
  let rank = 'NULL';
  let match: TextMatch | undefined;
  if (terms.length > 0) {
    match = dialect.textMatch(params, terms);
    join = match.join;
    where.push(match.where);
    rank = match.rank;
  }
  for (const [field, condition] of Object.entries(request.scope ?? {})) {
    const c = column(field);
    if (Array.isArray(condition)) where.push(dialect.inList(params, `p.${c}`, condition));
    else {
      if (condition.min !== undefined) where.push(`p.${c} >= ${dialect.param(params, condition.min)}`);
      if (condition.max !== undefined) where.push(`p.${c} <= ${dialect.param(params, condition.max)}`);
      if (condition.min === undefined && condition.max === undefined) where.push(`p.${c} IS NOT NULL`);
    }
  }
  const facets = (request.aggregations ?? []).map(column);
  const ranges = (request.range_fields ?? []).map(column);
  const sorts = (request.sort_fields ?? []).map((spec) => {
    const [field, { order }] = Object.entries(spec)[0]!;
    return { c: column(field), desc: order === 'desc' };
  });
  const buckets = Object.entries(request.range_buckets ?? {}).map(([field, bounds]) => [column(field), bounds] as const);
  const distinct = request.distinct === true;
  const needed = [...new Set<Column>([...facets, ...ranges, ...sorts.map((s) => s.c), ...buckets.map(([c]) => c), ...(distinct ? [column(DISTINCT_FIELD)] : [])])];
  // Missing values sort last whatever the direction (as the other engines do); ties by insertion order.
  const order = sorts.length > 0
    ? [...sorts.map((s) => `${s.c} ${s.desc ? 'DESC' : 'ASC'} NULLS LAST`), 'id'].join(', ')
    : terms.length > 0 ? `r ${dialect.rankAscending ? 'ASC' : 'DESC'}, id` : 'id';
  const start = request.start ?? 0;
  const size = request.size ?? 20;
  // `distinct`: one product per group value (the best by the order), products without one each their
  // own, as the other engines do; facets and ranges still count every match.
  const group = `NULLIF(${DISTINCT_FIELD}, '')`;
  const total = distinct ? `count(*) - count(${group}) + count(DISTINCT ${group})` : 'count(*)';
  const ranked = distinct
    ? `(SELECT * FROM (SELECT m.*, row_number() OVER (PARTITION BY ${group}, CASE WHEN ${group} IS NULL THEN id END ORDER BY ${order}) AS k FROM m) g WHERE k = 1) d`
    : 'm';
  const parts = [
    // Typed NULLs in the first branch: PostgreSQL takes a UNION's column types from it.
    `SELECT 0 AS part, CAST(NULL AS TEXT) AS key, ${total} AS n, CAST(NULL AS DOUBLE PRECISION) AS lo, CAST(NULL AS DOUBLE PRECISION) AS hi FROM m`,
    ...facets.map((c, k) => `SELECT 1, ${c}, count(*), NULL, ${k} FROM m WHERE ${c} IS NOT NULL GROUP BY ${c}`),
    ...ranges.map((c, k) => `SELECT 2, NULL, ${k}, min(${c}), max(${c}) FROM m`),
    // A band's index is the number of bounds at or below the value (values without one are not counted).
    ...buckets.map(([c, bounds], k) => `SELECT 4, NULL, b, count(*), ${k} FROM (SELECT CASE ${bounds.map((b, i) => `WHEN ${c} < ${dialect.param(params, b)} THEN ${i}`).join(' ')} ELSE ${bounds.length} END AS b FROM m WHERE ${c} IS NOT NULL) x GROUP BY b`),
    // The page's refIds are read for its rows only, by primary key (as a join, SQLite's planner scanned
    // the products table and probed the page: a full scan per query).
    `SELECT 3, (SELECT q.ref_id FROM products q WHERE q.id = t.id), t.pos, NULL, NULL FROM (SELECT id, row_number() OVER (ORDER BY ${order}) AS pos FROM ${ranked} ORDER BY ${order} LIMIT ${dialect.param(params, size)} OFFSET ${dialect.param(params, start)}) t`,
  ];
  // A plain text query reads the full-text index alone when it is a table of its own (no join per match).
  const from = match?.alone && where.length === 1 && needed.length === 0
    ? `SELECT ${match.alone.id} AS id, ${rank} AS r FROM ${match.alone.from}`
    : `SELECT ${['p.id', `${rank} AS r`, ...needed.map((c) => `p.${c}`)].join(', ')} FROM products p${join}`;
  const sql = `WITH m AS MATERIALIZED (${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''})\n${parts.join('\nUNION ALL ')}`;
  return { sql, params };
}

/** One row of a {@link searchStatement}'s answer (counts may come back as strings from PostgreSQL). */
export interface SearchRow {
  part: number;
  key: string | null;
  n: number | string | null;
  lo: number | null;
  hi: number | string | null;
}

/** Turns the statement's rows into the outcome every adapter returns (facets by count desc, then value). */
export function readOutcome(request: SearchRequest, rows: readonly SearchRow[]): SearchOutcome {
  const facets = request.aggregations ?? [];
  const ranges = request.range_fields ?? [];
  const outcome: SearchOutcome = { total: 0, ids: [] };
  const page: [number, string][] = [];
  const counts = facets.map(() => [] as { key: string; doc_count: number }[]);
  if (ranges.length) outcome.ranges = Object.fromEntries(ranges.map((f) => [f, { min: null, max: null }]));
  const bucketFields = Object.entries(request.range_buckets ?? {});
  const buckets = bucketFields.map(([, bounds]) => new Array<number>(bounds.length + 1).fill(0));
  for (const row of rows) {
    const part = Number(row.part);
    if (part === 0) outcome.total = Number(row.n);
    else if (part === 1) counts[Number(row.hi)]!.push({ key: row.key!, doc_count: Number(row.n) });
    else if (part === 2) outcome.ranges![ranges[Number(row.n)]!] = { min: row.lo === null ? null : Number(row.lo), max: row.hi === null ? null : Number(row.hi) };
    else if (part === 4) buckets[Number(row.hi)]![Number(row.n)] = Number(row.lo);
    else page.push([Number(row.n), row.key!]);
  }
  if (facets.length) {
    outcome.aggregations = Object.fromEntries(facets.map((f, k) => [f, counts[k]!.sort((a, b) => b.doc_count - a.doc_count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))]));
  }
  if (bucketFields.length) outcome.buckets = Object.fromEntries(bucketFields.map(([f], k) => [f, buckets[k]!]));
  outcome.ids = page.sort((a, b) => a[0] - b[0]).map(([, id]) => id);
  return outcome;
}
