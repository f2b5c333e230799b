/**
 * The catalog change log: the one interface of the places where a website's accepted catalog changes
 * are made durable before they are acknowledged, and of the snapshot that lets the oldest of them go.
 * Implementations: the files of a data directory (`change-log.ts` here, one process) and PostgreSQL's
 * shared `change_log` (`replication/pg-catalog-change-log.ts`, every replica). Both pass the same
 * contract suite (`change-log-contract.ts`); docs/events-and-stores.md describes them.
 *
 * Positions: every appended change gets a position, and positions increase in append order. A
 * snapshot records the position of the last change it holds; {@link CatalogChangeLog.readAfter} that
 * position gives every change the snapshot lacks. It may also give some the snapshot already holds:
 * replaying upserts, deletes and replaces in their order over a state that has some of them gives the
 * same catalog (the last change of each refId wins; a replace starts over).
 * @module
 */
import type { Product } from '../../types.js';

/** A change read back from a log, with its position there. */
export interface PositionedChange<C = LoggedChange> {
  position: number;
  change: C;
}

/** A stored catalog snapshot (flatbuffers bytes) and the position of the last change it holds. */
export interface StoredSnapshot {
  /** Every change at or before this position is in the snapshot (0: the log does not know which; replay all it holds). */
  position: number;
  data: Uint8Array;
  /** Where it was read from, for error messages (a file path, `postgres snapshot of "…"`). */
  label: string;
}

/** One website's catalog change log; see the module comment. `C` is the kind of change it carries. */
export interface CatalogChangeLog<C = LoggedChange> {
  /**
   * Appends changes as one batch: all or nothing, durable once it resolves, with the position of the
   * batch's last change. Batches of concurrent calls are written in call order. A failure (disk full,
   * the server gone) rejects with `STORE_FAILURE` and nothing of the batch is ever read back.
   */
  append(changes: readonly C[]): Promise<number>;
  /** Every committed change after `position`, in order, with its position (0: all the log holds). */
  readAfter(position: number): Promise<PositionedChange<C>[]>;
  /**
   * Stores a snapshot holding every change up to `position` (`encode` gives its bytes; it is not
   * called when nothing is stored) and lets the log drop changes a stored snapshot holds. Resolves
   * false, storing nothing, when a snapshot of a later position is already stored (or, on a shared
   * log, another writer is storing one right now). A log whose positions do not outlive its process
   * (the data directory's) passes `encode` a mark to keep in the snapshot: given back to it when the
   * snapshot is loaded, it tells which changes the snapshot holds.
   */
  saveSnapshot(position: number, encode: (logMark?: number) => Promise<Uint8Array>): Promise<boolean>;
  /** The latest stored snapshot, or undefined when none was ever stored. */
  loadSnapshot(): Promise<StoredSnapshot | undefined>;
  /** Waits for pending appends and releases what the log holds open. */
  close(): Promise<void>;
}

/** A catalog change as logged and replayed. */
export type LoggedChange =
  | { kind: 'upsert'; products: readonly Product[] }
  | { kind: 'replace'; products: readonly Product[] }
  | { kind: 'delete'; refIds: readonly string[] };
