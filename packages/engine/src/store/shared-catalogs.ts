/**
 * The catalogs of a store shared by several engine processes (replicas): what a store's
 * {@link StoreSharing.openSharedCatalogs} hands the engine. Every catalog change goes through the
 * store's catalog change log first and every process applies the log in order, so all of them hold
 * the same catalogs. The PostgreSQL store's implementation is `CatalogReplication`
 * (`replication/catalog-replication.ts`).
 * @module
 */
import type { Catalog, CatalogOptions } from '../catalog/catalog.js';
import type { LoadOptions, LoadSummary, ProductSource } from '../engine-api.js';
import type { StoreSharing } from './store.js';

/** The kinds of background work of shared catalogs whose failures are reported. */
export type ReplicationTask = 'replica-poll' | 'change-log' | 'snapshot-write';

/** Hears of every failure of the shared catalogs' background work. */
export type SharedCatalogsErrorHandler = (task: ReplicationTask, err: Error, websiteId?: string) => void;

/** Catalogs kept in a shared change log; see the module comment. */
export interface SharedCatalogs {
  /** A website's catalog as of the latest stored snapshot; for every website before {@link start}. */
  loadCatalog(websiteId: string, options: CatalogOptions): Promise<Catalog>;
  /** Applies the log after the loaded snapshots (resolving once caught up), then follows it in the background. */
  start(): Promise<void>;
  /** Adds a website after {@link start}: its snapshot and the log up to where the others are. */
  addWebsite(websiteId: string, options: CatalogOptions): Promise<Catalog>;
  /** Upsert through the log; resolves once durable and applied here. */
  upsert(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary>;
  /** Replace through the log. */
  replace(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary>;
  /** Patch (RFC 7396 merges, made on every process in log order) through the log. */
  patch(websiteId: string, source: ProductSource, options?: LoadOptions): Promise<LoadSummary>;
  /** Delete through the log. */
  delete(websiteId: string, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }>;
  /** Stops the background work and releases the connections. */
  close(): Promise<void>;
}
