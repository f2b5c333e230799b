/**
 * One process at a time owns a data directory's catalogs: snapshots and the change log are written by
 * their owner only (another process would replay, rotate and delete log segments the owner is still
 * appending to).
 *
 * The lock is one the kernel releases when its holder dies, however it dies: an exclusive SQLite lock
 * (a POSIX `fcntl` record lock held through an open file) on `catalogs/LOCK.sqlite`, taken with
 * `locking_mode = EXCLUSIVE` and a write transaction, and kept until the connection closes. A restart
 * right after `kill -9` therefore always finds the directory free — no pid file to go stale, no pid
 * reuse to guess about. `catalogs/LOCK.owner` names the holder's pid for the error message only.
 *
 * `fcntl` locks belong to a process, so the same process may open the directory again (tests,
 * restarts within one process): it shares the one lock, counted, released with the last holder.
 *
 * The embedded store's file is locked the same way ({@link lockStoreFile}, `<file>.lock`): its
 * `store.path` may lie outside the data directory, and two processes with two data directories
 * sharing one SQLite file each fed only their own events to their models and checkpointed sequence
 * numbers of the other's events.
 * @module
 */
import { readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AisleError } from '../../errors.js';

/** A held lock; `release` lets it go (the last release within the process closes it). */
export interface DataDirLock {
  release(): Promise<void>;
}

interface HeldLock {
  holders: number;
  close(): void;
}

/** Locks this process holds, by the real path of their lock file. */
const held = new Map<string, HeldLock>();

/** The lock database's file name (a pid file `LOCK` from earlier versions is removed on the way). */
export const LOCK_FILE = 'LOCK.sqlite';
const OWNER_FILE = 'LOCK.owner';

/** Takes the lock of `catalogsDir`, or throws DATA_DIR_LOCKED naming the process holding it (when known). */
export async function lockDataDir(catalogsDir: string): Promise<DataDirLock> {
  const dir = await realpath(catalogsDir);
  const lock = await lockWith(path.join(dir, LOCK_FILE), path.join(dir, OWNER_FILE), (who) => `the data directory ${path.dirname(dir)} is in use by ${who} `
    + '(a running "aisle serve"?): change its catalog through the admin API, or stop it first');
  // A pid file `LOCK` of earlier versions.
  await rm(path.join(dir, 'LOCK'), { force: true });
  return lock;
}

/**
 * Takes the lock of the embedded store's `file` (`<file>.lock`, its holder's pid in `<file>.lock.owner`;
 * the file's directory must exist), or throws DATA_DIR_LOCKED naming the process holding it.
 */
export async function lockStoreFile(file: string): Promise<DataDirLock> {
  const real = path.join(await realpath(path.dirname(file)), path.basename(file));
  return lockWith(`${real}.lock`, `${real}.lock.owner`, (who) => `the embedded store ${real} is in use by ${who} (an "aisle serve" `
    + 'with another data directory whose store.path names the same file?): one process at a time owns an embedded store; '
    + 'processes that share events use the PostgreSQL store');
}

/** Takes (or shares, within this process) the lock held through `lockFile`; `busy` words the refusal. */
async function lockWith(lockFile: string, ownerFile: string, busy: (who: string) => string): Promise<DataDirLock> {
  let lock = held.get(lockFile);
  if (!lock) {
    lock = await takeLock(lockFile, ownerFile, busy);
    held.set(lockFile, lock);
  }
  lock.holders++;
  let released = false;
  const taken = lock;
  return {
    release: async () => {
      if (released) return;
      released = true;
      if (--taken.holders > 0) return;
      held.delete(lockFile);
      taken.close();
    },
  };
}

async function takeLock(file: string, ownerFile: string, busy: (who: string) => string): Promise<HeldLock> {
  const { default: Database } = await import('better-sqlite3');
  let db: InstanceType<typeof Database> | undefined;
  try {
    // timeout 0: a held lock is reported at once, not waited for.
    db = new Database(file, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY); COMMIT');
  } catch (err) {
    db?.close();
    const code = (err as { code?: string }).code;
    if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') throw err;
    // An unreadable owner file only makes the message vaguer ("another process").
    const holder = Number.parseInt(await readFile(ownerFile, 'utf8').catch(() => ''), 10);
    const who = Number.isInteger(holder) && holder > 0 ? `process ${holder}` : 'another process';
    throw new AisleError('DATA_DIR_LOCKED', busy(who), { details: Number.isInteger(holder) ? { pid: holder } : undefined });
  }
  const lockDb = db;
  // Informational only (the lock is the SQLite file): which process to look for.
  await writeFile(ownerFile, `${process.pid}\n`);
  return { holders: 0, close: () => lockDb.close() };
}
