/**
 * The longest stall of the event loop while some work runs: a `setImmediate` chain records the largest
 * gap between two of its turns (what a request arriving meanwhile would have waited, at most).
 * @module
 */

/** A gap of the chain: from its start to its end, in µs of `process.hrtime` (the clock of `--cpu-prof`'s samples). */
export interface StallWindow { startUs: number; endUs: number }

/**
 * Starts watching; `stop()` ends the chain and returns the longest gap seen, in ms. Gaps of at least
 * `recordMs` go into `windows` (to find in a CPU profile what ran during them).
 */
export function watchEventLoopStalls(windows?: StallWindow[], recordMs = 50): { stop(): number } {
  let watching = true;
  let longest = 0;
  let last = performance.now();
  const tick = (): void => {
    const now = performance.now();
    if (windows && now - last >= recordMs) {
      const endUs = Number(process.hrtime.bigint() / 1000n);
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
