/**
 * A full disk: the data directory (catalog log and snapshots, embedded store) on a small tmpfs that
 * is filled up. Needs root to mount (CI runs as root); skipped with a message otherwise. Catalog
 * changes and purchases are acknowledged only when on disk, refused (503) otherwise with nothing
 * visible or replayed; `/readyz` says the disk is the problem; the process keeps serving.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type AisleServer } from '../../src/index.js';
import { ADMIN_TOKEN, SITE_A } from '../helpers.js';
import { catalogRefIds, orderCount, putProducts, readiness, sendPurchase, unrecordedOrders, whenReady } from './fault-env.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('full-disk fault tests skipped: mounting a small tmpfs needs root (CI runs as root)');

const dataDir = mkdtempSync(path.join(tmpdir(), 'aisle-faults-disk-'));
let mounted = false;
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', dataDir]);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<AisleServer> {
  return createServer({ engineOptions: { dataDir, workers: 0, websites: [SITE_A], adminTokens: [ADMIN_TOKEN] }, port: 0, host: '127.0.0.1', logger: false });
}

describe.skipIf(!isRoot)('a full disk', () => {
  it('acknowledges only what is on disk, refuses the rest without a trace, and /readyz says why', async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dataDir]);
    mounted = true;
    let server = await start();
    const products = new Set<string>();
    const refusedProducts = new Set<string>();
    const orders = new Map<string, string>();
    let refusedOrders = 0;
    await whenReady(server.url);
    // Leave about 160 kB free.
    const fs = await statfs(dataDir);
    const filler = path.join(dataDir, 'filler');
    writeFileSync(filler, Buffer.alloc(Math.max(0, fs.bavail * fs.bsize - 160 * 1024)));
    const notReady = await readiness(server.url);
    expect(notReady.status).toBe(503);
    expect(notReady.reasons.join()).toMatch(/disk: the data directory .* (bytes free|is not writable)/);
    for (let i = 0; i < 200 && (refusedProducts.size === 0 || refusedOrders === 0); i++) {
      const batch = Array.from({ length: 4 }, (_, k) => ({ refId: `d${i}-${k}`, title: `full disk ${'x'.repeat(400)}`, price: k + 1 }));
      const status = await putProducts(server.url, batch);
      expect([200, 503]).toContain(status);
      for (const p of batch) (status === 200 ? products : refusedProducts).add(p.refId);
      for (let k = 0; k < 4; k++) {
        const sent = await sendPurchase(server.url, `disk-${i}-${k}`);
        expect([202, 503]).toContain(sent.status);
        if (sent.status === 202) orders.set(`disk-${i}-${k}`, sent.transactionId!);
        else refusedOrders++;
      }
    }
    expect(refusedProducts.size).toBeGreaterThan(0);
    expect(refusedOrders).toBeGreaterThan(0);
    // Still serving: liveness, searches; refused products are not visible.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const live = await catalogRefIds(server.url);
    expect([...refusedProducts].filter((r) => live.has(r))).toEqual([]);
    expect([...products].filter((r) => !live.has(r))).toEqual([]);
    expect(await orderCount(server.url)).toBe(orders.size);
    // Space again: ready again; a restart replays exactly what was acknowledged.
    rmSync(filler);
    expect(await readiness(server.url)).toEqual({ status: 200, reasons: [] });
    await server.close();
    server = await start();
    const replayed = await catalogRefIds(server.url);
    expect([...products].filter((r) => !replayed.has(r))).toEqual([]);
    expect([...refusedProducts].filter((r) => replayed.has(r))).toEqual([]);
    expect(await orderCount(server.url)).toBe(orders.size);
    expect(await unrecordedOrders(server.url, orders)).toEqual([]);
    await server.close();
  });
});
