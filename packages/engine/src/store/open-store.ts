/**
 * Picks and opens the store a configuration names.
 * @module
 */
import path from 'node:path';
import type { StoreConfig } from '../config.js';
import { MemoryStore } from './memory-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** Default file name of the embedded store inside the data directory. */
export const DEFAULT_SQLITE_FILE = 'aisle.sqlite';

/**
 * Opens the store of a configuration: no `store` and no `dataDir` → memory; no `store` with a `dataDir`,
 * or `{type: 'embedded', path?}` → SQLite at `path.resolve(dataDir ?? '.', path ?? 'aisle.sqlite')`;
 * `{type: 'postgres', url, schema?}` → PostgreSQL (migrations applied); `{type: 'memory'}` → memory.
 */
export async function openStore(config: StoreConfig | undefined, dataDir?: string): Promise<Store> {
  if (config === undefined) {
    return dataDir === undefined ? new MemoryStore() : SqliteStore.open({ file: path.resolve(dataDir, DEFAULT_SQLITE_FILE) });
  }
  switch (config.type) {
    case 'memory':
      return new MemoryStore();
    case 'embedded':
      return SqliteStore.open({ file: path.resolve(dataDir ?? '.', config.path ?? DEFAULT_SQLITE_FILE) });
    case 'postgres': {
      const { PostgresStore } = await import('./postgres-store.js');
      return PostgresStore.open({ url: config.url, ...(config.schema !== undefined && { schema: config.schema }) });
    }
  }
}
