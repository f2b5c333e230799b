/**
 * Wall time of the named steps of a longer piece of work (the engine's start: reading a snapshot,
 * decoding it, opening the store, …), so a slow start says where it went (the engine logs them).
 * @module
 */
import { performance } from 'node:perf_hooks';

/** Milliseconds per step, in the order the steps ran (a step named twice adds up). */
export type StepTimes = Record<string, number>;

/** Records the time of consecutive steps: each {@link StepTimer.lap} ends one. */
export class StepTimer {
  private readonly times: StepTimes = {};
  private last = performance.now();
  private readonly started = this.last;

  /** Ends the step running since the previous lap (or the timer's creation) and names it. */
  lap(step: string): void {
    const now = performance.now();
    this.times[step] = (this.times[step] ?? 0) + Math.round((now - this.last) * 10) / 10;
    this.last = now;
  }

  /** Restarts the clock without recording (what ran since the last lap belongs to no step). */
  skip(): void {
    this.last = performance.now();
  }

  /** The steps so far. */
  get steps(): StepTimes {
    return { ...this.times };
  }

  /** Milliseconds since the timer was created. */
  get totalMs(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }
}
