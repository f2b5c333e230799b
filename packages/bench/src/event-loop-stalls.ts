/**
 * The longest stall of the event loop while some work runs: a `setImmediate` chain records the largest
 * gap between two of its turns (what a request arriving meanwhile would have waited, at most).
 * @module
 */

/** A gap of the chain: from its start to its end, in µs of `process.hrtime` (the clock of `--cpu-prof`'s samples). */
export interface StallWindow {
  startUs: number;
  endUs: number;
  /** Set on a window that is not a stall but a whole measured change (the kind of change). */
  change?: string;
}

/** The clock of {@link StallWindow}s (and of `--cpu-prof`'s samples), in µs. */
export function hrtimeUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Starts watching; `stop()` ends the chain and returns the longest gap seen, in ms. Gaps of at least
 * `recordMs` go into `windows` (to find in a CPU profile what ran during them).
 */
export function watchEventLoopStalls(windows?: StallWindow[], recordMs = 50): { stop(): number } {
  let watching = true;
  let longest = 0;
  let last = performance.now();
  const tick = (): void => {
    // The turn queued before stop() runs after it: it would record the gap up to whatever the caller
    // did next (a 6 s window over the bench's generation of a catalog, counted as a change's stall).
    if (!watching) return;
    const now = performance.now();
    if (windows && now - last >= recordMs) {
      const endUs = hrtimeUs();
      windows.push({ startUs: endUs - Math.round((now - last) * 1000), endUs });
    }
    longest = Math.max(longest, now - last);
    last = now;
    if (watching) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      watching = false;
      return longest;
    },
  };
}
