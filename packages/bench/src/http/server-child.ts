/**
 * The server side of the HTTP load runs, in its own process: either aisle (`createServer` from the
 * HTTP adapter around a real engine with a generated catalog and replayed interactions, embedded store
 * in a temporary data directory), a bare node:http hello-world, or a bare node:http server sending one
 * captured answer (headers and body) to every request. Beside aisle, a bare node:http server
 * makes the same `engine.recommend` call on the same engine (no routing, auth, metrics or logs: what a
 * recommendation costs without the adapter). It reports its URLs, serves until told to stop, then
 * reports its memory.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from '../datasets.js';
import { generateInteractions } from '@aisle/engine/demo';
import { createServer, logDestination } from '@aisle/http-adapter';
import type { Engine, RecommendParams } from '@aisle/engine';
import { pino } from 'pino';
import { BENCH_WEBSITE, startAisle } from '../peers/aisle.js';

export interface ServerChildInput {
  /** `constant`: a bare node:http server sending {@link ServerChildInput.answer} to every request. */
  kind: 'aisle' | 'hello' | 'constant';
  products: number;
  sessions: number;
  workers?: number;
  /** The answer of a `constant` server: its headers (names in lower case) and body. */
  answer?: ConstantAnswer;
  /** A `constant` server's busy wait before each answer, µs: a stand-in for a server's own work of that much CPU. */
  spinUs?: number;
}

/** A response captured once (e.g. the adapter's), sent as it is to every request by a `constant` server. */
export interface ConstantAnswer { status: number; headers: Record<string, string>; body: string }

export type ServerChildMessage =
  | { type: 'ready'; url: string; bareRecommendUrl?: string; setupMs: number; sample: { refIds: string[] } }
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

/** Listens on a free loopback port; resolves with the URL. */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/**
 * `GET /1.0/ClientRecom/{website_id}/{method}?…` answered by a bare node:http handler: the query read
 * with URLSearchParams, the same `engine.recommend` call the adapter makes, JSON.stringify, written.
 * The floor an HTTP front of the engine cannot go below on this machine.
 */
function bareRecommendServer(engine: Engine): Server {
  return createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, , , websiteId = '', method = ''] = url.pathname.split('/');
    const q = url.searchParams;
    const params: RecommendParams = {};
    const customerId = q.get('customerId');
    if (customerId !== null) params.customerId = customerId;
    const productRef = q.get('productRef');
    if (productRef !== null) params.productRef = productRef;
    const count = q.get('count');
    if (count !== null) params.count = Number(count);
    if (q.has('filterOutOfStock')) params.filterOutOfStock = q.get('filterOutOfStock') === 'true';
    engine.recommend(decodeURIComponent(websiteId), method, params).then((answer) => {
      const body = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, (err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
}

async function start(input: ServerChildInput): Promise<{ url: string; bareRecommendUrl?: string; close(): Promise<void>; refIds: string[] }> {
  if (input.kind === 'hello') {
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello world');
    });
    return { url: await listen(server), refIds: [], close: () => closeServer(server) };
  }
  if (input.kind === 'constant') {
    // The same calls the adapter's reply makes (writeHead with an object, end with a string), with
    // nothing computed: what node:http and the socket cost for this answer's bytes.
    const { status, headers, body } = input.answer!;
    const spinNs = BigInt(Math.round((input.spinUs ?? 0) * 1000));
    const server = createHttpServer((_req, res) => {
      if (spinNs > 0n) {
        const until = process.hrtime.bigint() + spinNs;
        while (process.hrtime.bigint() < until) { /* the stand-in for work: CPU of the main thread, nothing allocated */ }
      }
      res.writeHead(status, headers);
      res.end(body);
    });
    return { url: await listen(server), refIds: [], close: () => closeServer(server) };
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
  const bare = bareRecommendServer(engine);
  // The most viewed products, for recommendation requests that have an answer.
  const refIds = products.slice(0, 2000).map((p) => p.refId);
  return {
    url: server.url,
    bareRecommendUrl: await listen(bare),
    refIds,
    close: async () => {
      await closeServer(bare);
      await server.close();
      logs.flushSync();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

process.once('message', (input: ServerChildInput) => {
  const t0 = performance.now();
  start(input).then((running) => {
    process.send!({ type: 'ready', url: running.url, ...(running.bareRecommendUrl && { bareRecommendUrl: running.bareRecommendUrl }), setupMs: performance.now() - t0, sample: { refIds: running.refIds } } satisfies ServerChildMessage);
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
