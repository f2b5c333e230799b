/**
 * `createServer`: an HTTP server around the listener, with limits on headers and request time, and a
 * graceful shutdown: stop accepting, let in-flight requests finish (responses then carry
 * `Connection: close`), close idle keep-alive connections, then close the engine.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine, type Engine, type EngineOptions } from '@aisle/engine';
import { pino, type Logger } from 'pino';
import { createListener, type AisleListener, type ListenerOptions } from './listener.js';
import { aisleLoggerOptions, logDestination } from './log-destination.js';
import { HttpMetrics } from './metrics.js';

/** Options of {@link createServer}. */
export interface ServerOptions extends Omit<ListenerOptions, 'logger' | 'adminTokens'> {
  /** An engine to serve; when absent one is created from `engineOptions`. */
  engine?: Engine;
  /** Options of `createEngine` (also the source of `adminTokens`). */
  engineOptions?: EngineOptions;
  /** Admin tokens (default: `engineOptions.adminTokens`). */
  adminTokens?: readonly string[];
  /** Port (default 8080; 0 picks a free one). */
  port?: number;
  /** Host (default 127.0.0.1: only this machine; 0.0.0.0 accepts connections from others). */
  host?: string;
  /** pino logger; default a JSON logger on stdout at level info (buffered: {@link logDestination}); `false` disables logs. */
  logger?: Logger | false;
  /** Maximum size of the request headers in bytes (default 16 KiB; larger → 431). */
  maxHeaderSize?: number;
  /** Time to receive the whole request (default 60 s; → 408). */
  requestTimeoutMs?: number;
  /** Time to receive the headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Idle keep-alive time (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** After this long, connections still open at shutdown are cut (default 10 s). */
  shutdownTimeoutMs?: number;
  /**
   * After the connections are closed, how long the engine may take to close (default 60 s). Past it,
   * `close()` rejects saying so (on a signal: logged, exit code 1) rather than waiting for ever on a
   * store that does not answer; acknowledged writes are stored already.
   */
  engineCloseTimeoutMs?: number;
  /**
   * Shut down gracefully on SIGTERM, SIGINT and SIGHUP (default false; the CLI turns it on). SIGHUP too:
   * closing the terminal or the SSH session `aisle serve` runs in sends it, and Node's default for it
   * ended the process at once, without the snapshot and the checkpoint of a shutdown.
   */
  handleSignals?: boolean;
  /** Close the engine on shutdown (default true). */
  closeEngine?: boolean;
}

/** A running server. */
export interface AisleServer {
  readonly server: http.Server;
  readonly listener: AisleListener;
  readonly engine: Engine;
  /** `http://host:port` (127.0.0.1 when bound to all interfaces). */
  readonly url: string;
  readonly port: number;
  /** Graceful shutdown; resolves when the server and the engine are closed. Idempotent. */
  close(): Promise<void>;
}

/** How often Node checks connections against the header and request timeouts. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * Default of {@link ServerOptions.engineCloseTimeoutMs}: with the 10 s of connections, a shutdown ends
 * within 70 s. Not less: a 1M-product catalog's snapshot written at shutdown takes seconds of CPU, tens
 * of them on a loaded machine, and cutting it only makes the next start replay more.
 */
const ENGINE_CLOSE_TIMEOUT_MS = 60_000;

/**
 * Closes the engine, or rejects after `timeoutMs`. A PostgreSQL that stopped answering (packets dropped,
 * not refused) held a poll, the search log's flush and the pool's end for ever, so SIGTERM never ended
 * the process. What is lost by giving up: the pending search counts and the models' checkpoint (the
 * next start replays the events after the previous one); acknowledged writes are stored already.
 */
async function closeWithin(engine: Engine, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the engine did not close within ${timeoutMs} ms (does the store answer?); `
      + 'acknowledged writes are stored, and the next start replays the events after the last checkpoint')), timeoutMs);
  });
  try {
    await Promise.race([engine.close(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The signals of a graceful shutdown (see {@link ServerOptions.handleSignals}); a second one ends the process at once. */
const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Creates the engine (unless given), the listener and the server, and starts listening. */
export async function createServer(options: ServerOptions = {}): Promise<AisleServer> {
  const logger = options.logger === false ? undefined : options.logger ?? pino(aisleLoggerOptions(), logDestination());
  // The engine logs its background failures (snapshot writes, replica polls, …) through the same logger.
  const engine = options.engine ?? await createEngine({ ...options.engineOptions, ...(logger && { logger: logger.child({ component: 'engine' }) }) });
  const listener = createListener(engine, {
    ...options,
    metrics: options.metrics ?? new HttpMetrics({ defaultMetrics: true }),
    adminTokens: options.adminTokens ?? options.engineOptions?.adminTokens ?? [],
    dashboard: options.dashboard ?? options.engineOptions?.dashboard ?? true,
    logger: logger ?? false,
  });
  // Node checks the header and request timeouts only every connectionsCheckingInterval (30 s by
  // default), so a 10 s header timeout fired after up to 40 s; checking every second keeps them true.
  const server = http.createServer({ maxHeaderSize: options.maxHeaderSize ?? 16 * 1024, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, listener);
  server.requestTimeout = options.requestTimeoutMs ?? 60_000;
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    logger?.info({ signal }, 'shutting down');
    void close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger?.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (options.handleSignals) {
        for (const signal of SHUTDOWN_SIGNALS) process.off(signal, onSignal);
      }
      listener.beginShutdown();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), options.shutdownTimeoutMs ?? 10_000);
      force.unref();
      await serverClosed;
      clearTimeout(force);
      if (options.closeEngine ?? true) await closeWithin(engine, options.engineCloseTimeoutMs ?? ENGINE_CLOSE_TIMEOUT_MS);
      logger?.info('stopped');
    })();
    return closing;
  };
  if (options.handleSignals) {
    for (const signal of SHUTDOWN_SIGNALS) process.once(signal, onSignal);
  }
  return { server, listener, engine, url, port: address.port, close };
}
