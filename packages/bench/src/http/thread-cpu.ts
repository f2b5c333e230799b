/**
 * CPU time of a process's threads, read from Linux's /proc: what a server process's main thread spent,
 * and its other threads (the store's worker, V8's helper threads that collect garbage, libuv's pool).
 * Node names every thread `node`, so they are told apart by id: the main thread's is the process's, and
 * of the others the one that spent most in a run is reported beside the rest (under load, the embedded
 * store's worker). Read from outside the process, so a server of another tree (an A/B run) is measured
 * the same way without its cooperation. Threads that ended between two reads drop out of the later one.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (user + system) by thread: `main`, then `t<id>` for every other thread, µs. */
export type ThreadCpu = Record<string, number>;

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** The CPU of `pid`'s threads (see {@link ThreadCpu}), or {} without /proc. */
export function threadCpuOf(pid: number): ThreadCpu {
  const out: ThreadCpu = {};
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch (err) {
      // The thread ended between the listing and the read.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    // `tid (comm) state ppid …`: comm may hold spaces and parentheses, so split after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after comm.
    const ticks = Number(fields[11]) + Number(fields[12]);
    out[tid === String(pid) ? 'main' : `t${tid}`] = ticks * 1e6 / TICKS_PER_SECOND;
  }
  return out;
}

/**
 * How often `pid`'s main thread has gone to sleep waiting (its voluntary context switches, from
 * /proc: one each time the event loop found nothing to do and waited in epoll), or NaN without /proc.
 * Per request answered, it says how many requests a wake-up found ready: a server that slows down gets
 * fewer at each wake-up and pays the wait and the wake-up more often.
 */
export function mainThreadWaits(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return NaN;
    throw err;
  }
  const match = /^voluntary_ctxt_switches:\s*(\d+)$/m.exec(status);
  return match === null ? NaN : Number(match[1]);
}
