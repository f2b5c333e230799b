/**
 * The catalog's write-ahead log in a data directory, the file implementation of
 * {@link CatalogChangeLog}: every accepted catalog change (upsert, replace, delete) is appended and
 * flushed to disk (`fdatasync`) before the call that made it resolves, so an acknowledged change
 * survives a crash even though snapshots are written seconds later. On start the engine loads the
 * snapshot and replays the log over it.
 *
 * Files: the snapshot `<name>.aislesnap`, the one before it `<name>.aislesnap.prev`
 * (`snapshot-generations.ts`: a start that cannot read the latest loads the previous one), and the
 * log `<name>.log.<segment>` beside them, segments numbered upwards. A snapshot write rotates the log
 * (later changes go to a new segment); once the snapshot is on disk, the segments whose every change
 * the snapshot *before* it holds are deleted, so the log still takes the previous generation to the
 * present.
 *
 * A segment may hold changes that are also in the snapshot: replaying them is harmless, because
 * replaying upserts and deletes in their order over a state that already has some of them gives the
 * same products in the same order (the last change of each refId wins; a replace starts over).
 *
 * Positions are those of one open log: the changes found at open are numbered 1, 2, … in order and
 * later appends go on from there (each commit line records its batch's last). What outlives the
 * process is the segment numbering: a snapshot is written with the log's mark, the first segment
 * holding a change it lacks (the segment rotated to when its version was taken, or an earlier one when
 * a change was logged but its version not yet published), and the engine hands the mark of
 * the snapshot it loaded back to {@link FileChangeLog.snapshotLoaded} before replaying, so a restart
 * replays only the segments after the snapshot. A snapshot without a mark (written before marks
 * existed) has every change still in the log replayed over it (harmless, above). Segments are deleted
 * by marks too: once a snapshot is on disk, those below the mark of the generation before it.
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
import { existsSync } from 'node:fs';
import { open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { writeFully } from '../../util/write-fully.js';
import { SLICE_MS } from '../build/time-slices.js';
import { writeFileDurably } from '../../util/durable-file.js';
import type { CatalogChangeLog, LoggedChange, PositionedChange, StoredSnapshot } from './catalog-change-log.js';
import { previousSnapshotPath, readSnapshotFile } from './snapshot-file.js';


/** Bytes gathered before one write: a replace of a big feed is written in pieces, not one huge string. */
const WRITE_CHUNK = 1 << 20;

