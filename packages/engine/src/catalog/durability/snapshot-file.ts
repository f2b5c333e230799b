/**
 * Snapshot files as files (their bytes, where the previous generation is kept): a leaf beside the snapshot codec, so the change log (which hands
 * stored snapshots to a replay) does not import the codec and, through it, the catalog.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { AisleError } from '../../errors.js';

/** The bytes of a snapshot file; one that cannot be read throws `AisleError('SNAPSHOT_INVALID')`. */
export async function readSnapshotFile(filePath: string): Promise<Uint8Array> {
  try {
    return await readFile(filePath);
  } catch (err) {
    throw new AisleError('SNAPSHOT_INVALID', `snapshot ${filePath}: cannot be read`, { cause: err, details: { filePath } });
  }
}

/** Where the snapshot before the latest of `file` is kept (see `snapshot-generations.ts`). */
export function previousSnapshotPath(file: string): string {
  return `${file}.prev`;
}
