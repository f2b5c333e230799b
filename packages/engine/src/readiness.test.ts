import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BackgroundFailure } from './background-failures.js';
import { createEngine } from './engine.js';
import { combineChecks, runCheck } from './readiness.js';
import { backgroundRunning } from './catalog/build/time-slices.js';

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });
const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };

describe('readiness checks', () => {
  it('turns a throw or a hang into a failed check with its reason', async () => {
    expect(await runCheck('a', async () => undefined)).toEqual({ name: 'a', ok: true });
    expect(await runCheck('b', async () => { throw new Error('refused'); })).toEqual({ name: 'b', ok: false, reason: 'refused' });
    expect(combineChecks([{ name: 'a', ok: true }, { name: 'b', ok: false, reason: 'x' }]).ready).toBe(false);
  });

  it('is ready with a reachable store, a writable data directory and built indexes; not once closed', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-ready-'));
    dirs.push(dataDir);
    const engine = await createEngine({ dataDir, workers: 0, websites: [site] });
    await engine.upsertProducts('site-a', [{ refId: 'a', title: 'mug', brand: 'x' }]);
    // The stored events are replayed in the background after the start (see engine.test.ts).
    await engine.recommend('site-a', 'PopularItems', {});
    const readiness = await engine.readiness();
    expect(readiness).toEqual({
      ready: true, checks: [{ name: 'store', ok: true }, { name: 'disk', ok: true }, { name: 'recommendations', ok: true }, { name: 'events', ok: true }],
    });
    await engine.close();
    expect(await engine.readiness()).toMatchObject({ ready: false, checks: [{ name: 'engine', reason: 'the engine is closed' }] });
  });
});

describe('settled', () => {
  it('resolves once the background work of a load is done: indexes ready, no slice running; at once when closed', async () => {
    const engine = await createEngine({ workers: 0, websites: [site] });
    await engine.replaceProducts('site-a', Array.from({ length: 5_000 }, (_, i) => ({ refId: `p${i}`, title: `mug ${i % 97} blue`, brand: `b${i % 13}` })));
    await engine.recordPurchases('site-a', {
      customerId: '5a0e2c6c-9d4b-4c51-8a0e-2f1d3b4c5d6e', sessionId: '6b1f3d7d-0e5c-4d62-9b1f-3a2e4c5d6e7f',
      events: [{ currentUrl: 'https://shop.example/checkout', eventTime: '2026-11-20T10:00:00Z', orderId: 'o-1', products: [{ refId: 'p1', quantity: 1, price: 3 }, { refId: 'p2', quantity: 1, price: 4 }] }],
    });
    // The load's indexes are built in background slices after it returns.
    expect(engine.recommendationIndexesReady() && !backgroundRunning()).toBe(false);
    await engine.settled();
    expect(engine.recommendationIndexesReady()).toBe(true);
    expect(backgroundRunning()).toBe(false);
    expect((await engine.readiness()).ready).toBe(true);
    await engine.close();
    await engine.settled();
  });
});

describe('background failures', () => {
  it('logs, counts and hands on a snapshot write that fails (the change log keeps the change)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-bg-'));
    dirs.push(dataDir);
    const logged: { details: object; message?: string }[] = [];
    const hooked: BackgroundFailure[] = [];
    const logger = { error: (details: object, message?: string) => logged.push({ details, message }), warn: () => undefined, info: () => undefined };
    const engine = await createEngine({ dataDir, workers: 0, websites: [site], logger, onError: (_err, failure) => hooked.push(failure) });
    await engine.upsertProducts('site-a', [{ refId: 'a', title: 'mug' }]);
    // The snapshot's final name and its previous generation's are taken by directories: the renames fail.
    await mkdir(path.join(dataDir, 'catalogs', 'site-a.aislesnap', 'x'), { recursive: true });
    await mkdir(path.join(dataDir, 'catalogs', 'site-a.aislesnap.prev', 'x'), { recursive: true });
    await engine.close();
    expect(engine.backgroundFailures()['snapshot-write']).toBe(1);
    expect(hooked).toEqual([{ task: 'snapshot-write', websiteId: 'site-a' }]);
    expect(logged[0]!.message).toMatch(/^aisle: background snapshot-write failed: /);
    expect(logged[0]!.details).toMatchObject({ task: 'snapshot-write', websiteId: 'site-a' });
    // Nothing is lost: with the directory out of the way, a restart replays the change log.
    await rm(path.join(dataDir, 'catalogs', 'site-a.aislesnap'), { recursive: true });
    await rm(path.join(dataDir, 'catalogs', 'site-a.aislesnap.prev'), { recursive: true });
    const again = await createEngine({ dataDir, workers: 0, websites: [site] });
    expect((await again.search({ website_id: 'site-a', client: 'client-a', q: 'mug', start: 0, size: 10 })).payload.total_results).toBe(1);
    await again.close();
  });
});
