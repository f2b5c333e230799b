/**
 * Writing a whole file atomically and durably: a temporary file beside it, flushed to disk, renamed
 * over the final name, then the directory flushed — so a crash leaves either the previous file or the
 * new one, never a half-written one, and once the write resolves the new file survives a power cut.
 * Catalog snapshots and model checkpoints are written so. Also the one reading of such a file that may
 * not be there yet.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Options of {@link writeFileDurably}. */
export interface DurableWriteOptions {
  /**
   * Where the file being replaced is kept (renamed just before the new one takes its name). A crash
   * between the two renames leaves no file at the final name, only this one. Without it the previous
   * file is replaced.
   */
  keepPreviousAs?: string;
}

/** Writes `bytes` to `file` atomically and durably (see the module doc). */
export async function writeFileDurably(file: string, bytes: Uint8Array, options: DurableWriteOptions = {}): Promise<void> {
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.keepPreviousAs !== undefined) await rename(file, options.keepPreviousAs).catch(ignoreMissing);
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  const dir = await open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Rethrows all but "no such file" (a first write has no previous file). */
function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}

/** The bytes of `file`, or undefined when there is no such file (other read errors are thrown). */
export async function readFileIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Deletes the temporary files {@link writeFileDurably} left beside `file` when its process died mid-write
 * (`<file>.<uuid>.tmp`); the caller is the file's only writer and is not writing it now. Returns how many.
 */
export async function removeLeftoverTemps(file: string): Promise<number> {
  const prefix = `${path.basename(file)}.`;
  const names = (await readdir(path.dirname(file))).filter((name) => name.startsWith(prefix) && /^[0-9a-f-]{36}\.tmp$/.test(name.slice(prefix.length)));
  await Promise.all(names.map((name) => rm(path.join(path.dirname(file), name), { force: true })));
  return names.length;
}
