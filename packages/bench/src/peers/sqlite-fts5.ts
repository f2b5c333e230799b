/**
 * SQLite FTS5 through better-sqlite3, as a Node team would set it up instead of a JavaScript search
 * library: a database file in a temporary directory (what an application keeps; WAL, synchronous=NORMAL,
 * a 1 GB mmap and a 256 MB page cache), a typed products table with btree indexes on the filter and
 * sort columns, and an external-content FTS5 table over title, brand and category (porter stemming
 * over unicode61 with diacritics folded, prefix indexes of 2 and 3 characters for the last word, which
 * is matched as a typed prefix as aisle does). Ranked by bm25() with column weights; total, facets and
 * min/max by count(*), GROUP BY and MIN/MAX over the matches (sql-search.ts); prepared statements
 * cached by their text. The build loads in one transaction, then builds the indexes, then runs FTS5's
 * `optimize` and ANALYZE.
 * @module
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';
import { NUMERIC_COLUMNS, productRow, readOutcome, ROW_COLUMNS, searchStatement, TEXT_COLUMNS, type SearchRow, type SqlDialect } from './sql-search.js';

/** Relative weights of title, brand and category in bm25() (PostgreSQL's default A/B/C weights 1, 0.4, 0.2). */
const BM25_WEIGHTS = '1.0, 0.4, 0.2';

const SQLITE_DIALECT: SqlDialect = {
  param(params, value) {
    params.push(value);
    return '?';
  },
  inList(params, column, list) {
    params.push(...list);
    return `${column} IN (${list.map(() => '?').join(', ')})`;
  },
  textMatch(params, terms) {
    // Each word quoted (FTS5 syntax characters stay literal), every word required, the last one a prefix.
    params.push(terms.map((t, i) => `"${t}"${i === terms.length - 1 ? '*' : ''}`).join(' '));
    return { join: ' JOIN products_fts ON products_fts.rowid = p.id', where: 'products_fts MATCH ?', rank: `bm25(products_fts, ${BM25_WEIGHTS})`,
      alone: { from: 'products_fts', id: 'products_fts.rowid' } };
  },
  rankAscending: true,
};

export class SqliteFts5Adapter implements SearchAdapter {
  readonly name: string;
  private readonly dir = mkdtempSync(join(tmpdir(), 'aisle-fts5-'));
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement<unknown[], SearchRow>>();

  constructor() {
    this.db = new Database(join(this.dir, 'catalog.db'));
    this.name = `SQLite ${(this.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v} FTS5 (better-sqlite3)`;
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('mmap_size = 1073741824');
    this.db.pragma('cache_size = -262144');
    this.db.pragma('temp_store = MEMORY');
  }

  build(products: Product[]): void {
    const db = this.db;
    db.exec(`CREATE TABLE products (id INTEGER PRIMARY KEY, ref_id TEXT NOT NULL, title TEXT,
      ${TEXT_COLUMNS.map((c) => `${c} TEXT`).join(', ')}, ${NUMERIC_COLUMNS.map((c) => `${c} REAL`).join(', ')})`);
    const insert = db.prepare(`INSERT INTO products (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`);
    db.transaction(() => {
      for (let i = 0; i < products.length; i++) insert.run(...productRow(products[i]!, i));
    })();
    // Indexes after the bulk load (faster than maintaining them row by row): one per filter/facet/sort
    // column, and category + price for the category page sorted by price.
    db.exec(`CREATE INDEX products_brand ON products (brand);
      CREATE INDEX products_category_price ON products (search_category, price);
      CREATE INDEX products_price ON products (price);
      CREATE INDEX products_brand_price ON products (brand, price);
      CREATE VIRTUAL TABLE products_fts USING fts5(title, brand, search_category, content='products', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2', prefix='2 3');
      INSERT INTO products_fts (products_fts) VALUES ('rebuild');
      INSERT INTO products_fts (products_fts) VALUES ('optimize');
      ANALYZE;`);
  }

  /** Bytes of the database file and its write-ahead log (its pages live in the OS cache and SQLite's, not in V8's heap). */
  storageBytes(): number {
    let total = 0;
    for (const f of ['catalog.db', 'catalog.db-wal']) {
      try { total += statSync(join(this.dir, f)).size; } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; }
    }
    return total;
  }

  search(request: SearchRequest): SearchOutcome {
    const { sql, params } = searchStatement(request, SQLITE_DIALECT);
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare<unknown[], SearchRow>(sql)));
    return readOutcome(request, statement.all(...params));
  }

  close(): Promise<void> {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
    return Promise.resolve();
  }
}
