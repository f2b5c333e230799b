/**
 * The main thread's CPU per `GET …/PopularItems?count=3` through the adapter's listener, in one process
 * and without the kernel: the real listener (request log on, metrics on) over a real engine (generated
 * catalog, replayed interactions, embedded store in a data directory), each request a node:http
 * `IncomingMessage` / `ServerResponse` pair on a socket that counts and drops what is written. What the
 * HTTP runs cannot separate — the adapter's and the engine's work from the loopback socket's system
 * calls and from the load generator sharing the cores — shows here as CPU of the main thread (read from
 * /proc) and of all threads (`process.cpuUsage`: the store's worker and V8's helpers too).
 *
 * Run under `node --cpu-prof` for where the time goes; `--heap` prints the bytes allocated per request
 * by the allocating function instead (V8's sampling heap profiler, collected objects counted).
 *
 * With `--a <tree>` (another worktree, installed and built) that tree's engine and listener are set up in the
 * same process beside this tree's, and the rounds alternate between them, the order turning every round:
 * an A/B of the main thread's CPU per request without a second process's speed in it.
 *
 * Run: `node packages/bench/dist/http/listener-cost.js [--products 20000] [--calls 100000] [--rounds 3] [--heap] [--a <tree>]`
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { generateInteractions } from '@aisle/engine/demo';
import * as thisAdapter from '@aisle/http-adapter';
import { pino } from 'pino';
import { option } from '../cli-option.js';
import { loadDataset } from '../datasets.js';
import * as thisPeer from '../peers/aisle.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import { threadCpuOf } from './thread-cpu.js';

const products = Number(option('products', '20000'));
const calls = Number(option('calls', '100000'));
const rounds = Number(option('rounds', '3'));
const heap = process.argv.includes('--heap');
/** Another tree (a worktree of main, installed and built): its listener is measured in the same rounds (A), beside this tree's (B). */
const treeA = option('a', '');

/** A socket that takes every write at once (bytes counted, nothing sent): node:http's side without the kernel's. */
class CountingSocket extends Duplex {
  bytes = 0;
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    done();
  }
  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    for (const { chunk } of chunks) this.bytes += chunk.length;
    done();
  }
  override _read(): void {}
  setTimeout(): this { return this; }
  setNoDelay(): this { return this; }
  setKeepAlive(): this { return this; }
}

