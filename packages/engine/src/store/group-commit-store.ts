/**
 * What every store implementation shares: appends go through one {@link GroupCommitter}, so each
 * store only says how one batch is written in one transaction.
 * @module
 */
import { GroupCommitter } from './group-commit.js';
import type { AppendOp, AppendOpResult } from './plan.js';
import type { ClickAppend, ClickAppendResult, PurchaseAppend, PurchaseAppendResult, ViewAppend } from './store.js';

/** Base of the memory, SQLite and PostgreSQL stores: group-committed appends and the closed check. */
export abstract class GroupCommitStore {
  protected closed = false;
  protected readonly committer: GroupCommitter<AppendOp, AppendOpResult>;

  /** @param maxInFlight batches handed to {@link commitBatch} at once (see {@link GroupCommitter}). */
  constructor(maxInFlight = 1) {
    this.committer = new GroupCommitter<AppendOp, AppendOpResult>((ops) => this.commitBatch(ops), undefined, maxInFlight);
  }

  /** Writes one batch in one transaction; one result per op, in order. */
  protected abstract commitBatch(ops: AppendOp[]): Promise<AppendOpResult[]> | AppendOpResult[];

  protected checkOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** Appends purchase events; resolves once they are durable. */
  async appendPurchases(append: PurchaseAppend): Promise<PurchaseAppendResult> {
    this.checkOpen();
    return (await this.committer.submit({ kind: 'purchase', append })) as PurchaseAppendResult;
  }

  /** Appends views; resolves once they are durable. */
  async appendViews(append: ViewAppend): Promise<{ recorded: number }> {
    this.checkOpen();
    return (await this.committer.submit({ kind: 'view', append })) as { recorded: number };
  }

  /** Appends clicks; resolves once they are durable. */
  async appendClicks(append: ClickAppend): Promise<ClickAppendResult> {
    this.checkOpen();
    return (await this.committer.submit({ kind: 'click', append })) as ClickAppendResult;
  }

  /** Resolves when every append submitted so far has settled. */
  flush(): Promise<void> {
    return this.committer.flush();
  }
}
