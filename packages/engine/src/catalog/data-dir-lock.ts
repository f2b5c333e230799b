/**
 * One process at a time owns a data directory's catalogs: snapshots and the change log are written by
 * their owner only (another process would replay, rotate and delete log segments the owner is still
 * appending to). The owner holds `catalogs/LOCK`, created exclusively with its pid; a lock whose process
 * is gone (a crash) is taken over. The same process may open the directory again (tests, restarts
 * within one process).
 * @module
 */
import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { AisleError } from '../errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A held lock; `release` removes it (when still ours). */
export interface DataDirLock {
  release(): Promise<void>;
}

/** Takes the lock of `catalogsDir`, or throws DATA_DIR_LOCKED naming the live process holding it. */
export async function lockDataDir(catalogsDir: string): Promise<DataDirLock> {
  const file = path.join(catalogsDir, 'LOCK');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => releaseIfOurs(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
    if (holder === process.pid) return { release: async () => undefined };
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
      throw new AisleError('DATA_DIR_LOCKED', `the data directory ${path.dirname(catalogsDir)} is in use by process ${holder} `
        + '(a running "aisle serve"?): change its catalog through the admin API, or stop it first', { details: { pid: holder } });
    }
    // Left by a process that is gone: take it over.
    await rm(file, { force: true });
  }
  throw new AisleError('DATA_DIR_LOCKED', `could not take the lock ${file}`);
}

async function releaseIfOurs(file: string): Promise<void> {
  const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
  if (holder === process.pid) await rm(file, { force: true });
}
