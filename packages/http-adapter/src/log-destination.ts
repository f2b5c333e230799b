/**
 * Where the request log goes: pino's asynchronous writer, buffered, so that a busy server writes its
 * log in a few large writes rather than one system call per request (a write per request cost about as
 * much as the rest of the adapter's work for a short recommendation call).
 * @module
 */
import { openSync } from 'node:fs';
import { destination, stdSerializers, type DestinationStream, type LoggerOptions } from 'pino';

/** Lines are written once this many bytes are buffered (pino's writer needs it below its 16 KiB write size)… */
export const LOG_BUFFER_BYTES = 8 * 1024;
/** …or after this long, so a quiet server's lines still appear promptly. */
export const LOG_FLUSH_MS = 1000;

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
type Writer = ReturnType<typeof destination>;

/**
 * Lines gathered until {@link LOG_BUFFER_BYTES}, then handed to pino's asynchronous writer in one
 * string. pino's writer (sonic-boom) buffers too, but measures its buffered string's UTF-8 length on
 * every line (`Buffer.byteLength`, which also flattens the string): with an 8 KiB buffer that was about
 * 2 µs of the main thread per request, as much as the rest of the log line (docs/benchmarks.md, "HTTP
 * PopularItems: the request log's buffer and the levers measured"). Here a line costs an array push; the
 * threshold counts UTF-16 code units, which only decides when to write (every line is written, in order).
 */
class LineBuffer implements BufferedDestination {
  private lines: string[] = [];
  private size = 0;

  constructor(private readonly writer: Writer) {}

  write(line: string): boolean {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= LOG_BUFFER_BYTES) this.drain();
    return true;
  }

  /** Hands the gathered lines to the writer (which writes them asynchronously, one write at a time). */
  private drain(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.size = 0;
    this.writer.write(text);
  }

  /** Writes what is gathered; `cb` (pino's `logger.flush(cb)`) is called once the writer has written it. */
  flush(cb?: (err?: Error) => void): void {
    this.drain();
    this.writer.flush(cb);
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
  // The lines reach the writer gathered (LineBuffer), at least LOG_BUFFER_BYTES code units — so at least as
  // many bytes — at a time except at a flush: each such string starts a write, and flush(cb) waits for them.
  const stream = new LineBuffer(destination({ dest: fd, sync: false, minLength: LOG_BUFFER_BYTES }));
  opened.set(dest, stream);
  const timer = setInterval(() => stream.flush(), LOG_FLUSH_MS);
  timer.unref();
  process.once('exit', () => {
    clearInterval(timer);
    stream.flushSync();
  });
  return stream;
}