/** Bytes allocated per call of `run` (repeated `n` times) by allocating function, largest first. */
async function allocations(n: number, run: () => Promise<void>): Promise<{ perCall: number; top: [string, number][] }> {
  interface HeapNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapNode[] }
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let i = 0; i < n; i++) await run();
  const { profile } = await session.post('HeapProfiler.stopSampling') as { profile: { head: HeapNode } };
  session.disconnect();
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} (${url.split('/').pop()}:${lineNumber + 1})`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return { perCall: total / n, top: [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => [k, v / n]) };
}

/** One tree's engine and listener, and a request through it. */
interface Side {
  label: string;
  /** What the responses wrote (bytes counted, nothing sent). */
  socket: CountingSocket;
  request: () => Promise<void>;
  close: () => Promise<void>;
}

/** The modules a side is made of: this tree's, or those of the tree at `--a`. */
interface SideModules {
  adapter: Pick<typeof thisAdapter, 'createListener' | 'HttpMetrics' | 'logDestination'>;
  peer: Pick<typeof thisPeer, 'startAisle'>;
}

async function modulesOf(tree: string): Promise<SideModules> {
  const at = (path: string) => pathToFileURL(join(tree, path)).href;
  return {
    adapter: await import(at('packages/http-adapter/dist/index.js')) as SideModules['adapter'],
    peer: await import(at('packages/bench/dist/peers/aisle.js')) as SideModules['peer'],
  };
}

async function startSide(label: string, modules: SideModules, catalog: Awaited<ReturnType<typeof loadDataset>>, dataDir: string): Promise<Side> {
  const { createListener, HttpMetrics, logDestination } = modules.adapter;
  const engine = await modules.peer.startAisle(catalog, undefined, { dataDir });
  const { views, purchases } = generateInteractions({ products: catalog, sessions: Math.min(20_000, Math.floor(products / 5)), seed: 7, now: Date.now() });
  for (const body of views) await engine.recordViews(BENCH_WEBSITE.websiteId, body);
  for (const body of purchases) await engine.recordPurchases(BENCH_WEBSITE.websiteId, body);
  // As the HTTP runs serve: request logs on, through the adapter's buffered destination into a file; metrics on.
  const logs = logDestination(join(dataDir, 'requests.log'));
  const listener = createListener(engine, { logger: pino({ name: 'aisle' }, logs), metrics: new HttpMetrics({ defaultMetrics: true }), dashboard: false });
  const socket = new CountingSocket();
  const path = `/1.0/ClientRecom/${BENCH_WEBSITE.websiteId}/PopularItems?count=3`;
  const request = (): Promise<void> => new Promise((resolve) => {
    const req = new IncomingMessage(socket as unknown as Socket);
    req.method = 'GET';
    req.url = path;
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.httpVersion = '1.1';
    req.headers = { host: '127.0.0.1', 'user-agent': 'autocannon', accept: '*/*' };
    req.complete = true;
    req.push(null);
    const res = new ServerResponse(req);
    res.assignSocket(socket as unknown as Socket);
    res.on('finish', () => {
      res.detachSocket(socket as unknown as Socket);
      resolve();
    });
    listener(req, res);
  });
  return {
    label, socket, request,
    close: async () => {
      logs.flushSync();
      await engine.close();
    },
  };
}

async function main(): Promise<void> {
  const catalog = await loadDataset({ kind: 'generated', count: products, seed: 1 });
  const dataDirs: string[] = [];
  const sides: Side[] = [];
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1200));
  try {
    const dirOf = () => { const dir = mkdtempSync(join(tmpdir(), 'aisle-listener-cost-')); dataDirs.push(dir); return dir; };
    sides.push(await startSide(treeA ? 'B (this tree)' : 'aisle', { adapter: thisAdapter, peer: thisPeer }, catalog, dirOf()));
    if (treeA) sides.push(await startSide(`A (${treeA})`, await modulesOf(treeA), catalog, dirOf()));
    // Warm-up: the JIT, the engine's memos, a first store write.
    for (const side of sides) for (let i = 0; i < 20_000; i++) await side.request();
    await settle();
    if (heap) {
      for (const side of sides) {
        const { perCall, top } = await allocations(20_000, side.request);
        console.log(`${side.label}: ${perCall.toFixed(0)} bytes allocated per request; by function:`);
        for (const [name, bytes] of top) console.log(`${bytes.toFixed(0).padStart(7)}  ${name}`);
      }
      return;
    }
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + round) % sides.length]!;
        const threads0 = threadCpuOf(process.pid);
        const all0 = process.cpuUsage();
        side.socket.bytes = 0;
        for (let i = 0; i < calls; i++) await side.request();
        // The kept lists and the analytics batch reach the store's worker within a second: their cost counts.
        await settle();
        const threads = threadCpuOf(process.pid);
        const all = process.cpuUsage(all0);
        const mainUs = (threads.main ?? 0) - (threads0.main ?? 0);
        // The busiest other thread: the store's worker of the side measured (the other side's is idle).
        const busiestUs = Math.max(0, ...Object.keys(threads).filter((t) => t !== 'main').map((t) => threads[t]! - (threads0[t] ?? 0)));
        console.log(`round ${round + 1} ${side.label} (load ${loadavg()[0]!.toFixed(1)}): main thread ${(mainUs / calls).toFixed(2)} µs/request, busiest other thread ${(busiestUs / calls).toFixed(2)}, `
          + `all threads ${((all.user + all.system) / calls).toFixed(2)} µs/request, ${Math.round(side.socket.bytes / calls)} bytes written/request`);
      }
    }
  } finally {
    for (const side of sides) await side.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
