/**
 * The handler timeout (`handlerTimeoutMs`): requests waiting for their handler, answered by one sweep
 * when they outlive it. A timer per request (setTimeout, then clearTimeout on the answer) cost a timer
 * object, a list insertion and a removal on every request of the hot recommendation path; a set entry
 * costs a fraction of that, and one interval serves every request (decision 0094).
 * @module
 */

/** The sweep runs this often at most… */
const MIN_SWEEP_MS = 5;
/** …and at least this often: a request times out at most a second (or a quarter of the timeout) late. */
const MAX_SWEEP_MS = 1000;

/**
 * The sweep's period for a timeout: a quarter of it, within {@link MIN_SWEEP_MS}..{@link MAX_SWEEP_MS},
 * so a request is answered between `timeoutMs` and `timeoutMs` plus that period after it was armed.
 */
export function sweepPeriodMs(timeoutMs: number): number {
  return Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, Math.floor(timeoutMs / 4)));
}

/**
 * Requests armed with one timeout, each expired once (`expire`) unless disarmed before. Entries are
 * kept in arrival order, which is deadline order (one timeout for all), so a sweep stops at the first
 * request still in time. The interval runs only while requests are armed, and never keeps the process alive.
 */
export class Deadlines<T> {
  private readonly armed = new Map<T, number>();
  private sweeper: NodeJS.Timeout | undefined;

  /** `expire` answers a request that outlived `timeoutMs`; `now` is the clock in ms (a test's own). */
  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (request: T) => void,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** Starts the request's deadline (a request is armed once). */
  arm(request: T): void {
    this.armed.set(request, this.now() + this.timeoutMs);
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), sweepPeriodMs(this.timeoutMs));
      this.sweeper.unref();
    }
  }

  /** Ends the request's deadline (answered, or past the point the timeout covers); nothing if it was not armed. */
  disarm(request: T): void {
    this.armed.delete(request);
  }

  /** How many requests are armed. */
  get size(): number {
    return this.armed.size;
  }

  /** Expires every request past its deadline; stops the interval when none is left armed. */
  sweep(): void {
    const now = this.now();
    for (const [request, deadline] of this.armed) {
      if (deadline > now) break;
      this.armed.delete(request);
      this.expire(request);
    }
    if (this.armed.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
