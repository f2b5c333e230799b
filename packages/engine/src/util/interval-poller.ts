/**
 * A poll run every interval, never two at once: a tick that finds the previous poll still running
 * skips. Shared by the services that read what other replicas wrote to a shared store (settings,
 * experiments). Pure scheduling; what a poll does and how its outcome is told are the caller's.
 * @module
 */

/** What an {@link IntervalPoller} calls. */
export interface PollTarget {
  poll(): Promise<void>;
  /** A poll succeeded (after failures: the failure is over). */
  recovered(): void;
  /** A poll failed (it is tried again at the next tick). */
  report(error: unknown): void;
}

/**
 * How a service polling the shared store tells its polls' outcomes (the engine passes
 * FailureReporter.reportRetried and recovered, so an outage is told once, not at every interval).
 */
export interface PollOutcomes {
  /** A poll failed; it is retried at the next interval. */
  pollFailed: (error: unknown) => void;
  /** A poll succeeded (after failures: the failure is over). */
  recovered: () => void;
}

/** Runs `target.poll` every `intervalMs` once started; `close` stops it after the poll in progress. */
export class IntervalPoller {
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(private readonly target: PollTarget) {}

  /** Polls every `intervalMs` (the timer keeps no process alive). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.polling ??= this.target.poll()
        .then(() => this.target.recovered(), (err: unknown) => this.target.report(err))
        .finally(() => { this.polling = undefined; });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops polling (after the poll in progress). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }
}
