/**
 * Runs work in steps (see `buildCatalogSteps`) in time slices on the calling thread: work for about
 * {@link SLICE_MS}, then let the event loop run (timers, I/O, searches of every website) with
 * `setImmediate`, then go on.
 *
 * Two priorities share the thread. A **change** (a catalog change a caller waits for: its build, its
 * change-log write, the summary of its call) runs its slices back to back with the loop's turns.
 * **Background** work (the recommendation indexes' rebuilds, merges, snapshot encodings, model
 * checkpoints, the semantic training's feed) takes turns from one queue, one slice per turn of the loop
 * however many runners wait, and none while a change runs unless background work has had no slice for
 * {@link MAX_DEFER_MS} (then each runner waiting gets one, a turn each: a long change, a replace, does
 * not starve it). With one priority, a
 * one-product change at 1M products took each turn it needed after a round of the previous change's
 * index-rebuild slices (decisions/0048); with a deferral per runner, the runners deferred by a change
 * all woke together inside the turn that published it, so its caller heard of it, and searched it, after
 * one slice of each (decisions/0065).
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
 * Longest wait of background work behind running changes: while changes keep coming (a replace
 * takes tens of seconds at 1M), one background slice still runs this often.
 */
export const MAX_DEFER_MS = 100;

/** Who waits for the work: a caller's catalog change, or nobody (see the module comment). */
export type SlicePriority = 'change' | 'background';

/** Changes in progress on this thread (see {@link beginChange}). */
let changesRunning = 0;
/** Background runners waiting for a turn, oldest first, each with the time it began to wait. */
const waiting: { wake: () => void; since: number }[] = [];
/** When the last background slice was let through (`performance.now()`). */
let lastGrant = -Infinity;
/**
 * Runners still to be let through, one per turn, in the round that began when deferred background work
 * fell due while changes run: each runner waiting then gets a slice, as each got one per
 * {@link MAX_DEFER_MS} when every runner had a deferral of its own.
 */
let dueRound = 0;
/** A {@link grantTurn} is scheduled for the next turn of the loop. */
let grantScheduled = false;
/** Wakes {@link schedule} when the background work deferred by running changes is due. */
let deferralTimer: NodeJS.Timeout | undefined;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * When background work may run although a change runs: {@link MAX_DEFER_MS} after both the last
 * background slice and the oldest waiter's arrival. From the last slice alone, a rebuild kicked by the
 * previous change would take its first slice as soon as the next change began.
 */
function backgroundDueAt(): number {
  return Math.max(lastGrant, waiting[0]!.since) + MAX_DEFER_MS;
}

/** Schedules the next background turn when one may run, else a wake-up when the deferred work is due. */
function schedule(): void {
  if (grantScheduled || waiting.length === 0) return;
  const wait = changesRunning === 0 || dueRound > 0 ? 0 : backgroundDueAt() - performance.now();
  if (wait <= 0) {
    grantScheduled = true;
    // A later turn, never the caller's: the turn that publishes a change runs its caller's continuation
    // (the answer, the search that follows it) before any background slice.
    setImmediate(grantTurn);
  } else if (deferralTimer === undefined) {
    deferralTimer = setTimeout(() => {
      deferralTimer = undefined;
      schedule();
    }, wait);
  }
}

/**
 * Lets the oldest background runner through for one slice (it runs in this turn's microtasks, right
 * after this callback), unless a change began since the turn was scheduled and the work is not due.
 */
function grantTurn(): void {
  grantScheduled = false;
  const now = performance.now();
  if (waiting.length > 0 && (changesRunning === 0 || dueRound > 0 || now >= backgroundDueAt())) {
    if (changesRunning > 0) dueRound = (dueRound > 0 ? dueRound : waiting.length) - 1;
    lastGrant = now;
    waiting.shift()!.wake();
  }
  schedule();
}

/**
 * A turn of the event loop for one background slice: a later turn than the caller's, taken by no other
 * background slice, after the changes running then (at most {@link MAX_DEFER_MS} after background
 * work last ran). Background slice runners await it before each slice.
 */
export function nextBackgroundTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push({ wake: resolve, since: performance.now() });
    schedule();
  });
}

/**
 * Marks a change in progress until the function returned is called (once; later calls do nothing):
 * background slices wait meanwhile (see {@link nextBackgroundTurn}). A catalog holds it from the start
 * of a batch's build to its publication, so the turns its change-log write waits for (the write, the
 * `fdatasync`) are not each taken behind background slices.
 */
export function beginChange(): () => void {
  changesRunning++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--changesRunning === 0) {
      dueRound = 0;
      clearTimeout(deferralTimer);
      deferralTimer = undefined;
      schedule();
    }
  };
}

/** Background runs on this thread, from their first wait for a turn to their end. */
let backgroundRuns = 0;
/** Callers of {@link backgroundIdle} waiting for {@link backgroundRuns} to reach 0. */
const idleWaiters: (() => void)[] = [];

/** Whether background work runs on this thread now. */
export function backgroundRunning(): boolean {
  return backgroundRuns > 0;
}

/**
 * Resolves once no background work runs on this thread, and none began in the turn of the loop after
 * the last one ended: a run's end may start another (a rebuild queued behind it, the next version's
 * search aids), which idle must not be told before.
 */
export async function backgroundIdle(): Promise<void> {
  for (;;) {
    if (backgroundRuns > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    await nextTurn();
    if (backgroundRuns === 0) return;
  }
}

/**
 * Runs `steps` to the end, pausing for a turn of the event loop every `sliceMs` of work. A change's
 * first slice runs synchronously in the caller; background work takes every slice, the first too, in
 * a turn of its own (see {@link nextBackgroundTurn}).
 */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS, priority: SlicePriority = 'background'): Promise<T> {
  if (priority === 'background') {
    backgroundRuns++;
    try {
      await nextBackgroundTurn();
      return await runSlices(steps, sliceMs, nextBackgroundTurn);
    } finally {
      if (--backgroundRuns === 0) for (const wake of idleWaiters.splice(0)) wake();
    }
  }
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
