/**
 * The embedded store's worker thread: it owns the one better-sqlite3 connection and runs, one message
 * at a time and in arrival order, what {@link SqliteStore} asks (a whole group-commit batch per message,
 * coupon transitions, counts, reads), replying with the result or the error. The main thread's event
 * loop thus never waits for a transaction or its fsync.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDb, type SqliteMethod } from './sqlite-db.js';

/** `workerData` of the worker. */
export interface SqliteWorkerData {
  file: string;
}

/** A call of the main thread. */
export interface SqliteRequest {
  id: number;
  method: SqliteMethod;
  args: unknown[];
}

/** An error as it crosses the thread boundary (structured clone would drop `code`). */
export interface WireError {
  name: string;
  message: string;
  code?: unknown;
  stack?: string;
}

/** The answer to one {@link SqliteRequest}. */
export type SqliteReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

function toWire(err: unknown): WireError {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { name: err.name, message: err.message, ...(code !== undefined && { code }), ...(err.stack !== undefined && { stack: err.stack }) };
  }
  return { name: 'Error', message: String(err) };
}

if (parentPort !== null) {
  const port = parentPort;
  const db = SqliteDb.open((workerData as SqliteWorkerData).file);
  port.on('message', (req: SqliteRequest) => {
    let reply: SqliteReply;
    try {
      const method = db[req.method] as (...args: unknown[]) => unknown;
      reply = { id: req.id, ok: true, value: method.apply(db, req.args) };
    } catch (err) {
      reply = { id: req.id, ok: false, error: toWire(err) };
    }
    try {
      port.postMessage(reply);
    } catch (err) {
      // A result that cannot be cloned must still settle its call.
      port.postMessage({ id: req.id, ok: false, error: toWire(err) } satisfies SqliteReply);
    }
  });
}
