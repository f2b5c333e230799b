/**
 * The longest stall of the event loop while some work runs: a `setImmediate` chain records the largest
 * gap between two of its turns (what a request arriving meanwhile would have waited, at most), and,
 * on Linux, how that gap was spent by the loop's own thread (`/proc/thread-self/schedstat`, ns): on a
 * CPU, or runnable and waiting for one. On a loaded machine a gap is mostly the wait for a core; the gap
 * less that wait (the thread's CPU, plus the time it slept, e.g. joining the collector's helper threads)
 * is what the process itself held the loop for, and what a gap on a quiet machine would be.
 * @module
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** A gap of the chain: from its start to its end, in µs of `process.hrtime` (the clock of `--cpu-prof`'s samples). */
export interface StallWindow {
  startUs: number;
  endUs: number;
  /** Of the gap, the ms the loop's thread ran on a CPU (Linux; absent elsewhere and on change windows). */
  cpuMs?: number;
  /** Of the gap, the ms the loop's thread was runnable but waited for a CPU (Linux, as {@link cpuMs}). */
  waitMs?: number;
  /** Set on a window that is not a stall but a whole measured change (the kind of change). */
  change?: string;
}

/** The clock of {@link StallWindow}s (and of `--cpu-prof`'s samples), in µs. */
export function hrtimeUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** A thread's scheduler times so far (ns): on a CPU, and runnable while waiting for one. */
export interface ThreadTimes { cpuNs: number; waitNs: number }

/**
 * The calling thread's {@link ThreadTimes}, from `/proc/thread-self/schedstat` (read at position 0 of a
 * file kept open: a few µs a read); undefined where there is no such file.
 */
export function threadClock(): { read(): ThreadTimes; close(): void } | undefined {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(128);
  return {
    read: () => {
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      const [cpu, wait] = buffer.toString('latin1', 0, n).split(' ', 2);
      return { cpuNs: Number(cpu), waitNs: Number(wait) };
    },
    close: () => closeSync(fd),
  };
}

/** What {@link watchEventLoopStalls} returns. */
export interface StallWatch {
  /** Ends the chain; the longest gap seen, in ms. */
  stop(): number;
  /**
   * After {@link stop}: the longest gap less the time the loop's thread waited for a CPU in it, in ms
   * (NaN without the clock): what the process held the loop for, whatever the machine's load.
   */
  longestOwnMs(): number;
  /**
   * The ms the loop was held so far by anything but the chain: the sum of its gaps of at least
   * {@link HELD_GAP_MS}, each less the loop thread's wait for a CPU in it (where known). While the chain
   * runs the process never looks idle to its CPU time (the chain spins a core); this is how long other
   * work (a background slice, a collection) held the loop instead.
   */
  heldMs(): number;
}

/** A gap shorter than this is the chain's own turn (µs when nothing else runs), not work holding the loop. */
export const HELD_GAP_MS = 2;

/**
 * Starts watching (see {@link StallWatch}). Gaps of at least `recordMs` go into `windows` (to find in a
 * CPU profile what ran during them).
 */
export function watchEventLoopStalls(windows?: StallWindow[], recordMs = 50): StallWatch {
  let watching = true;
  let longest = 0;
  let last = performance.now();
  const clock = threadClock();
  let lastTimes = clock?.read();
  let longestOwnMs = clock ? 0 : NaN;
  let heldMs = 0;
  const tick = (): void => {
    // The turn queued before stop() runs after it: it would record the gap up to whatever the caller
    // did next (a 6 s window over the bench's generation of a catalog, counted as a change's stall).
    if (!watching) return;
    const now = performance.now();
    const times = clock?.read();
    const waitMs = times && lastTimes ? (times.waitNs - lastTimes.waitNs) / 1e6 : NaN;
    if (now - last - waitMs > longestOwnMs) longestOwnMs = now - last - waitMs;
    if (now - last >= HELD_GAP_MS) heldMs += Number.isNaN(waitMs) ? now - last : Math.max(0, now - last - waitMs);
    if (windows && now - last >= recordMs) {
      const endUs = hrtimeUs();
      const window: StallWindow = { startUs: endUs - Math.round((now - last) * 1000), endUs };
      if (times && lastTimes) {
        window.cpuMs = (times.cpuNs - lastTimes.cpuNs) / 1e6;
        window.waitMs = waitMs;
      }
      windows.push(window);
    }
    longest = Math.max(longest, now - last);
    last = now;
    lastTimes = times;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      watching = false;
      clock?.close();
      return longest;
    },
    longestOwnMs: () => longestOwnMs,
    heldMs: () => heldMs,
  };
}
