/**
 * The catalog's write-ahead log: every accepted catalog change (upsert, replace, delete) is appended
 * and flushed to disk (`fdatasync`) before the call that made it resolves, so an acknowledged change
 * survives a crash even though snapshots are written seconds later. On start the engine loads the
 * snapshot and replays the log over it.
 *
 * Files: `<name>.log.<segment>` beside the snapshot, segments numbered upwards. A snapshot write
 * rotates the log (later changes go to a new segment); once the snapshot is on disk, the segments
 * whose every change it contains are deleted. A segment may hold changes that are also in the
 * snapshot: replaying them is harmless, because replaying upserts and deletes in their order over a
 * state that already has some of them gives the same products in the same order (the last change of
 * each refId wins; a replace starts over).
 *
 * Format: one entry is a header line `{"op":"upsert"|"replace","count":N}` followed by N product lines,
 * or one line `{"op":"delete","refIds":[…]}`. A crash can leave the last entry incomplete (fewer lines
 * than its count, a line without its newline): that entry was never acknowledged and is ignored.
 * @module
 */
import { open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AisleError } from '../errors.js';
import type { Product } from '../types.js';

/** A catalog change as logged and replayed. */
export type LoggedChange =
  | { kind: 'upsert'; products: readonly Product[] }
  | { kind: 'replace'; products: readonly Product[] }
  | { kind: 'delete'; refIds: readonly string[] };

/** Bytes gathered before one write: a replace of a big feed is written in pieces, not one huge string. */
const WRITE_CHUNK = 1 << 20;

interface Segment {
  id: number;
  file: string;
  /** Highest change sequence number appended to it (0: none). */
  lastSeq: number;
  /**
   * A write to it failed: it may end in a partial entry, after which replay reads nothing, so nothing
   * more is written to it (later appends go to a new segment; those already queued fail).
   */
  failed?: boolean;
}

/** The entries of one segment's text, stopping at the first incomplete one. Pure. */
export function parseLogSegment(text: string): LoggedChange[] {
  const entries: LoggedChange[] = [];
  const lines = text.split('\n');
  // The last element is what follows the final newline: '' for a complete file, else a cut line.
  lines.pop();
  let i = 0;
  while (i < lines.length) {
    let header: { op?: unknown; count?: unknown; refIds?: unknown };
    try {
      header = JSON.parse(lines[i]) as typeof header;
    } catch {
      break;
    }
    if (header.op === 'delete' && Array.isArray(header.refIds)) {
      entries.push({ kind: 'delete', refIds: header.refIds as string[] });
      i++;
      continue;
    }
    const count = header.count;
    // An entry whose product lines are not all there was cut by a crash (and never acknowledged).
    if ((header.op !== 'upsert' && header.op !== 'replace') || typeof count !== 'number' || !Number.isInteger(count) || i + count >= lines.length) break;
    const products: Product[] = [];
    try {
      for (let k = 1; k <= count; k++) products.push(JSON.parse(lines[i + k]) as Product);
    } catch {
      break;
    }
    entries.push({ kind: header.op, products });
    i += 1 + count;
  }
  return entries;
}

/** One website's catalog change log. */
export class CatalogChangeLog {
  private current: Segment;
  private readonly closed: Segment[];
  private handle: Promise<FileHandle> | undefined;
  /** Appends run one after the other, in call order. */
  private tail: Promise<void> = Promise.resolve();

  private constructor(private readonly dir: string, private readonly name: string, existing: Segment[]) {
    this.closed = existing;
    const next = (existing.at(-1)?.id ?? 0) + 1;
    this.current = this.segment(next);
  }

  private segment(id: number): Segment {
    return { id, file: path.join(this.dir, `${this.name}.log.${id}`), lastSeq: 0 };
  }

  /**
   * Opens the log of `name` in `dir`: the entries of the segments already there, in order (to replay
   * over the snapshot), and the log, which appends to a new segment. A segment that cannot be read
   * stops the start with a message naming it.
   */
  static async open(dir: string, name: string): Promise<{ log: CatalogChangeLog; pending: LoggedChange[] }> {
    const prefix = `${name}.log.`;
    const ids = (await readdir(dir)).filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
      .map((f) => Number(f.slice(prefix.length))).sort((a, b) => a - b);
    const log = new CatalogChangeLog(dir, name, []);
    const pending: LoggedChange[] = [];
    for (const id of ids) {
      const segment = log.segment(id);
      let text: string;
      try {
        text = await readFile(segment.file, 'utf8');
      } catch (err) {
        throw new AisleError('SNAPSHOT_INVALID', `catalog change log ${segment.file} cannot be read: ${(err as Error).message}`, { cause: err });
      }
      pending.push(...parseLogSegment(text));
      log.closed.push(segment);
    }
    log.current = log.segment((ids.at(-1) ?? 0) + 1);
    return { log, pending };
  }

  /**
   * Marks the segments found at open as covered by change `seq` (the last replayed one): the first
   * snapshot taken once `seq` is applied lets them go.
   */
  markReplayed(seq: number): void {
    for (const s of this.closed) s.lastSeq = Math.max(s.lastSeq, seq);
  }

  /**
   * Appends change number `seq`; resolves once it is on disk. Must be called in the order of `seq`,
   * synchronously with queuing the change (so it lands in the segment current at that moment).
   */
  append(change: LoggedChange, seq: number): Promise<void> {
    const segment = this.current;
    segment.lastSeq = seq;
    if (!this.handle) this.handle = open(segment.file, 'a');
    const handle = this.handle;
    const write = this.tail.then(async () => {
      if (segment.failed) throw new Error('an earlier write to this segment failed');
      const fh = await handle;
      let chunk = '';
      const put = async (line: string): Promise<void> => {
        chunk += line + '\n';
        if (chunk.length >= WRITE_CHUNK) { await fh.write(chunk); chunk = ''; }
      };
      if (change.kind === 'delete') await put(JSON.stringify({ op: 'delete', refIds: change.refIds }));
      else {
        await put(JSON.stringify({ op: change.kind, count: change.products.length }));
        for (const p of change.products) await put(JSON.stringify(p));
      }
      if (chunk) await fh.write(chunk);
      await fh.datasync();
    }).catch((err: unknown) => {
      // Disk full, I/O error: the change is not durable, so the call that made it must not succeed.
      segment.failed = true;
      if (this.current === segment) this.rotate();
      throw new AisleError('STORE_FAILURE', `the catalog change could not be written to ${segment.file}: ${(err as Error).message}`, { cause: err });
    });
    // The chain goes on after a failed write (that change's caller gets the error).
    this.tail = write.catch(() => undefined);
    return write;
  }

  /** Starts a new segment for later appends (synchronously: call it where the snapshot's state is taken). */
  rotate(): void {
    const full = this.current;
    const handle = this.handle;
    this.handle = undefined;
    if (handle) this.tail = this.tail.then(async () => { await (await handle).close(); }).catch(() => undefined);
    this.closed.push(full);
    this.current = this.segment(full.id + 1);
  }

  /** Deletes the closed segments whose every change is at or below `appliedSeq` (a snapshot holds them). */
  async dropCovered(appliedSeq: number): Promise<void> {
    await this.tail;
    while (this.closed.length > 0 && this.closed[0].lastSeq <= appliedSeq) {
      const s = this.closed.shift()!;
      await rm(s.file, { force: true });
    }
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    await this.tail;
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle).close();
  }
}
