/**
 * Group commit: writes submitted while a batch is being committed wait in a queue and go, together,
 * into the next single transaction. Every submitter's promise settles only after the transaction that
 * holds its write has committed (or failed), so an acknowledgement still means "durable", while the
 * cost of a commit (an fsync, a round trip) is shared by the whole batch.
 * @module
 */

/** Commits a batch in one transaction; returns one result per op, in order. */
export type BatchCommitFn<Op, Result> = (ops: Op[]) => Promise<Result[]> | Result[];

interface Pending<Op, Result> {
  op: Op;
  resolve: (result: Result) => void;
  reject: (err: unknown) => void;
}

/** A queue that commits its ops in batches; see the module comment. */
export class GroupCommitter<Op, Result> {
  private queue: Pending<Op, Result>[] = [];
  private running: Promise<void> | undefined;

  /**
   * @param commit writes a batch in one transaction.
   * @param maxBatch most ops per transaction (bounds latency and statement size).
   */
  constructor(private readonly commit: BatchCommitFn<Op, Result>, private readonly maxBatch = 2000) {}

  /** Queues an op; resolves with its result once its batch has committed. */
  submit(op: Op): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (this.running === undefined) this.running = this.drain();
    });
  }

  /** Resolves when everything submitted so far has settled. */
  async flush(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async drain(): Promise<void> {
    // Let the submitters of this turn of the event loop join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.commitBatch(batch);
      }
    } finally {
      this.running = undefined;
    }
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
