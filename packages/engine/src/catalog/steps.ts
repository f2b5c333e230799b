/**
 * Work in steps: the catalog's long passes (builds, merges, snapshots, derived lookups) are generators
 * that yield every {@link STEP} units of work, so a caller can run them in time slices and let the event
 * loop serve searches in between (`build/time-slices.ts`), or run them in one go ({@link runSteps}).
 * A leaf: every role of the catalog (columns, full text, build, changes, durability) runs in steps, so
 * none of them may own this.
 * @module
 */

/**
 * Work units (docs, values, postings) between two yields of a build: small enough that a yield point
 * comes every fraction of a millisecond on any loop of the build, so a time-sliced driver can keep
 * its slices short; a yield that does not pause costs ~0.1 µs.
 */
export const STEP = 4096;
/** A build in steps: yields between units of work, returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs steps to the end, synchronously. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * The strings sorted in JS order (UTF-16 code units, as `Array.prototype.sort`), in steps: runs of
 * {@link STEP} sorted natively, then merged pairwise (a native sort of a large vocabulary takes
 * hundreds of milliseconds in one go).
 */
export function* sortStrings(values: readonly string[]): Steps<string[]> {
  const n = values.length;
  let a = values.slice();
  for (let lo = 0; lo < n; lo += STEP) {
    const run = a.slice(lo, lo + STEP).sort();
    for (let i = 0; i < run.length; i++) a[lo + i] = run[i];
    yield;
  }
  let b = new Array<string>(n);
  let work = 0;
  for (let width = STEP; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        b[k++] = a[j] < a[i] ? a[j++] : a[i++];
        if (++work === STEP) { work = 0; yield; }
      }
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    [a, b] = [b, a];
  }
  return a;
}
