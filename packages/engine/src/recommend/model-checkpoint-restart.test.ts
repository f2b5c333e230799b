/**
 * Restarts with model checkpoints (embedded store, real SQLite in a data directory): the models after a
 * restart from a checkpoint plus the events stored after it answer exactly as the models of a full
 * replay of every stored event; a checkpoint that does not fit the store is reported and not used.
 */
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BackgroundFailure } from '../background-failures.js';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { checkpointTestProducts as products, checkpointTestSite as site, checkpointTestTraffic, everyMethodAnswers } from './__tests__/checkpoint-traffic.js';
import { modelCheckpointPath } from './model-checkpoint.js';

const dirs: string[] = [];
const open: Engine[] = [];
afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const { views, purchases } = checkpointTestTraffic;

/** The `fromCheckpoints` of each start's "stored events replayed" log line. */
const replayedFrom: Record<string, number>[] = [];
const logger = {
  error: () => undefined, warn: () => undefined,
  info: (details: object) => { if ('fromCheckpoints' in details) replayedFrom.push(details.fromCheckpoints as Record<string, number>); },
};

async function start(dataDir: string, onError?: (err: unknown, failure: BackgroundFailure) => void): Promise<Engine> {
  const engine = await createEngine({ dataDir, workers: 0, websites: [site], onError, logger });
  open.push(engine);
  // Recommendations wait for the replay of the stored events.
  await engine.recommend('site-a', 'PopularItems', {});
  return engine;
}

async function record(engine: Engine, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    if (i < views.length) await engine.recordViews('site-a', views[i]!);
    if (i < purchases.length) await engine.recordPurchases('site-a', purchases[i]!);
  }
}

/** A recommendation answer without its queryId (unique per response), for comparing two engines' answers. */
async function listOf(answer: Promise<Awaited<ReturnType<Engine['recommend']>>>): Promise<unknown> {
  const { queryId: _id, ...list } = await answer;
  return list;
}

const answers = (engine: Engine) => everyMethodAnswers(engine);

describe('model checkpoints across restarts', () => {
  it('restart from a checkpoint plus the later events as a full replay does', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-checkpoint-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    await first.upsertProducts('site-a', products);
    await first.close();
    // The catalog is now loaded before the models at every start: item ids are numbered alike.
    const second = await start(dataDir);
    const half = Math.floor(Math.max(views.length, purchases.length) / 2);
    await record(second, 0, half);
    // Closing writes the checkpoint.
    await second.close();
    const third = await start(dataDir);
    await record(third, half, Math.max(views.length, purchases.length));
    // No close: a crash. The checkpoint holds only the first half.
    const fromCheckpoint = await start(dataDir);
    expect(replayedFrom.at(-1)!['site-a']).toBeGreaterThan(0);
    const expected = await answers(fromCheckpoint);
    // The same data directory without the checkpoint: every stored event replayed.
    await rename(modelCheckpointPath(dataDir, 'site-a'), `${modelCheckpointPath(dataDir, 'site-a')}.aside`);
    const fullReplay = await start(dataDir);
    expect(replayedFrom.at(-1)).toEqual({});
    expect(await answers(fullReplay)).toEqual(expected);
    expect(expected.some((a) => (a as { payload: string[] }).payload.length > 0)).toBe(true);
  });

  it('does not use a checkpoint holding events the store does not have', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-checkpoint-'));
    const otherDir = await mkdtemp(path.join(tmpdir(), 'aisle-checkpoint-'));
    dirs.push(dataDir, otherDir);
    const engine = await start(dataDir);
    await engine.upsertProducts('site-a', products);
    await record(engine, 0, 40);
    await engine.close();
    // A store replaced by an empty one (another data directory's), the checkpoint kept.
    const other = await start(otherDir);
    await other.close();
    await rm(path.join(dataDir, 'aisle.sqlite'));
    await rename(path.join(otherDir, 'aisle.sqlite'), path.join(dataDir, 'aisle.sqlite'));
    const failures: { task: string; message: string }[] = [];
    const restarted = await start(dataDir, (err, failure) => failures.push({ task: failure.task, message: (err as Error).message }));
    expect(failures).toEqual([{ task: 'model-checkpoint', message: expect.stringMatching(/not used .*holds events up to \d+, the store only up to 0/) as unknown as string }]);
    expect((await restarted.recommend('site-a', 'PopularItems', {})).payload).toEqual([]);
  });

  it('replays each website from its own checkpoint, in full for one without', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-checkpoint-'));
    dirs.push(dataDir);
    const siteB = { websiteId: 'site-b', client: 'client-b', tokens: ['token-b'], hmacSecret: 'secret-b' };
    const open2 = async (): Promise<Engine> => {
      const engine = await createEngine({ dataDir, workers: 0, websites: [site, siteB], logger });
      open.push(engine);
      await engine.recommend('site-a', 'PopularItems', {});
      return engine;
    };
    const both = async (engine: Engine, from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        if (i < views.length) for (const id of ['site-a', 'site-b']) await engine.recordViews(id, views[i]!);
        if (i < purchases.length) for (const id of ['site-a', 'site-b']) await engine.recordPurchases(id, purchases[i]!);
      }
    };
    const popular = async (engine: Engine): Promise<unknown[]> => [
      await listOf(engine.recommend('site-a', 'PopularItems', { count: 20 })), await listOf(engine.recommend('site-b', 'PopularItems', { count: 20 })),
      await listOf(engine.recommend('site-a', 'ViewedTogether', { productRef: products[5]!.refId })),
      await listOf(engine.recommend('site-b', 'ViewedTogether', { productRef: products[5]!.refId })),
    ];
    const first = await open2();
    for (const id of ['site-a', 'site-b']) await first.upsertProducts(id, products);
    await first.close();
    const second = await open2();
    await both(second, 0, 60);
    await second.close();
    // site-b's checkpoint lost; more events for both after the checkpoints.
    await rm(modelCheckpointPath(dataDir, 'site-b'));
    const third = await open2();
    expect(replayedFrom.at(-1)).toEqual({ 'site-a': expect.any(Number) as unknown as number });
    await both(third, 60, 120);
    const fourth = await open2();
    const expected = await popular(fourth);
    await rename(modelCheckpointPath(dataDir, 'site-a'), `${modelCheckpointPath(dataDir, 'site-a')}.aside`);
    const fullReplay = await open2();
    expect(replayedFrom.at(-1)).toEqual({});
    expect(await popular(fullReplay)).toEqual(expected);
    expect((expected[1] as { payload: string[] }).payload.length).toBeGreaterThan(0);
  });
});
