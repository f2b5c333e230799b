/**
 * Runs work in steps (see `buildCatalogSteps`) in time slices on the calling thread: work for about
 * {@link SLICE_MS}, then let the event loop run (timers, I/O, searches of every website) with
 * `setImmediate`, then go on.
 *
 * Two priorities share the thread. A **change** (a catalog change a caller waits for: its build, its
 * change-log write, the summary of its call) runs its slices back to back with the loop's turns.
 * **Background** work (the recommendation indexes' rebuilds, merges, snapshot encodings, model
 * checkpoints, the semantic training's feed) waits, before each slice, while a change runs — for at most
 * {@link MAX_DEFER_MS}, so a long change (a replace) does not starve it. With one priority, a one-product
 * change at 1M products took each turn it needed (its build, its log write, the `fdatasync`) after a
 * round of the previous change's index-rebuild slices (docs/benchmarks.md, "Stalls at 1M: changes first";
 * decisions/0048).
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

/**
 * Longest wait of a background slice behind running changes: while changes keep coming (a replace
 * takes tens of seconds at 1M), background work still gets a slice this often.
 */
export const MAX_DEFER_MS = 100;

/** Who waits for the work: a caller's catalog change, or nobody (see the module comment). */
export type SlicePriority = 'change' | 'background';

/** Changes in progress on this thread (see {@link beginChange}). */
let changesRunning = 0;
/** Background runs waiting for the changes to end (each also wakes after {@link MAX_DEFER_MS}). */
const deferred = new Set<() => void>();

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The next turn of the event loop for background work: after the loop's turn, and after the changes
 * running then (at most {@link MAX_DEFER_MS} later). Background slice runners await it between slices.
 */
export async function nextBackgroundTurn(): Promise<void> {
  await nextTurn();
  if (changesRunning === 0) return;
  await new Promise<void>((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      deferred.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, MAX_DEFER_MS);
    deferred.add(wake);
  });
}

/**
 * Marks a change in progress until the function returned is called (once; later calls do nothing):
 * background slices wait meanwhile (see {@link nextBackgroundTurn}). A catalog holds it from the start
 * of a batch's build to its publication, so the turns its change-log write waits for (the write, the
 * `fdatasync`) are not each taken behind a round of background slices.
 */
export function beginChange(): () => void {
  changesRunning++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--changesRunning === 0) for (const wake of [...deferred]) wake();
  };
}

/**
 * Runs `steps` to the end, pausing for a turn of the event loop every `sliceMs` of work (background
 * work: for a turn after the changes running, see {@link nextBackgroundTurn}). The first slice starts
 * synchronously in the caller.
 */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS, priority: SlicePriority = 'background'): Promise<T> {
  if (priority === 'background') return runSlices(steps, sliceMs, nextBackgroundTurn);
  const end = beginChange();
  try {
    return await runSlices(steps, sliceMs, nextTurn);
  } finally {
    end();
  }
}

async function runSlices<T>(steps: Steps<T>, sliceMs: number, pause: () => Promise<void>): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await pause();
      sliceStart = performance.now();
    }
  }
}
