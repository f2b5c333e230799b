/**
 * CPU per request log line (the adapter's line: request id, method, route, status, ms) through pino
 * into a file, for two destinations in alternation, in one process: the adapter's `logDestination`
 * (lines gathered until 8 KiB, then one string to pino's writer) and pino's writer buffering the lines
 * itself (`pino.destination({ minLength: 8 KiB })`, what `logDestination` was before decision 0052).
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
import { destination, pino, type Logger } from 'pino';
import { option } from '../cli-option.js';

const lines = Number(option('lines', '300000'));
const rounds = Number(option('rounds', '4'));
/** Lines between two turns of the event loop (a busy server answers a few dozen requests a turn). */
const every = Number(option('every', '20'));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aisle-log-line-cost-'));
  const writerBuffered = destination({ dest: openSync(join(dir, 'writer-buffered.log'), 'a'), sync: false, minLength: LOG_BUFFER_BYTES });
  const gathered = logDestination(join(dir, 'gathered.log'));
  const loggers: [string, Logger][] = [
    ['pino writer buffering 8 KiB itself', pino({ name: 'aisle' }, writerBuffered)],
    ['logDestination (lines gathered)', pino({ name: 'aisle' }, gathered)],
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
    gathered.flushSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
