/**
 * Runs work in steps (see `buildCatalogSteps`) in time slices on the calling thread: work for about
 * {@link SLICE_MS}, then let the event loop run (timers, I/O, searches of every website) with
 * `setImmediate`, then go on. However many runners wait, one slice runs per turn of the loop, so a
 * turn is held for about one slice, not one per runner.
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

/**
 * Runners waiting for their next slice, by priority, oldest first (a background waiter with the time it
 * started waiting). One is let through per turn of the event loop ({@link grantTurn}): each runner
 * awaiting its own `setImmediate`, as until 2026-11-29, let every runner waiting (a catalog build, the
 * recommendation indexes' rebuilds, a snapshot's encoding, …) run a slice in the same turn, so the loop
 * was held for one slice per runner — at 1M products with a data directory, 50–150 ms gaps made of
 * several runners' slices back to back (docs/benchmarks.md, "Stalls at 1M: one slice per turn").
 */
const waitingChanges: (() => void)[] = [];
const waitingBackground: { wake: () => void; since: number }[] = [];
/** A grant is scheduled for the next turn (`setImmediate`). */
let grantScheduled = false;
/** The timer that wakes the scheduler when the oldest background waiter's deferral ends. */
let deferralTimer: NodeJS.Timeout | undefined;

/** Whether the oldest background waiter may run now: no change runs, or it waited {@link MAX_DEFER_MS}. */
function backgroundEligible(now: number): boolean {
  return waitingBackground.length > 0 && (changesRunning === 0 || now - waitingBackground[0]!.since >= MAX_DEFER_MS);
}

/** Schedules the next grant if a waiter may run; else, for deferred background work, a wake-up at its deadline. */
function schedule(): void {
  if (grantScheduled) return;
  const now = performance.now();
  if (waitingChanges.length > 0 || backgroundEligible(now)) {
    grantScheduled = true;
    setImmediate(grantTurn);
  } else if (waitingBackground.length > 0 && deferralTimer === undefined) {
    deferralTimer = setTimeout(() => {
      deferralTimer = undefined;
      schedule();
    }, Math.max(0, MAX_DEFER_MS - (now - waitingBackground[0]!.since)));
  }
}

/**
 * Lets one waiting runner through: a change first, unless background work has waited its
 * {@link MAX_DEFER_MS}; background work when no change runs. Its slice runs in this turn's microtasks,
 * right after this callback; the next grant is in the next turn.
 */
function grantTurn(): void {
  grantScheduled = false;
  const now = performance.now();
  let wake: (() => void) | undefined;
  if (backgroundEligible(now) && (waitingChanges.length === 0 || now - waitingBackground[0]!.since >= MAX_DEFER_MS)) wake = waitingBackground.shift()!.wake;
  else wake = waitingChanges.shift();
  wake?.();
  schedule();
}

/** A turn of the event loop for one slice of `priority`'s work (see {@link grantTurn}). */
function takeTurn(priority: SlicePriority): Promise<void> {
  return new Promise((resolve) => {
    if (priority === 'change') waitingChanges.push(resolve);
    else waitingBackground.push({ wake: resolve, since: performance.now() });
    schedule();
  });
}

/**
 * The next turn of the event loop for background work: a later turn than the caller's, after the
 * changes running then (at most {@link MAX_DEFER_MS} later), and a turn no other runner's slice takes.
 * Background slice runners await it between slices.
 */
export function nextBackgroundTurn(): Promise<void> {
  return takeTurn('background');
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
    if (--changesRunning === 0) schedule();
  };
}

/**
 * Runs `steps` to the end, pausing for a turn of the event loop every `sliceMs` of work (one runner's
 * slice per turn; background work after the changes running, see {@link nextBackgroundTurn}). The first
 * slice starts synchronously in the caller.
 */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS, priority: SlicePriority = 'background'): Promise<T> {
  if (priority === 'background') return runSlices(steps, sliceMs, nextBackgroundTurn);
  const end = beginChange();
  try {
    return await runSlices(steps, sliceMs, nextChangeTurn);
  } finally {
    end();
  }
}

const nextChangeTurn = (): Promise<void> => takeTurn('change');

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
