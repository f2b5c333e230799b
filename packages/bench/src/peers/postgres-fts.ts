/**
 * PostgreSQL full-text search through `pg`, as a Node team would set it up instead of a JavaScript
 * search library: the server on this machine (`AISLE_BENCH_PG_URL`, default
 * postgres://postgres@127.0.0.1:5432), a database of its own (`aisle_bench_<pid>`, dropped on close),
 * a typed products table with a generated tsvector column (the english configuration
 * with accents folded by unaccent; title weight A,
 * brand B, category C), a GIN index on it, btree indexes on the filter and sort columns, the bulk
 * load by COPY, indexes built after it, then ANALYZE. Queries: `to_tsquery('shop', …)` with every
 * word required and the last one a prefix (`:*`, as aisle matches it), ts_rank ordering, total,
 * facets and min/max by count(*), GROUP BY and MIN/MAX over the matches (sql-search.ts), prepared
 * (named) statements; JIT off for the session (it costs more than these short queries take).
 * @module
 */
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';
import { NUMERIC_COLUMNS, productRow, readOutcome, ROW_COLUMNS, searchStatement, TEXT_COLUMNS, type SearchRow, type SqlDialect } from './sql-search.js';

/** The server the bench uses (trust auth on this machine). */
export const BENCH_PG_URL = process.env.AISLE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const PG_DIALECT: SqlDialect = {
  param(params, value) {
    params.push(value);
    return `$${params.length}`;
  },
  inList(params, column, list) {
    // One array parameter: the same statement text whatever the list's length (one prepared plan).
    params.push(list);
    return `${column} = ANY($${params.length}::text[])`;
  },
  textMatch(params, terms) {
    // The words are letters and digits only (words()), so they need no quoting in to_tsquery's syntax.
    params.push(terms.map((t, i) => `${t}${i === terms.length - 1 ? ':*' : ''}`).join(' & '));
    const query = `to_tsquery('shop', $${params.length})`;
    return { join: '', where: `p.tsv @@ ${query}`, rank: `ts_rank(p.tsv, ${query})` };
  },
  rankAscending: false,
};

/** One value in COPY's text format (tab-separated, \N for null, backslash escapes). */
function copyValue(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export class PostgresFtsAdapter implements SearchAdapter {
  name = 'PostgreSQL full-text search';
  private readonly database = `aisle_bench_${process.pid}_${Date.now().toString(36)}`;
  private client?: pg.Client;
  private readonly names = new Map<string, string>();

  async build(products: Product[]): Promise<void> {
    try {
      await this.load(products);
    } catch (err) {
      // The database must not outlive a failed build.
      await this.close();
      throw err;
    }
  }

  private async load(products: Product[]): Promise<void> {
    const admin = new pg.Client({ connectionString: BENCH_PG_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${this.database}`);
    } finally {
      await admin.end();
    }
    const client = (this.client = new pg.Client({ connectionString: withDatabase(BENCH_PG_URL, this.database) }));
    await client.connect();
    const version = (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
    this.name = `PostgreSQL ${version.split(' ')[0]} full-text search`;
    await client.query('SET jit = off');
    // The english configuration with accents folded first (the documented unaccent recipe): "cafe" finds "café".
    await client.query(`CREATE EXTENSION unaccent;
      CREATE TEXT SEARCH CONFIGURATION shop (COPY = english);
      ALTER TEXT SEARCH CONFIGURATION shop ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem`);
    await client.query(`CREATE TABLE products (id integer PRIMARY KEY, ref_id text NOT NULL, title text,
      ${TEXT_COLUMNS.map((c) => `${c} text COLLATE "C"`).join(', ')}, ${NUMERIC_COLUMNS.map((c) => `${c} double precision`).join(', ')},
      tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('shop', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('shop', coalesce(brand, '')), 'B') ||
        setweight(to_tsvector('shop', coalesce(search_category, '')), 'C')) STORED)`);
    const lines = (function* () {
      for (let i = 0; i < products.length; i++) yield `${productRow(products[i]!, i).map(copyValue).join('\t')}\n`;
    })();
    await pipeline(Readable.from(lines), client.query(copyFrom(`COPY products (${ROW_COLUMNS.join(', ')}) FROM STDIN`)));
    // Indexes after the load (one sort each instead of row-by-row maintenance), then planner statistics.
    await client.query(`CREATE INDEX products_tsv ON products USING gin (tsv)`);
    await client.query('CREATE INDEX products_brand_price ON products (brand, price)');
    await client.query('CREATE INDEX products_category_price ON products (search_category, price)');
    await client.query('CREATE INDEX products_price ON products (price)');
    await client.query('ANALYZE products');
  }

  /** Bytes of the database on disk (table, TOAST and indexes; the server's memory is not in this process). */
  async storageBytes(): Promise<number> {
    const r = await this.client!.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Number(r.rows[0]!.n);
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    const { sql, params } = searchStatement(request, PG_DIALECT);
    let name = this.names.get(sql);
    if (!name) this.names.set(sql, (name = `s${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`));
    const result = await this.client!.query<SearchRow>({ name, text: sql, values: params });
    return readOutcome(request, result.rows);
  }

  async close(): Promise<void> {
    await this.client?.end();
    this.client = undefined;
    const admin = new pg.Client({ connectionString: BENCH_PG_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}
