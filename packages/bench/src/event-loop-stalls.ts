/**
 * The longest stall of the event loop while some work runs: a `setImmediate` chain records the largest
 * gap between two of its turns (what a request arriving meanwhile would have waited, at most).
 * @module
 */

/** Starts watching; `stop()` ends the chain and returns the longest gap seen, in ms. */
export function watchEventLoopStalls(): { stop(): number } {
  let watching = true;
  let longest = 0;
  let last = performance.now();
  const tick = (): void => {
    const now = performance.now();
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
