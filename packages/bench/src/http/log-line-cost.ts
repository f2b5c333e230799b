/**
 * CPU per request log line (the adapter's line: request id, method, route, status, ms) through pino
 * into a file, for three destinations in alternation, in one process: the adapter's `logDestination`
 * (each line encoded into a 64 KiB buffer, whole buffers to pino's writer: decision 0094), the lines
 * gathered as strings until 8 KiB and handed to pino's writer joined (what `logDestination` was from
 * decision 0052 to 0094), and pino's writer buffering the lines itself (`pino.destination({ minLength:
 * 8 KiB })`, before decision 0052).
 * The event loop turns every `--every` lines (default 20, as a busy server answering a few dozen requests a
 * turn), so the asynchronous writes complete between lines as under load.
 *
 * Run: `node packages/bench/dist/http/log-line-cost.js [--lines 300000] [--rounds 4] [--every 20]`
 * @module
 */
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_BUFFER_BYTES, logDestination } from '@aisle/http-adapter';
import { destination, pino, type DestinationStream, type Logger } from 'pino';
import { option } from '../cli-option.js';

const lines = Number(option('lines', '300000'));
const rounds = Number(option('rounds', '4'));
/** Lines between two turns of the event loop (a busy server answers a few dozen requests a turn). */
const every = Number(option('every', '20'));

/** Decision 0052's destination, kept here for comparison: lines gathered as strings, handed to the writer joined at 8 KiB. */
class JoinedLines implements DestinationStream {
  private lines: string[] = [];
  private size = 0;
  constructor(readonly writer: ReturnType<typeof destination>) {}
  write(line: string): void {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= 8 * 1024) this.drain();
  }
  drain(): void {
    this.writer.write(this.lines.join(''));
    this.lines = [];
    this.size = 0;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aisle-log-line-cost-'));
  const writerBuffered = destination({ dest: openSync(join(dir, 'writer-buffered.log'), 'a'), sync: false, minLength: 8 * 1024 });
  const joined = new JoinedLines(destination({ dest: openSync(join(dir, 'joined.log'), 'a'), sync: false, minLength: 8 * 1024 }));
  const gathered = logDestination(join(dir, 'gathered.log'));
  const loggers: [string, Logger][] = [
    ['pino writer buffering 8 KiB itself', pino({ name: 'aisle' }, writerBuffered)],
    ['8 KiB of strings joined (0052)', pino({ name: 'aisle' }, joined)],
    [`logDestination (${LOG_BUFFER_BYTES / 1024} KiB encoded)`, pino({ name: 'aisle' }, gathered)],
  ];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, logger] of loggers) {
        const t0 = process.cpuUsage();
        for (let i = 0; i < lines; i++) {
          logger.info({ reqId: 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6', method: 'GET', route: '/1.0/ClientRecom/{website_id}/PopularItems', status: 200, ms: 0.123 }, 'request');
          if (i % every === every - 1) await new Promise((resolve) => setImmediate(resolve));
        }
        const t = process.cpuUsage(t0);
        console.log(`round ${round + 1} (load ${loadavg()[0]!.toFixed(1)}): ${name.padEnd(36)} ${((t.user + t.system) / lines).toFixed(2)} µs CPU/line (all threads)`);
      }
    }
  } finally {
    writerBuffered.flushSync();
    joined.drain();
    joined.writer.flushSync();
    gathered.flushSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
