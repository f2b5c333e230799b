/**
 * A website's catalog is never lost to one bad file: the data directory keeps two snapshot generations,
 * the latest (`<site>.aislesnap`) and the one before it (`<site>.aislesnap.prev`), and the change log
 * segments back to the older one (the engine drops a segment only once the snapshot *before* the
 * latest holds it). A start that cannot read the latest loads the previous one and replays the log
 * over it, which gives the same catalog; the unreadable file is moved aside (kept for a post-mortem,
 * and so the next snapshot write does not make it the "previous" one) and the engine reports the
 * fallback as a failure (logged, counted in `/metrics`, passed to the error hook). Only when neither
 * generation can be read does the start stop (see decision 0034).
 * @module
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { AisleError, isAisleError } from '../../errors.js';
import type { StepTimer } from '../../util/step-timer.js';
import type { Catalog, CatalogOptions } from '../catalog.js';
import { loadCatalogSnapshotMarked } from './snapshot.js';
import { previousSnapshotPath } from './snapshot-file.js';


/** A catalog loaded from one of the two snapshot generations. */
export interface LoadedGeneration {
  catalog: Catalog;
  /** The change log's mark the loaded file was written with (see `change-log.ts`); undefined: none (replay the whole log). */
  logMark?: number;
  /** Set when the latest snapshot could not be read and the previous one was loaded instead. */
  fallback?: {
    /** Why the latest snapshot was refused. */
    error: AisleError;
    /** Where the unreadable file now is. */
    movedTo: string;
  };
}

/**
 * Loads the latest readable snapshot generation of `file` (see the module doc); undefined when there is
 * none (a website without a catalog yet). Throws `SNAPSHOT_INVALID` (the latest file's error, naming
 * the previous one's too) when neither generation can be read.
 */
export async function loadLatestGeneration(file: string, options: CatalogOptions = {}, timer?: StepTimer): Promise<LoadedGeneration | undefined> {
  const previous = previousSnapshotPath(file);
  const hasPrevious = existsSync(previous);
  if (!existsSync(file)) {
    // A crash between the two renames of a snapshot write: the previous generation is the latest.
    return hasPrevious ? await loadCatalogSnapshotMarked(previous, options, timer) : undefined;
  }
  let latestError: AisleError;
  try {
    return await loadCatalogSnapshotMarked(file, options, timer);
  } catch (err) {
    if (!isAisleError(err) || err.code !== 'SNAPSHOT_INVALID') throw err;
    latestError = err;
  }
  if (!hasPrevious) throw latestError;
  let loaded: { catalog: Catalog; logMark?: number };
  try {
    loaded = await loadCatalogSnapshotMarked(previous, options, timer);
  } catch (err) {
    if (!isAisleError(err) || err.code !== 'SNAPSHOT_INVALID') throw err;
    throw new AisleError('SNAPSHOT_INVALID', `${latestError.message}; the previous snapshot cannot be read either (${err.message})`,
      { cause: latestError, details: latestError.details });
  }
  const movedTo = `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(file, movedTo);
  return { ...loaded, fallback: { error: latestError, movedTo } };
}
