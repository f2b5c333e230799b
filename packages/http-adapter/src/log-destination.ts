/**
 * Where the request log goes: pino's asynchronous writer, buffered, so that a busy server writes its
 * log in a few large writes rather than one system call per request (a write per request cost about as
 * much as the rest of the adapter's work for a short recommendation call).
 * @module
 */
import { openSync } from 'node:fs';
import { destination, stdSerializers, type DestinationStream, type LoggerOptions } from 'pino';

/**
 * Lines are written once this many bytes are buffered… Every write is a round trip through libuv's
 * thread pool; at 64 KiB a server answering 50,000 requests a second makes about 200 of them (decision 0094).
 */
export const LOG_BUFFER_BYTES = 64 * 1024;
/** …or after this long, so a quiet server's lines still appear promptly. */
export const LOG_FLUSH_MS = 1000;

/** UTF-8 needs at most this many bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/**
 * The options of the loggers aisle makes itself (`aisle serve`, `createServer`'s default). Errors are
 * logged with `errWithCause`: the engine's errors already carry their cause's message in their own
 * (`the store failed: <reason>`, with the cause attached), and pino's default `err` serialiser appends
 * every cause's message again, so a PostgreSQL disconnection logged its reason twice.
 */
export function aisleLoggerOptions(level?: string): LoggerOptions {
  return { name: 'aisle', ...(level !== undefined && { level }), serializers: { err: stdSerializers.errWithCause } };
}

type BufferedDestination = DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void };
/** pino's writer (sonic-boom) in its buffer mode: it writes the buffers it is handed as they are. */
type Writer = ReturnType<typeof destination> & { write(chunk: Buffer): boolean };

/**
 * Each line encoded into a {@link LOG_BUFFER_BYTES} buffer as it comes; a full buffer is handed to pino's
 * writer, which writes it asynchronously as it is (one write at a time, in order). A line costs one
 * UTF-8 encoding and is garbage at once. Gathering the lines as strings and handing the writer one
 * joined string (decision 0052) kept every line alive until the join and had the writer measure and
 * copy the text again: ~1.5 µs of every short request's CPU under load (decision 0094).
 */
class LineBuffer implements BufferedDestination {
  private buffer = Buffer.allocUnsafe(LOG_BUFFER_BYTES);
  private used = 0;

  constructor(private readonly writer: Writer) {}

  write(line: string): boolean {
    const most = MAX_UTF8_BYTES_PER_UNIT * line.length;
    if (this.used + most > this.buffer.length) {
      this.drain();
      // A line larger than a buffer (a long error with its stack) goes to the writer on its own.
      if (most > this.buffer.length) {
        this.writer.write(Buffer.from(line));
        return true;
      }
    }
    this.used += this.buffer.write(line, this.used);
    return true;
  }

  /** Hands the encoded lines to the writer; the buffer is the writer's from then on (a new one is taken). */
  private drain(): void {
    if (this.used === 0) return;
    this.writer.write(this.buffer.subarray(0, this.used));
    this.buffer = Buffer.allocUnsafe(LOG_BUFFER_BYTES);
    this.used = 0;
  }

  /**
   * Writes what is gathered; `cb` (pino's `logger.flush(cb)`) is called once the writer has written it.
   * Called once the writer drains, not through the writer's own `flush(cb)`: that one fsyncs the
   * descriptor after the writes, and a pipe or socket (stdout under a supervisor or a container
   * runtime) cannot be fsynced — every line written, the callback was handed EINVAL.
   */
  flush(cb?: (err?: Error) => void): void {
    this.drain();
    if (cb !== undefined) {
      const onDrain = (): void => {
        this.writer.off('error', onError);
        cb();
      };
      const onError = (err: Error): void => {
        this.writer.off('drain', onDrain);
        cb(err);
      };
      this.writer.once('drain', onDrain);
      this.writer.once('error', onError);
    }
    // Idle, the writer writes nothing and then drains; writing, it drains once all it holds is written.
    this.writer.flush();
  }

  flushSync(): void {
    this.drain();
    this.writer.flushSync();
  }
}

/** One destination per file descriptor or path in a process (each holds a timer and an exit hook). */
const opened = new Map<number | string, BufferedDestination>();

/**
 * A buffered, asynchronous pino destination on a file descriptor (default 1, stdout) or a file path:
 * written when {@link LOG_BUFFER_BYTES} are buffered, at least every {@link LOG_FLUSH_MS}, and
 * synchronously when the process exits (a crash included). A process killed outright (SIGKILL) loses at
 * most the last second of lines. Calls with the same `dest` share one destination.
 */
export function logDestination(dest: number | string = 1): BufferedDestination {
  const known = opened.get(dest);
  if (known) return known;
  // A path is opened here, synchronously, so that even a process exiting right away can flush into it.
  const fd = typeof dest === 'string' ? openSync(dest, 'a') : dest;
  // The writer is handed whole buffers (LineBuffer): each starts a write at once (any length reaches
  // minLength 1; at 0 the writer's flush() would neither write nor drain, and LineBuffer.flush(cb) waits
  // for that drain), or joins the next one while a write is under way (up to four buffers in one write).
  const writer = destination({ dest: fd, sync: false, contentMode: 'buffer', minLength: 1, maxWrite: 4 * LOG_BUFFER_BYTES }) as Writer;
  const stream = new LineBuffer(writer);
  opened.set(dest, stream);
  const timer = setInterval(() => stream.flush(), LOG_FLUSH_MS);
  timer.unref();
  process.once('exit', () => {
    clearInterval(timer);
    stream.flushSync();
  });
  return stream;
}
