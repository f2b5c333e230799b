/**
 * The catalogs' files at run time: when a website's catalog snapshot is written (debounced after
 * changes, bounded under a steady stream of them), the write itself (chained per website), and the
 * closing of the change logs. The change log makes every change durable; a snapshot only bounds what a
 * restart replays.
 * @module
 */
import type { FailureReporter } from '../background-failures.js';
import { encodeCatalogSnapshotInSlices } from '../catalog/durability/snapshot.js';
import type { SharedCatalogs } from '../store/shared-catalogs.js';
import type { WebsiteState } from './website-state.js';

/**
 * Delay between the last catalog change and the snapshot write, so a burst of upserts writes once —
 * at least this, or 5× the last write's duration: a million-product snapshot takes seconds of CPU, and
 * the change log already makes every change durable, so snapshots of big catalogs are spaced out to
 * cost at most a small share of the time.
 */
const SNAPSHOT_DEBOUNCE_MS = 2_000;
/**
 * Longest wait for a snapshot under a steady stream of changes (each would push the debounce back):
 * at least this, or 10× the last write's duration. It bounds the change log a restart replays.
 */
const SNAPSHOT_MAX_DELAY_MS = 60_000;

/** Schedules the website's snapshot after a change (nothing without a change log). */
export function scheduleSnapshot(state: WebsiteState, reporter: FailureReporter): void {
  if (!state.log) return;
  const now = Date.now();
  state.unsavedSince ??= now;
  clearTimeout(state.snapshotTimer);
  const lastWrite = state.lastWriteMs ?? 0;
  const debounce = Math.max(SNAPSHOT_DEBOUNCE_MS, 5 * lastWrite);
  const maxDelay = Math.max(SNAPSHOT_MAX_DELAY_MS, 10 * lastWrite);
  const delay = Math.max(0, Math.min(debounce, state.unsavedSince + maxDelay - now));
  state.snapshotTimer = setTimeout(() => {
    writeSnapshot(state).then(
      () => reporter.recovered('snapshot-write'),
      // The change log still holds every change: nothing is lost, the log just grows until a
      // later snapshot succeeds (the next change schedules one; so does shutdown).
      (err: unknown) => reporter.report('snapshot-write', err, state.config.websiteId),
    );
  }, delay);
  state.snapshotTimer.unref();
}

/** Writes the website's snapshot now (nothing without a change log), after any write in progress. */
export async function writeSnapshot(state: WebsiteState): Promise<void> {
  const log = state.log;
  if (!log) return;
  clearTimeout(state.snapshotTimer);
  state.snapshotTimer = undefined;
  state.unsavedSince = undefined;
  // Writes of one website are chained so two never interleave on the same temp file.
  const previous = state.snapshotWrite ?? Promise.resolve();
  // The previous write's failure went to its own caller; this one starts after it either way.
  const write = previous.then(() => undefined, () => undefined).then(async () => {
    // In one synchronous step: the version written, the last logged change it holds, and the log
    // told (the file log rotates then: later changes go to a new segment, and the segments the
    // snapshot covers go once it is on disk).
    const position = state.catalog.loggedPosition;
    const version = state.catalog.state;
    const started = performance.now();
    await log.saveSnapshot(position, (logMark) => encodeCatalogSnapshotInSlices(version, logMark));
    state.lastWriteMs = performance.now() - started;
  });
  state.snapshotWrite = write;
  await write;
}

/** Closes the catalogs' change logs and the store's shared catalogs (a failure is reported, not thrown). */
export async function closeCatalogFiles(sites: ReadonlyMap<string, WebsiteState>, sharedCatalogs: SharedCatalogs | undefined, reporter: FailureReporter): Promise<void> {
  await Promise.all([...sites.values()].map((s) => reporter.settle(s.log?.close(), 'shutdown', s.config.websiteId)));
  await reporter.settle(sharedCatalogs?.close(), 'shutdown');
}
