/**
 * Group commit: writes submitted while a batch is being committed wait in a queue and go, together,
 * into the next single transaction. Every submitter's promise settles only after the transaction that
 * holds its write has committed (or failed), so an acknowledgement still means "durable", while the
 * cost of a commit (an fsync, a round trip) is shared by the whole batch.
 *
 * With `maxInFlight` 2 (the SQL stores), the next batch is handed to the store while the previous one
 * is still committing: each batch is still its own transaction, and the store runs them one after
 * another (the SQLite worker takes its messages in order; PostgreSQL write transactions serialize on
 * an advisory lock taken before their look-ups), so idempotency and coupon rules are those of one batch
 * at a time. What it buys is overlap: this thread validates and encodes the next requests while the
 * store commits, instead of waiting for it. A batch that starts with nothing in flight is split in two
 * halves, so that a closed loop of clients settles into two alternating groups rather than one.
 * @module
 */

/** Commits a batch in one transaction; returns one result per op, in order. */
export type BatchCommitFn<Op, Result> = (ops: Op[]) => Promise<Result[]> | Result[];

interface Pending<Op, Result> {
  op: Op;
  resolve: (result: Result) => void;
  reject: (err: unknown) => void;
}

/** A queue with at least this many ops is split in two when nothing is in flight (see the module comment). */
const MIN_SPLIT = 32;

/** A queue that commits its ops in batches; see the module comment. */
export class GroupCommitter<Op, Result> {
  private queue: Pending<Op, Result>[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Settles when the queue is empty and no batch is in flight. */
  private idle: Promise<void> | undefined;
  private settleIdle: (() => void) | undefined;

  /**
   * @param commit writes a batch in one transaction.
   * @param maxBatch most ops per transaction (bounds latency and statement size).
   * @param maxInFlight batches handed to `commit` before the first of them has settled (1: one at a time).
   */
  constructor(private readonly commit: BatchCommitFn<Op, Result>, private readonly maxBatch = 2000, private readonly maxInFlight = 1) {}

  /** Queues an op; resolves with its result once its batch has committed. */
  submit(op: Op): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.idle ??= new Promise<void>((r) => { this.settleIdle = r; });
      this.schedule();
    });
  }

  /** Resolves when everything submitted so far has settled. */
  async flush(): Promise<void> {
    while (this.idle !== undefined) await this.idle;
  }

  /** Let the submitters of this turn of the event loop join the batch: start it on the next turn. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      let size = Math.min(this.queue.length, this.maxBatch);
      if (this.inFlight === 0 && this.maxInFlight > 1 && size >= MIN_SPLIT) size = Math.ceil(size / 2);
      const batch = this.queue.splice(0, size);
      this.inFlight++;
      void this.commitBatch(batch).finally(() => {
        this.inFlight--;
        if (this.queue.length > 0) this.schedule();
        else if (this.inFlight === 0) this.markIdle();
      });
    }
  }

  private markIdle(): void {
    const settle = this.settleIdle;
    this.idle = undefined;
    this.settleIdle = undefined;
    settle?.();
  }

  private async commitBatch(batch: Pending<Op, Result>[]): Promise<void> {
    try {
      const results = await this.commit(batch.map((p) => p.op));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      // One bad write must not fail its neighbours: retry each alone (nothing of the batch was committed).
      for (const p of batch) await this.commitBatch([p]);
    }
  }
}
