/**
 * The engine's shutdown, in order: the background work and the services over the store stop, the
 * catalogs' due snapshots are written and their files closed, the models are checkpointed, the data
 * directory is unlocked, and the store and search pool close last.
 * @module
 */
import type { FailureReporter } from '../background-failures.js';
import type { SearchPool } from '../search/index.js';
import { closeCatalogFiles, writeSnapshot } from './catalog-files.js';
import type { StartedEngine } from './start.js';
import type { WebsiteState } from './website-state.js';

/** Closes what the start (engine/start.ts) opened, and the search pool. */
export async function shutDown(
  parts: StartedEngine, sites: ReadonlyMap<string, WebsiteState>, pool: SearchPool | undefined, reporter: FailureReporter,
): Promise<void> {
  for (const s of sites.values()) s.semantics.close();
  for (const s of sites.values()) await s.termAids.close();
  await parts.settings.close();
  await parts.experiments.close();
  await parts.retention.stop();
  await parts.searchLog.close();
  await reporter.settle(parts.resultPages.close(), 'result-pages');
  await reporter.settle(parts.learner.close(), 'click-learning');
  const pending = [...sites.values()].filter((s) => s.snapshotTimer !== undefined);
  // A snapshot that cannot be written at shutdown loses nothing (the change log holds the changes,
  // replayed at the next start): it is reported, and shutdown goes on.
  await Promise.all(pending.map((s) => reporter.settle(writeSnapshot(s), 'snapshot-write', s.config.websiteId)));
  // Writes a timer started: each reports its own failure (above, or in scheduleSnapshot).
  await Promise.all([...sites.values()].map((s) => s.snapshotWrite?.then(() => undefined, () => undefined)));
  await closeCatalogFiles(sites, parts.sharedCatalogs, reporter);
  // Before the store closes (the checkpoint is taken at a quiet point of the event service); a failed
  // one is reported by the checkpointer and loses nothing (the next start replays more events).
  await parts.checkpoints?.stop(parts.events);
  await reporter.settle(parts.lock?.release(), 'shutdown');
  await parts.events.close();
  await reporter.settle(parts.storeLock?.release(), 'shutdown');
  await pool?.close();
}
