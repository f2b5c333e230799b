/**
 * The server side of the HTTP load runs, in its own process: either aisle (`createServer` from the
 * HTTP adapter around a real engine with a generated catalog and replayed interactions, embedded store
 * in a temporary data directory) or a bare node:http hello-world. It reports its URL, serves until
 * told to stop, then reports its memory.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from '../datasets.js';
import { generateInteractions } from '@aisle/engine/demo';
import { createServer, logDestination } from '@aisle/http-adapter';
import { pino } from 'pino';
import { BENCH_WEBSITE, startAisle } from '../peers/aisle.js';

export interface ServerChildInput {
  kind: 'aisle' | 'hello';
  products: number;
  sessions: number;
  workers?: number;
}

export type ServerChildMessage =
  | { type: 'ready'; url: string; setupMs: number; sample: { refIds: string[] } }
  | { type: 'usage'; usage: ServerUsage }
  | { type: 'stopped'; rssBytes: number }
  | { type: 'error'; error: string };

/**
 * What the server process has spent so far: CPU of the whole process (user + system, all threads) and
 * the time inside the engine's search and recommend calls (these run on the calling thread for the
 * catalogs benchmarked here, so their wall time is their CPU), with their number.
 */
export interface ServerUsage { cpuUs: number; engineUs: number; engineCalls: number }

const engineTime = { us: 0, calls: 0 };

/** Wraps the engine's request methods so their time is counted in {@link engineTime}. */
function countEngineTime(engine: Record<string, unknown>, methods: string[]): void {
  for (const name of methods) {
    const inner = (engine[name] as (...args: unknown[]) => Promise<unknown>).bind(engine);
    engine[name] = async (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return await inner(...args);
      } finally {
        engineTime.us += (performance.now() - t0) * 1000;
        engineTime.calls++;
      }
    };
  }
}

async function start(input: ServerChildInput): Promise<{ url: string; close(): Promise<void>; refIds: string[] }> {
  if (input.kind === 'hello') {
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello world');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    return { url: `http://127.0.0.1:${port}`, refIds: [], close: () => new Promise((r) => server.close(() => r())) };
  }
  const products = await loadDataset({ kind: 'generated', count: input.products, seed: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'aisle-http-bench-'));
  const engine = await startAisle(products, input.workers, { dataDir });
  const { views, purchases } = generateInteractions({ products, sessions: input.sessions, seed: 7, now: Date.now() });
  for (const body of views) await engine.recordViews(BENCH_WEBSITE.websiteId, body);
  for (const body of purchases) await engine.recordPurchases(BENCH_WEBSITE.websiteId, body);
  countEngineTime(engine as unknown as Record<string, unknown>, ['search', 'recommend']);
  // Request logs on, as `aisle serve` runs: one pino line per request, through the adapter's buffered
  // destination, into a file (not the bench's console).
  const logs = logDestination(join(dataDir, 'requests.log'));
  const server = await createServer({ engine, port: 0, host: '127.0.0.1', logger: pino({ name: 'aisle' }, logs) });
  // The most viewed products, for recommendation requests that have an answer.
  const refIds = products.slice(0, 2000).map((p) => p.refId);
  return {
    url: server.url,
    refIds,
    close: async () => {
      await server.close();
      logs.flushSync();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

process.once('message', (input: ServerChildInput) => {
  const t0 = performance.now();
  start(input).then((running) => {
    process.send!({ type: 'ready', url: running.url, setupMs: performance.now() - t0, sample: { refIds: running.refIds } } satisfies ServerChildMessage);
    const usage = (): void => {
      const cpu = process.cpuUsage();
      process.send!({ type: 'usage', usage: { cpuUs: cpu.user + cpu.system, engineUs: engineTime.us, engineCalls: engineTime.calls } } satisfies ServerChildMessage);
    };
    process.on('message', (m: unknown) => {
      if (m === 'usage') { usage(); return; }
      const rssBytes = process.memoryUsage().rss;
      running.close().finally(() => process.send!({ type: 'stopped', rssBytes } satisfies ServerChildMessage, () => process.exit(0)));
    });
  }, (err: unknown) => {
    process.send!({ type: 'error', error: err instanceof Error ? err.stack ?? err.message : String(err) } satisfies ServerChildMessage, () => process.exit(1));
  });
});
