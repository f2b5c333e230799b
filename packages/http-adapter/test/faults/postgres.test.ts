/**
 * PostgreSQL refusing and dropping connections: the engine reaches the server through a TCP proxy
 * in this test, which is cut (connections refused) and restored, and whose server-side sessions are
 * ended with pg_terminate_backend. Purchases answer 503 while the store is unreachable and leave no
 * trace; acknowledged ones are all there afterwards; `/readyz` names the store; the process stays up.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY_CACHE_TTL_MS } from '@aisle/engine';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, queryTestDb, requirePostgres } from '../../../engine/src/store/pg-test-env.js';
import { createServer } from '../../src/index.js';
import { ADMIN_TOKEN, SITE_A, bearer, post } from '../helpers.js';
import { eventually, orderCount, readiness, sendPurchase, unrecordedOrders, whenReady } from './fault-env.js';

/** A TCP proxy to the test server that can refuse new connections and cut the open ones. */
class CuttableProxy {
  private readonly sockets = new Set<net.Socket>();
  /** Local ports of the proxy's connections to PostgreSQL (= `client_port` in pg_stat_activity). */
  readonly upstreamPorts = new Set<number>();
  private server: net.Server | undefined;
  /** Stalled: nothing is forwarded either way and new connections hang (a network dropping packets). */
  private stalled = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      if (this.stalled) {
        this.sockets.add(client);
        client.on('close', () => this.sockets.delete(client));
        client.on('error', () => client.destroy());
        return;
      }
      const upstream = net.connect(this.target);
      upstream.on('connect', () => this.upstreamPorts.add(upstream.localPort!));
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Forwards nothing more: queries sent get no answer, connection attempts hang (until {@link cut}). */
  stall(): void {
    this.stalled = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  /** Refuses new connections (the port is closed) and drops every open one. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server!.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

const schemas = new TestSchemas();
beforeAll(requirePostgres);
afterAll(() => schemas.dropAll());

/** An open proxy to the test server and a store configuration (a schema of its own) that goes through it. */
async function proxiedStore(pollIntervalMs: number): Promise<{ proxy: CuttableProxy; store: { type: 'postgres'; url: string; schema: string; pollIntervalMs: number } }> {
  const target = new URL(TEST_PG_URL);
  const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.open();
  const viaProxy = new URL(TEST_PG_URL);
  viaProxy.port = String(proxy.port);
  return { proxy, store: { type: 'postgres', url: viaProxy.href, schema: schemas.next(), pollIntervalMs } };
}

describe('PostgreSQL refusing and terminating connections', () => {
  it('answers 503 with no trace while the store is unreachable, keeps every acknowledged order, and /readyz tells', async () => {
    const { proxy, store } = await proxiedStore(100);
    const server = await createServer({ engineOptions: { store, workers: 0, websites: [SITE_A], adminTokens: [ADMIN_TOKEN] }, port: 0, host: '127.0.0.1', logger: false });
    const orders = new Map<string, string>();
    const record = async (orderId: string) => {
      const sent = await sendPurchase(server.url, orderId);
      if (sent.status === 202) orders.set(orderId, sent.transactionId!);
      return sent.status;
    };
    try {
      for (let i = 0; i < 20; i++) expect(await record(`pg-before-${i}`)).toBe(202);
      await whenReady(server.url);
      const created = await post(`${server.url}/admin/v1/websites/site-a/keys`, { actions: ['search'] }, bearer(ADMIN_TOKEN));
      const { key } = (await created.json()) as { key: string };
      const searchWithKey = () => post(`${server.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 1 }, bearer(key));
      expect((await searchWithKey()).status).toBe(200);

      // Connections refused: every purchase is refused (nothing stored), readiness names the store.
      await proxy.cut();
      for (let i = 0; i < 10; i++) expect(await record(`pg-cut-${i}`)).toBe(503);
      const down = await readiness(server.url);
      expect(down.status).toBe(503);
      expect(down.reasons.join()).toMatch(/^store: the store is not reachable/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // Searches are served from memory, with a browser key this process resolved before too (it was a 503 once its
      // cached reading was a second old); a key never seen here cannot be checked (503).
      await sleep(KEY_CACHE_TTL_MS + 100); // the key's cached reading is out of date: it must be read again
      const keyed = await searchWithKey();
      expect([keyed.status, ((await keyed.json()) as { type: number }).type]).toEqual([200, 1]);
      const unseen = await post(`${server.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start: 0 }, bearer(`sk_${'A'.repeat(43)}`));
      expect(unseen.status).toBe(503);
      // The admin reads of the store say 503 STORE_FAILURE like its writes (stats and the attribution report were 500 "internal error").
      for (const path of ['stats', 'reports/attribution', 'reports/searches', 'keys']) {
        const res = await fetch(`${server.url}/admin/v1/websites/site-a/${path}`, { headers: bearer(ADMIN_TOKEN) });
        expect([path, res.status, ((await res.json()) as { errors: { $: string[] } }).errors.$[0]]).toEqual([path, 503, expect.stringMatching(/ECONNREFUSED/)]);
      }
      // Replica polling fails in the background: logged and counted, not silent.
      await eventually(async () => /aisle_background_failures_total\{task="replica-poll"\} [1-9]/.test(await (await fetch(`${server.url}/metrics`)).text()), 'a replica-poll failure counted', 30_000);

      // Back: ready again, purchases acknowledged again.
      await proxy.open();
      await whenReady(server.url);
      for (let i = 0; i < 20; i++) expect(await record(`pg-after-${i}`)).toBe(202);

      // Sessions ended by the server (pg_terminate_backend) between requests: a call may fail (503,
      // nothing stored), the pool reconnects, and acknowledged orders stay acknowledged.
      const ended = await queryTestDb('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [[...proxy.upstreamPorts]]);
      expect(ended.length).toBeGreaterThan(0);
      let refusedAfterTerminate = 0;
      for (let i = 0; i < 20; i++) {
        const status = await record(`pg-term-${i}`);
        expect([202, 503]).toContain(status);
        if (status === 503) refusedAfterTerminate++;
      }
      expect(refusedAfterTerminate).toBeLessThan(20);
      await whenReady(server.url);
      expect(await unrecordedOrders(server.url, orders)).toEqual([]);
      expect(await orderCount(server.url)).toBe(orders.size);
    } finally {
      await server.close();
      await proxy.cut();
    }
  });

  it('ends a shutdown whose store stopped answering, saying so', async () => {
    const { proxy, store } = await proxiedStore(50);
    const app = await createServer({ engineOptions: { store, workers: 0, websites: [SITE_A] }, port: 0, host: '127.0.0.1', logger: false, engineCloseTimeoutMs: 500 });
    try {
      await whenReady(app.url);
      // Polls under way now wait for answers that never come (closing waited for them for ever).
      proxy.stall();
      await eventually(async () => (await readiness(app.url)).status === 503, 'the store seen as not answering', 30_000);
      await expect(app.close()).rejects.toThrow(/^the engine did not close within 500 ms \(does the store answer\?\)/);
    } finally {
      // Cut: the held polls fail and the engine's close, still under way, ends.
      await proxy.cut();
      await app.engine.close();
    }
  });

  it('logs an outage once per polling task, and its end', async () => {
    const { proxy, store } = await proxiedStore(50);
    const lines: { level: number; task?: string; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as { level: number; task?: string; msg: string }); } });
    const server = await createServer({ engineOptions: { store, workers: 0, websites: [SITE_A], adminTokens: [ADMIN_TOKEN] }, port: 0, host: '127.0.0.1', logger });
    const errorsOf = (task: string) => lines.filter((l) => l.level === 50 && l.task === task).length;
    try {
      await whenReady(server.url);
      await proxy.cut();
      await eventually(async () => errorsOf('replica-poll') > 0 && errorsOf('settings-poll') > 0, 'the outage reported', 30_000);
      // Dozens of 50 ms polls fail meanwhile; each was an error line with its stack trace.
      await sleep(1500);
      // One line per polling task (replica-poll: the event poll, and the catalog log's reader and LISTEN connection, each once).
      for (const task of ['settings-poll', 'experiments', 'click-learning']) expect([task, errorsOf(task)]).toEqual([task, 1]);
      const replicaPolls = lines.filter((l) => l.level === 50 && l.task === 'replica-poll').map((l) => l.msg);
      expect(replicaPolls.length).toBeLessThanOrEqual(3);
      expect(new Set(replicaPolls).size).toBe(replicaPolls.length);
      expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(/aisle_background_failures_total\{task="settings-poll"\} 1\n/);

      await proxy.open();
      await whenReady(server.url);
      await eventually(async () => lines.some((l) => l.level === 30 && /^aisle: background settings-poll works again after \d+ failed attempts/.test(l.msg)), 'the end of the outage logged', 30_000);
    } finally {
      await server.close();
      await proxy.cut();
    }
  });
});
