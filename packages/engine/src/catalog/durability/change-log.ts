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
 * Format: a segment starts with the line `{"aisleLog":2}`. One entry is a header line
 * `{"op":"upsert"|"replace","count":N}` followed by N product lines, or one line
 * `{"op":"delete","refIds":[…]}`. The entries of one batch (the changes one catalog build applies)
 * are followed by a commit line `{"op":"commit","seq":S}`; replay applies only committed batches, so
 * a batch whose write failed (answered with an error) is never replayed, even when some of its
 * entries reached the disk. A failed write is also cut off again (`ftruncate` to the segment's size
 * before it). A crash can leave the last batch without its commit line: it was never acknowledged and
 * is ignored. Segments written before the format line existed (no commit lines) replay every
 * complete entry, as they always did.
 * @module
 */
import { open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { writeFully } from '../../util/write-fully.js';

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
  /** Bytes of committed batches in it (the next batch is written from here). */
  size: number;
  /**
   * A write to it failed: it may end in a partial entry, after which replay reads nothing, so nothing
   * more is written to it (later appends go to a new segment; those already queued fail).
   */
  failed?: boolean;
}

/** First line of a segment in the committed-batch format. */
const FORMAT_LINE = '{"aisleLog":2}';

/**
 * The entries of one segment's text, stopping at the first incomplete one; in the committed-batch
 * format, only the entries of batches followed by their commit line. Pure.
 */
export function parseLogSegment(text: string): LoggedChange[] {
  const entries: LoggedChange[] = [];
  const lines = text.split('\n');
  // The last element is what follows the final newline: '' for a complete file, else a cut line.
  lines.pop();
  const committedFormat = lines[0] === FORMAT_LINE;
  let committed = 0;
  let i = committedFormat ? 1 : 0;
  while (i < lines.length) {
    let header: { op?: unknown; count?: unknown; refIds?: unknown };
    try {
      header = JSON.parse(lines[i]) as typeof header;
    } catch {
      break;
    }
    if (header.op === 'commit') {
      committed = entries.length;
      i++;
      continue;
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
  return committedFormat ? entries.slice(0, committed) : entries;
}

/** One website's catalog change log. */
export class CatalogChangeLog {
  private current: Segment;
  private readonly closed: Segment[];
  private handle: Promise<FileHandle> | undefined;
  /** Appends run one after the other, in call order. */
  private tail: Promise<void> = Promise.resolve();

  /** Where failures no caller waits for go (closing a rotated segment); set by the engine. */
  onError: (error: unknown) => void = () => undefined;

  private constructor(private readonly dir: string, private readonly name: string, existing: Segment[]) {
    this.closed = existing;
    const next = (existing.at(-1)?.id ?? 0) + 1;
    this.current = this.segment(next);
  }

  private segment(id: number): Segment {
    return { id, file: path.join(this.dir, `${this.name}.log.${id}`), lastSeq: 0, size: 0 };
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
      for (const entry of parseLogSegment(text)) pending.push(entry);
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

  /** Appends one change as a batch of its own (see {@link appendBatch}). */
  append(change: LoggedChange, seq: number): Promise<void> {
    return this.appendBatch([change], seq);
  }

  /**
   * Appends a batch of changes, the last numbered `lastSeq`, with its commit line; resolves once it
   * is on disk (every byte written, `fdatasync` done). All or nothing: on any failure the batch is
   * cut off again and, having no commit line, is never replayed. Must be called in the order of the
   * sequence numbers.
   */
  appendBatch(changes: readonly LoggedChange[], lastSeq: number): Promise<void> {
    const segment = this.current;
    segment.lastSeq = lastSeq;
    if (!this.handle) {
      this.handle = open(segment.file, 'wx');
      // A failed open is reported to the append that awaits the handle (below), maybe a tick later:
      // this handler only keeps the rejection from counting as unhandled in between.
      this.handle.catch(() => undefined);
    }
    const handle = this.handle;
    const write = this.tail.then(async () => {
      if (segment.failed) throw new Error('an earlier write to this segment failed');
      const start = segment.size;
      let fh: FileHandle | undefined;
      try {
        fh = await handle;
        let position = start;
        let chunk = position === 0 ? FORMAT_LINE + '\n' : '';
        const flush = async (): Promise<void> => {
          position += await writeFully(fh!, Buffer.from(chunk, 'utf8'), position);
          chunk = '';
        };
        const put = async (line: string): Promise<void> => {
          chunk += line + '\n';
          if (chunk.length >= WRITE_CHUNK) await flush();
        };
        for (const change of changes) {
          if (change.kind === 'delete') await put(JSON.stringify({ op: 'delete', refIds: change.refIds }));
          else {
            await put(JSON.stringify({ op: change.kind, count: change.products.length }));
            for (const p of change.products) await put(JSON.stringify(p));
          }
        }
        await put(JSON.stringify({ op: 'commit', seq: lastSeq }));
        await flush();
        await fh.datasync();
        segment.size = position;
      } catch (err) {
        // Cut the batch off so nothing of it can be replayed; if even that fails, the missing commit
        // line still keeps it out of a replay, and the segment takes no more writes.
        try {
          if (!fh) throw err;
          await fh.truncate(start);
          await fh.datasync();
        } catch {
          segment.failed = true;
        }
        throw err;
      }
    }).catch((err: unknown) => {
      // Disk full, I/O error: the change is not durable, so the call that made it must not succeed.
      if (segment.failed && this.current === segment) this.rotate();
      throw new AisleError('STORE_FAILURE', `the catalog change could not be written to ${segment.file}: ${(err as Error).message}`, { cause: err });
    });
    // The chain goes on after a failed write (that change's caller gets the error).
    this.tail = write.then(() => undefined, () => undefined);
    return write;
  }

  /** Starts a new segment for later appends (synchronously: call it where the snapshot's state is taken). */
  rotate(): void {
    const full = this.current;
    const handle = this.handle;
    this.handle = undefined;
    // A handle that never opened (the failure was reported to its append) has nothing to close;
    // a close that fails is reported, the log goes on with the new segment.
    if (handle) {
      this.tail = this.tail.then(() => handle.then((fh) => fh.close().catch((err: unknown) => this.onError(err)), () => undefined));
    }
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
