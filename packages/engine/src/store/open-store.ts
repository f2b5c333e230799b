/**
 * The one place where a store configuration becomes a {@link Store} instance (an instance handed in is
 * used as it is). The SQLite and PostgreSQL stores are imported when they are opened, so their native
 * and driver dependencies (better-sqlite3, pg) are loaded only by a process that uses them
 * (`store/lazy-drivers.test.ts` checks this).
 * @module
 */
import path from 'node:path';
import type { StoreConfig } from '../config.js';
import { AisleError } from '../errors.js';
import { MemoryStore } from './memory-store.js';
import type { Store } from './store.js';

/** Default file name of the embedded store inside the data directory. */
export const DEFAULT_SQLITE_FILE = 'aisle.sqlite';

/** True for a store instance, false for a configuration (which has a `type`, and no methods). */
export function isStore(value: StoreConfig | Store): value is Store {
  return typeof (value as Partial<Store>).appendPurchases === 'function';
}

/**
 * Opens the store of a configuration: no `store` and no `dataDir` → memory; no `store` with a `dataDir`,
 * or `{type: 'embedded', path?}` → SQLite at `path.resolve(dataDir ?? '.', path ?? 'aisle.sqlite')`;
 * `{type: 'postgres', url, schema?, pollIntervalMs?, catalogSnapshotIntervalMs?}` → PostgreSQL
 * (migrations applied; shared by replicas); `{type: 'memory'}` → memory. A store instance is returned
 * as it is.
 * @throws {AisleError} `STORE_FAILURE` when the store cannot be opened (a file, a server out of reach).
 */
export async function openStore(config: StoreConfig | Store | undefined, dataDir?: string): Promise<Store> {
  if (config !== undefined && isStore(config)) return config;
  try {
    return await openConfigured(config, dataDir);
  } catch (err) {
    // SQLite's own words ("file is not a database") name no file, and store.path may point anywhere.
    const file = embeddedStoreFile(config, dataDir);
    const which = file === undefined ? 'The store' : `The embedded store ${file}`;
    throw new AisleError('STORE_FAILURE', `${which} could not be opened: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  }
}

/** The SQLite file a configuration opens (see {@link openStore}), or undefined when it opens none. */
export function embeddedStoreFile(config: StoreConfig | Store | undefined, dataDir: string | undefined): string | undefined {
  if (config === undefined) return dataDir === undefined ? undefined : path.resolve(dataDir, DEFAULT_SQLITE_FILE);
  if (isStore(config) || config.type !== 'embedded') return undefined;
  return path.resolve(dataDir ?? '.', config.path ?? DEFAULT_SQLITE_FILE);
}

async function openConfigured(config: StoreConfig | undefined, dataDir: string | undefined): Promise<Store> {
  const file = embeddedStoreFile(config, dataDir);
  if (file !== undefined) return openSqlite(file);
  if (config?.type === 'postgres') {
    const { PostgresStore } = await import('./postgres-store.js');
    return PostgresStore.open({
      url: config.url, schema: config.schema, pollIntervalMs: config.pollIntervalMs, catalogSnapshotIntervalMs: config.catalogSnapshotIntervalMs,
    });
  }
  // `memory`, or no store and no data directory.
  return new MemoryStore();
}

async function openSqlite(file: string): Promise<Store> {
  const { SqliteStore } = await import('./sqlite-store.js');
  return SqliteStore.open({ file });
}
