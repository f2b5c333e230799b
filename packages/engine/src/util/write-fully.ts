/**
 * Writing bytes that must all reach the file. `write(2)` may write fewer bytes than asked (a full
 * disk, a quota, a signal) and report success for what it did write; taking that for success loses
 * data silently. Every write of a durable file goes through {@link writeFully}.
 * @module
 */
import type { FileHandle } from 'node:fs/promises';

/**
 * Writes all of `bytes` at `position` (or at the file's offset when null), looping over short
 * writes. A write that makes no progress throws an `ENOSPC` error (the kernel reports a full disk
 * as a short write first, then as an error). Resolves with the number of bytes written (all).
 */
export async function writeFully(file: FileHandle, bytes: Uint8Array, position: number | null = null): Promise<number> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await file.write(bytes, done, bytes.length - done, position === null ? null : position + done);
    if (bytesWritten <= 0) {
      const err = new Error(`no space left: wrote ${done} of ${bytes.length} bytes`) as NodeJS.ErrnoException;
      err.code = 'ENOSPC';
      throw err;
    }
    done += bytesWritten;
  }
  return done;
}