interface Segment {
  id: number;
  file: string;
  /** Highest change position appended to it (0: none). */
  lastSeq: number;
  /**
   * Found at open: its changes are numbered from here by counting (the commit lines of an earlier
   * process carry that process's numbers). A segment written by this log is read by its commit lines.
   */
  firstRecovered?: number;
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

/** A batch of changes of a segment: one commit line's, or (old format) one entry without a position. */
interface LoggedBatch {
  changes: LoggedChange[];
  /** The position of its last change (its commit line's `seq`); absent in the old format. */
  seq?: number;
}

/**
 * The entries of one segment's text, stopping at the first incomplete one; in the committed-batch
 * format, only the entries of batches followed by their commit line. Pure.
 */
export function parseLogSegment(text: string): LoggedChange[] {
  return parseLogBatches(text).flatMap((b) => b.changes);
}

/** {@link parseLogSegment}, batch by batch with their commit positions. Pure. */
function parseLogBatches(text: string): LoggedBatch[] {
  const batches: LoggedBatch[] = [];
  let entries: LoggedChange[] = [];
  const lines = text.split('\n');
  // The last element is what follows the final newline: '' for a complete file, else a cut line.
  lines.pop();
  const committedFormat = lines[0] === FORMAT_LINE;
  let i = committedFormat ? 1 : 0;
  const take = (entry: LoggedChange): void => {
    if (committedFormat) entries.push(entry);
    else batches.push({ changes: [entry] });
  };
  while (i < lines.length) {
    let header: { op?: unknown; count?: unknown; refIds?: unknown; seq?: unknown };
    try {
      header = JSON.parse(lines[i]) as typeof header;
    } catch {
      break;
    }
    if (header.op === 'commit') {
      batches.push({ changes: entries, seq: typeof header.seq === 'number' ? header.seq : undefined });
      entries = [];
      i++;
      continue;
    }
    if (header.op === 'delete' && Array.isArray(header.refIds)) {
      take({ kind: 'delete', refIds: header.refIds as string[] });
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
    take({ kind: header.op, products });
    i += 1 + count;
  }
  return batches;
}

/** The snapshot file of the log `name` in `dir`. */
function snapshotFileOf(dir: string, name: string): string {
  return path.join(dir, `${name}.aislesnap`);
}

/** One website's catalog change log in a data directory; see the module comment. */
export class FileChangeLog implements CatalogChangeLog {
  private current: Segment;
  private readonly closed: Segment[] = [];
  private handle: Promise<FileHandle> | undefined;
  /** Appends run one after the other, in call order. */
  private tail: Promise<void> = Promise.resolve();
  /** Position of the last change appended (or found at open). */
  private position = 0;
  /** Position of the last change held by the latest snapshot this log wrote (0: none written yet). */
  private snapshotPosition = 0;
  /** Position of the last change held by the previous generation (0: found at open, or none). */
  private previousSnapshotPosition = 0;
  /**
   * The mark of the latest snapshot (loaded at open or written since): segments numbered below it hold
   * only changes it holds. 0: no snapshot with a mark, every segment is replayed.
   */
  private heldBelow = 0;
  /**
   * The changes found at open, segment by segment, parsed once: handed out by the first
   * {@link readAfter} (the engine's replay) and then let go; later reads parse the files again.
   */
  private recovered: Map<Segment, LoggedChange[]> | undefined;

  /** Where failures no caller waits for go (closing a rotated segment); set by the engine. */
  onError: (error: unknown) => void = () => undefined;

  private constructor(private readonly dir: string, private readonly name: string) {
    this.current = this.segment(1);
  }

  private segment(id: number): Segment {
    return { id, file: path.join(this.dir, `${this.name}.log.${id}`), lastSeq: 0, size: 0 };
  }

  /**
   * Opens the log of `name` in `dir` (its snapshot is `<name>.aislesnap` there): the segments already
   * there are read (their changes are positions 1, 2, …, for {@link readAfter}), and later changes go to
   * a new segment. A segment that cannot be read stops the start with a message naming it.
   */
  static async open(dir: string, name: string): Promise<FileChangeLog> {
    const prefix = `${name}.log.`;
    const ids = (await readdir(dir)).filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
      .map((f) => Number(f.slice(prefix.length))).sort((a, b) => a - b);
    const log = new FileChangeLog(dir, name);
    log.recovered = new Map();
    for (const id of ids) {
      const segment = log.segment(id);
      const changes = parseLogSegment(await log.readSegment(segment));
      segment.firstRecovered = log.position + 1;
      log.position += changes.length;
      segment.lastSeq = log.position;
      log.recovered.set(segment, changes);
      log.closed.push(segment);
    }
    log.current = log.segment((ids.at(-1) ?? 0) + 1);
    return log;
  }

  /** A segment's text ('' when it does not exist: never created, or dropped meanwhile). */
  private async readSegment(segment: Segment): Promise<string> {
    try {
      return await readFile(segment.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw new AisleError('SNAPSHOT_INVALID', `catalog change log ${segment.file} cannot be read: ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * Tells the log which snapshot the engine loaded: its mark (`undefined` for a snapshot written
   * without one, or no snapshot). Called at open, before any append; returns the position the snapshot
   * holds, for {@link readAfter}: the segments below the mark are neither replayed nor kept past the
   * next snapshot, and later appends go to a segment at or above it (the mark may name a segment never
   * created: rotated to, then no change).
   */
  snapshotLoaded(logMark: number | undefined): number {
    if (this.position !== (this.closed.at(-1)?.lastSeq ?? 0) || this.current.size > 0) {
      throw new Error('FileChangeLog.snapshotLoaded must be called before any append');
    }
    this.heldBelow = logMark ?? 0;
    if (this.heldBelow > this.current.id) this.current = this.segment(this.heldBelow);
    let held = 0;
    for (const segment of this.closed) if (segment.id < this.heldBelow) held = segment.lastSeq;
    return held;
  }

  async readAfter(after: number): Promise<PositionedChange[]> {
    await this.tail;
    const recovered = this.recovered;
    this.recovered = undefined;
    const out: PositionedChange[] = [];
    for (const segment of [...this.closed, this.current]) {
      if (segment.lastSeq <= after) continue;
      if (segment.firstRecovered !== undefined) {
        const changes = recovered?.get(segment) ?? parseLogSegment(await this.readSegment(segment));
        changes.forEach((change, i) => { if (segment.firstRecovered! + i > after) out.push({ position: segment.firstRecovered! + i, change }); });
        continue;
      }
      for (const batch of parseLogBatches(await this.readSegment(segment))) {
        // This log writes only the committed format, each commit line with its batch's last position.
        const last = batch.seq!;
        batch.changes.forEach((change, i) => {
          const position = last - batch.changes.length + 1 + i;
          if (position > after) out.push({ position, change });
        });
      }
    }
    return out;
  }

  append(changes: readonly LoggedChange[]): Promise<number> {
    this.position += changes.length;
    const last = this.position;
    return this.appendBatch(changes, last).then(() => last);
  }

  /** The latest snapshot file (the engine loads it, or the previous generation, with `loadLatestGeneration`). */
  get snapshotFile(): string {
    return snapshotFileOf(this.dir, this.name);
  }

  /**
   * The latest snapshot's bytes; the previous generation's when there is no latest (a crash between
   * the two renames of a write). Bytes only: whether they decode is the reader's to find out.
   */
  async loadSnapshot(): Promise<StoredSnapshot | undefined> {
    const file = existsSync(this.snapshotFile) ? this.snapshotFile : previousSnapshotPath(this.snapshotFile);
    if (!existsSync(file)) return undefined;
    return { position: file === this.snapshotFile ? this.snapshotPosition : this.previousSnapshotPosition, data: await readSnapshotFile(file), label: file };
  }

  /**
   * Rotates the log at once (later changes go to a new segment: call it where the snapshot's catalog
   * version is taken), writes the snapshot file atomically (the one it replaces kept as the previous
   * generation), then deletes the segments that previous one holds.
   */
  async saveSnapshot(position: number, encode: (logMark?: number) => Promise<Uint8Array>): Promise<boolean> {
    if (position < this.snapshotPosition) return false;
    this.rotate();
    // The first segment with a change after `position` (a change is logged before its version is
    // published, so the segment rotated away may hold some the snapshot lacks): the ones below it hold
    // only changes the snapshot holds.
    const mark = this.closed.find((segment) => segment.lastSeq > position)?.id ?? this.current.id;
    // The latest so far becomes (or, when it was unreadable and moved aside, the loaded one stays) the
    // previous generation: the log must take it to the present.
    const heldByPrevious = this.heldBelow;
    const previousPosition = this.snapshotPosition;
    await writeFileDurably(this.snapshotFile, await encode(mark), { keepPreviousAs: previousSnapshotPath(this.snapshotFile) });
    this.previousSnapshotPosition = previousPosition;
    this.snapshotPosition = position;
    this.heldBelow = mark;
    await this.dropCovered(heldByPrevious);
    return true;
  }

  /**
   * Appends a batch of changes, the last at position `lastSeq`, with its commit line; resolves once it
   * is on disk (every byte written, `fdatasync` done). All or nothing: on any failure the batch is
   * cut off again and, having no commit line, is never replayed. Called in the order of the positions.
   */
  private appendBatch(changes: readonly LoggedChange[], lastSeq: number): Promise<void> {
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
        // Lines are encoded into one buffer of WRITE_CHUNK bytes, written when full: a chunk built by
        // string concatenation was flattened into a 1 MB string per write (old-space garbage, 500 MB of
        // it for a 1M replace, allocated while both catalog versions and the caller's products are
        // alive), and an awaited call per line was a promise per product (docs/benchmarks.md, "The full
        // replace at 1M: what it allocates").
        const buffer = Buffer.allocUnsafe(WRITE_CHUNK);
        let filled = 0;
        // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair 4 for 2, a lone one 3).
        const fits = (line: string): boolean => filled + 3 * line.length + 1 <= buffer.length;
        const putNow = (line: string): void => {
          filled += buffer.write(line, filled, 'utf8');
          buffer[filled++] = 0x0a;
        };
        const flush = async (): Promise<void> => {
          if (filled === 0) return;
          position += await writeFully(fh!, buffer.subarray(0, filled), position);
          filled = 0;
        };
        let turnAt = performance.now();
        // A line goes into the buffer at once, with no promise (most lines: one per product), unless the
        // buffer is full or a turn of the event loop is due: then `putAwaited` does it, and its promise is
        // returned to be awaited.
        const put = (line: string): Promise<void> | undefined => {
          if (!fits(line) || performance.now() - turnAt >= SLICE_MS) return putAwaited(line);
          putNow(line);
          return undefined;
        };
        const putAwaited = async (line: string): Promise<void> => {
          if (!fits(line)) {
            await flush();
            // A line longer than the buffer is written on its own.
            if (!fits(line)) {
              position += await writeFully(fh!, Buffer.from(`${line}\n`, 'utf8'), position);
              return;
            }
          }
          putNow(line);
          // Hand the event loop a turn every slice of work: write completions alone chained the chunks of
          // a 1M-product replace into 100–400 ms without a turn, and a chunk's worth of products with
          // image vectors took 150–400 ms to stringify at load 20 (stalls found with --cpu-prof).
          if (performance.now() - turnAt < SLICE_MS) return;
          await new Promise((resolve) => setImmediate(resolve));
          turnAt = performance.now();
        };
        if (position === 0) putNow(FORMAT_LINE);
        for (const change of changes) {
          if (change.kind === 'delete') await put(JSON.stringify({ op: 'delete', refIds: change.refIds }));
          else {
            await put(JSON.stringify({ op: change.kind, count: change.products.length }));
            for (const p of change.products) {
              const wait = put(JSON.stringify(p));
              if (wait) await wait;
            }
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

  /** Starts a new segment for later appends (synchronously: where the snapshot's state is taken). */
  private rotate(): void {
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

  /** Deletes the closed segments numbered below `mark` (the previous snapshot generation holds them). */
  private async dropCovered(mark: number): Promise<void> {
    await this.tail;
    while (this.closed.length > 0 && this.closed[0].id < mark) {
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
