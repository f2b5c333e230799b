/**
 * Runs a build's steps (see `buildCatalogSteps`) in time slices on the calling thread: work for
 * about {@link SLICE_MS}, then let the event loop run (timers, I/O, searches of every website) with
 * `setImmediate`, then go on. The first slice starts synchronously in the caller.
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Steps } from '../steps.js';

/**
 * Milliseconds of build work between two turns of the event loop. Measured on a 1M-product catalog
 * (docs/architecture-search.md, "Catalog changes on a live catalog"): a longer slice shortens the build
 * only a little and adds its length to every search and request waiting behind it.
 */
export const SLICE_MS = 8;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `steps` to the end, pausing for a turn of the event loop every `sliceMs` of work. */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}
