/**
 * The handler timeout (`handlerTimeoutMs`): requests waiting for their handler, answered by one sweep
 * when they outlive it. A timer per request (setTimeout, then clearTimeout on the answer) cost a timer
 * object, a list insertion and a removal on every request of the hot recommendation path; here a request
 * is linked into a list through fields of its own, which allocates nothing, and one interval serves
 * every request (decision 0094).
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
 * The fields a request carries while it is armed (the list runs through the requests themselves).
 * Set them to undefined when the request is made, so that every request has the same shape.
 */
export interface DeadlineLinks<T> {
  /** When the request times out (the deadlines' clock, ms); undefined while not armed. */
  deadlineAt: number | undefined;
  deadlinePrev: T | undefined;
  deadlineNext: T | undefined;
}

/**
 * Requests armed with one timeout, each expired once (`expire`) unless disarmed before. The list is in
 * arrival order, which is deadline order (one timeout for all), so a sweep stops at the first request
 * still in time. The interval runs only while requests are armed, and never keeps the process alive.
 */
export class Deadlines<T extends DeadlineLinks<T>> {
  private head: T | undefined;
  private tail: T | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  /** `expire` answers a request that outlived `timeoutMs`; `now` is the clock in ms (a test's own). */
  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (request: T) => void,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** Starts the request's deadline (nothing if it is armed already). */
  arm(request: T): void {
    if (request.deadlineAt !== undefined) return;
    request.deadlineAt = this.now() + this.timeoutMs;
    request.deadlinePrev = this.tail;
    request.deadlineNext = undefined;
    if (this.tail === undefined) this.head = request;
    else this.tail.deadlineNext = request;
    this.tail = request;
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), sweepPeriodMs(this.timeoutMs));
      this.sweeper.unref();
    }
  }

  /** Ends the request's deadline (answered, or past the point the timeout covers); nothing if it is not armed. */
  disarm(request: T): void {
    if (request.deadlineAt === undefined) return;
    const { deadlinePrev: prev, deadlineNext: next } = request;
    if (prev === undefined) this.head = next;
    else prev.deadlineNext = next;
    if (next === undefined) this.tail = prev;
    else next.deadlinePrev = prev;
    request.deadlineAt = request.deadlinePrev = request.deadlineNext = undefined;
  }

  /** How many requests are armed (counted along the list: for tests and diagnostics, not the hot path). */
  get size(): number {
    let n = 0;
    for (let r = this.head; r !== undefined; r = r.deadlineNext) n++;
    return n;
  }

  /** Expires every request past its deadline; stops the interval when none is left armed. */
  sweep(): void {
    const now = this.now();
    while (this.head !== undefined && this.head.deadlineAt! <= now) {
      const request = this.head;
      this.disarm(request);
      this.expire(request);
    }
    if (this.head === undefined && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
