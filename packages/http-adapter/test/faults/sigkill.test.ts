/**
 * SIGKILL loops: a server process is killed with SIGKILL while purchases and catalog changes stream in,
 * and restarted at once on the same data directory (the data-directory lock is released by the
 * kernel, so the restart never finds it held). After every round: each acknowledged order and product
 * is there, the server is ready, and it keeps answering.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, SITE_A } from '../helpers.js';
import { catalogRefIds, putProducts, readiness, sendPurchase, startChild, unrecordedOrders, type ChildServer, whenReady } from './fault-env.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-faults-kill-'));
const running = new Set<ChildServer>();
afterAll(() => {
  for (const s of running) s.child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

const ROUNDS = 3;

describe('SIGKILL during purchases and catalog changes', () => {
  it('keeps every acknowledged order and product across kill -9 and immediate restarts', async () => {
    const engineOptions = { dataDir: tmp, workers: 0, websites: [SITE_A], adminTokens: [ADMIN_TOKEN] };
    const orders = new Map<string, string>();
    const products = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startChild(engineOptions);
      running.add(server);
      await whenReady(server.url);
      let stop = false;
      const purchases = (async () => {
        for (let i = 0; !stop; i++) {
          const orderId = `r${round}-o${i}`;
          const sent = await Promise.all([0, 1, 2, 3].map((k) => sendPurchase(server.url, `${orderId}-${k}`)));
          sent.forEach((s, k) => { if (s.status === 202) orders.set(`${orderId}-${k}`, s.transactionId!); });
          if (sent.some((s) => s.status === 0)) return;
        }
      })();
      const catalog = (async () => {
        for (let i = 0; !stop; i++) {
          const batch = Array.from({ length: 5 }, (_, k) => ({ refId: `r${round}-b${i}-${k}`, title: `kill test ${i}`, price: k + 1 }));
          const status = await putProducts(server.url, batch);
          if (status === 200) for (const p of batch) products.add(p.refId);
          if (status === 0) return;
        }
      })();
      // Let both streams run, then kill without any warning and restart at once (next round).
      await new Promise((resolve) => setTimeout(resolve, 300 + round * 150));
      server.child.kill('SIGKILL');
      stop = true;
      await Promise.all([purchases, catalog]);
      running.delete(server);
    }
    const last = await startChild(engineOptions);
    running.add(last);
    await whenReady(last.url);
    expect(await readiness(last.url)).toEqual({ status: 200, reasons: [] });
    expect(orders.size).toBeGreaterThan(0);
    expect(products.size).toBeGreaterThan(0);
    expect(await unrecordedOrders(last.url, orders)).toEqual([]);
    const catalogNow = await catalogRefIds(last.url);
    expect([...products].filter((refId) => !catalogNow.has(refId))).toEqual([]);
    last.child.kill('SIGTERM');
    await last.exited;
    running.delete(last);
  });
});
