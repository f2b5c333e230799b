/**
 * Restarts from model checkpoints on both durable stores, with faults: the embedded store (checkpoint
 * files in the data directory) and PostgreSQL (checkpoints kept in the store, written by one replica,
 * read by any). Each start's answers are compared with a start that replays every stored event:
 * - after a replica's checkpoint and events stored later by another replica (PostgreSQL);
 * - after a kill -9 while a checkpoint is being written (a real child process);
 * - with a damaged checkpoint (reported, the events replayed in full);
 * - with a checkpoint whose events retention has since deleted (still used: what the models learned is kept).
 */
import { watch } from 'node:fs';
import { mkdtemp, open as openFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundFailure } from '../background-failures.js';
import { createEngine, type CreateEngineOptions } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { lineReader, spawnTs } from '../events/__tests__/child-process.js';
import { openStore } from '../store/open-store.js';
import { queryTestDb, requirePostgres, TEST_PG_URL, TestSchemas } from '../store/pg-test-env.js';
import { RETENTION_BATCH } from '../store/store.js';
import { checkpointTestProducts as products, checkpointTestSite as site, checkpointTestTraffic, everyMethodAnswers } from './__tests__/checkpoint-traffic.js';
import { modelCheckpointPath } from './model-checkpoint.js';

const { views, purchases } = checkpointTestTraffic;
const DAY_MS = 86_400_000;

/** One durable store as the tests drive it. */
interface StoreUnderTest {
  /** Engine options putting the engine on this store. */
  options(): Omit<CreateEngineOptions, 'websites'>;
  /** Moves the checkpoint away (the next start replays every stored event). */
  dropCheckpoint(): Promise<void>;
  /** Damages a byte in the middle of the checkpoint. */
  damageCheckpoint(): Promise<void>;
  /** The checkpoint's sequence number is there (some checkpoint was written). */
  hasCheckpoint(): Promise<boolean>;
  /** Resolves once a checkpoint write is seen under way (a temporary file, a transaction writing parts). */
  checkpointWriteSeen(): Promise<void>;
  /** The child process's arguments for this store. */
  childArgs(): string[];
  /** What a cut write may have left behind (temporary files; none for a transaction). */
  leftovers(): Promise<string[]>;
}

function embedded(dataDir: string): StoreUnderTest {
  const file = modelCheckpointPath(dataDir, site.websiteId);
  return {
    options: () => ({ dataDir }),
    dropCheckpoint: () => rename(file, `${file}.aside`),
    damageCheckpoint: async () => {
      const size = (await stat(file)).size;
      const handle = await openFile(file, 'r+');
      try {
        const at = Math.floor(size / 2);
        const byte = Buffer.alloc(1);
        await handle.read(byte, 0, 1, at);
        byte[0] = byte[0]! ^ 0xff;
        await handle.write(byte, 0, 1, at);
      } finally {
        await handle.close();
      }
    },
    hasCheckpoint: async () => (await readdir(path.dirname(file))).includes(path.basename(file)),
    // The durable write creates `<file>.<uuid>.tmp`, fills and flushes it, then renames it.
    checkpointWriteSeen: () => new Promise((resolve) => {
      const watcher = watch(path.dirname(file), (_event, name) => {
        if (name !== null && name.startsWith(`${path.basename(file)}.`) && name.endsWith('.tmp')) {
          watcher.close();
          resolve();
        }
      });
    }),
    childArgs: () => ['embedded', dataDir],
    leftovers: async () => (await readdir(path.dirname(file))).filter((name) => name.endsWith('.tmp')),
  };
}

function postgres(schema: string): StoreUnderTest {
  return {
    options: () => ({ store: { type: 'postgres', url: TEST_PG_URL, schema } }),
    dropCheckpoint: async () => { await queryTestDb(`DELETE FROM "${schema}".checkpoint_heads`); },
    damageCheckpoint: async () => {
      await queryTestDb(`UPDATE "${schema}".checkpoint_parts SET bytes = set_byte(bytes, length(bytes) / 2, 255 - get_byte(bytes, length(bytes) / 2))
        WHERE (name, generation, part) = (SELECT name, generation, 0 FROM "${schema}".checkpoint_heads)`);
    },
    hasCheckpoint: async () => (await queryTestDb(`SELECT 1 FROM "${schema}".checkpoint_heads`)).length > 0,
    // A writer's transaction is seen between its statements (or in one) in pg_stat_activity.
    checkpointWriteSeen: async () => {
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      try {
        for (;;) {
          const { rows } = await client.query(`SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')
            AND query LIKE $1`, [`%"${schema}".checkpoint_parts%`]);
          if (rows.length > 0) return;
        }
      } finally {
        await client.end();
      }
    },
    childArgs: () => ['postgres', TEST_PG_URL, schema],
    leftovers: async () => (await queryTestDb<{ name: string; generation: string }>(
      `SELECT p.name, p.generation FROM "${schema}".checkpoint_parts p LEFT JOIN "${schema}".checkpoint_heads h
       ON h.name = p.name AND h.generation = p.generation WHERE h.name IS NULL`)).map((r) => `${r.name}@${r.generation}`),
  };
}

const schemas = new TestSchemas();
const dirs: string[] = [];
const open: Engine[] = [];
let pgReachable = true;
beforeAll(async () => {
  await requirePostgres().catch(() => { pgReachable = false; });
});
afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
afterAll(() => schemas.dropAll());

/** The `fromCheckpoints` of each start's "stored events replayed" log line, newest last. */
const replayedFrom: Record<string, number>[] = [];
const logger = {
  error: () => undefined, warn: () => undefined,
  info: (details: object) => { if ('fromCheckpoints' in details) replayedFrom.push(details.fromCheckpoints as Record<string, number>); },
};

async function start(store: StoreUnderTest, failures?: { task: string; message: string }[]): Promise<Engine> {
  const onError = (err: unknown, failure: BackgroundFailure) => failures?.push({ task: failure.task, message: (err as Error).message });
  const engine = await createEngine({ ...store.options(), workers: 0, websites: [site], logger, onError });
  open.push(engine);
  // Recommendations wait for the replay of the stored events.
  await engine.recommend(site.websiteId, 'PopularItems', {});
  return engine;
}

async function closeEngine(engine: Engine): Promise<void> {
  open.splice(open.indexOf(engine), 1);
  await engine.close();
}

async function record(engine: Engine, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    if (i < views.length) await engine.recordViews(site.websiteId, views[i]!);
    if (i < purchases.length) await engine.recordPurchases(site.websiteId, purchases[i]!);
  }
}

const answers = (engine: Engine) => everyMethodAnswers(engine);

/** A store with the test catalog loaded and no events. */
async function prepared(kind: 'embedded' | 'postgres'): Promise<StoreUnderTest> {
  let store: StoreUnderTest;
  if (kind === 'embedded') {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-checkpoint-faults-'));
    dirs.push(dataDir);
    store = embedded(dataDir);
  } else store = postgres(schemas.next());
  const first = await start(store);
  await first.upsertProducts(site.websiteId, products);
  await closeEngine(first);
  return store;
}

const half = Math.floor(Math.max(views.length, purchases.length) / 2);
const all = Math.max(views.length, purchases.length);

describe.each(['embedded', 'postgres'] as const)('model checkpoints with faults: %s store', (kind) => {
  const skipWithoutPg = () => kind === 'postgres' && !pgReachable;

  it('restarts from the checkpoint plus the events stored after it as a full replay does', async (ctx) => {
    if (skipWithoutPg()) ctx.skip();
    const store = await prepared(kind);
    const writer = await start(store);
    await record(writer, 0, half);
    // Closing writes the checkpoint (on PostgreSQL into the store, for every replica).
    await closeEngine(writer);
    expect(await store.hasCheckpoint()).toBe(true);
    // More events, by an engine that is not closed (a crash; on PostgreSQL a replica that goes on running).
    const other = await start(store);
    await record(other, half, all);
    const fromCheckpoint = await start(store);
    expect(replayedFrom.at(-1)![site.websiteId]).toBeGreaterThan(0);
    const expected = await answers(fromCheckpoint);
    expect(expected.some((a) => (a as { payload: string[] }).payload.length > 0)).toBe(true);
    await store.dropCheckpoint();
    const fullReplay = await start(store);
    expect(replayedFrom.at(-1)).toEqual({});
    expect(await answers(fullReplay)).toEqual(expected);
  });

  it('starts after a kill -9 during a checkpoint write as after a full replay', async (ctx) => {
    if (skipWithoutPg()) ctx.skip();
    const store = await prepared(kind);
    const child = spawnTs('../../recommend/__tests__/checkpoint-writer-child.ts', store.childArgs());
    const out = lineReader(child);
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await out.waitFor((l) => l === 'ready');
      await out.waitFor((l) => /^recorded \d+$/.test(l) && Number(l.split(' ')[1]) >= 20);
      while (!await store.hasCheckpoint()) await new Promise((r) => setTimeout(r, 10));
      // A later checkpoint replacing that one: killed while it is being written.
      await store.checkpointWriteSeen();
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect(child.signalCode).toBe('SIGKILL');
    const failures: { task: string; message: string }[] = [];
    const restarted = await start(store, failures);
    expect(failures.filter((f) => f.task === 'model-checkpoint')).toEqual([]);
    // Nothing of the cut write is left (the start deletes a file's temporaries; a transaction left none).
    expect(await store.leftovers()).toEqual([]);
    expect(replayedFrom.at(-1)![site.websiteId]).toBeGreaterThan(0);
    const expected = await answers(restarted);
    expect(expected.some((a) => (a as { payload: string[] }).payload.length > 0)).toBe(true);
    await closeEngine(restarted);
    await store.dropCheckpoint();
    expect(await answers(await start(store))).toEqual(expected);
  }, 120_000);

  it('reports a damaged checkpoint and replays every stored event instead', async (ctx) => {
    if (skipWithoutPg()) ctx.skip();
    const store = await prepared(kind);
    const writer = await start(store);
    await record(writer, 0, all);
    await closeEngine(writer);
    await store.damageCheckpoint();
    const failures: { task: string; message: string }[] = [];
    const restarted = await start(store, failures);
    expect(failures).toEqual([{ task: 'model-checkpoint', message: expect.stringMatching(/not used .*damaged \(checksum mismatch\)/) as unknown as string }]);
    expect(replayedFrom.at(-1)).toEqual({});
    const expected = await answers(restarted);
    expect(expected.some((a) => (a as { payload: string[] }).payload.length > 0)).toBe(true);
    if (kind === 'embedded') await closeEngine(restarted);
    await store.dropCheckpoint();
    expect(await answers(await start(store))).toEqual(expected);
  });

  it('keeps using a checkpoint whose events retention has deleted since', async (ctx) => {
    if (skipWithoutPg()) ctx.skip();
    const store = await prepared(kind);
    const writer = await start(store);
    await record(writer, 0, all);
    await closeEngine(writer);
    const before = await start(store);
    const learned = await answers(before);
    expect(learned.some((a) => (a as { payload: string[] }).payload.length > 0)).toBe(true);
    await closeEngine(before);
    // Every stored event expired, and retention deleted them (the store's own retention deletes, in batches).
    const raw = await openStore(store.options().store as Parameters<typeof openStore>[0], store.options().dataDir);
    try {
      for (const retained of ['views', 'purchases'] as const) {
        while (await raw.deleteExpired(site.websiteId, retained, Date.now() + DAY_MS, RETENTION_BATCH) > 0) { /* next batch */ }
      }
      expect(await raw.readEvents({ afterSeq: 0, limit: 10 })).toEqual([]);
    } finally {
      await raw.close();
    }
    const failures: { task: string; message: string }[] = [];
    const after = await start(store, failures);
    expect(failures).toEqual([]);
    expect(replayedFrom.at(-1)![site.websiteId]).toBeGreaterThan(0);
    expect(await answers(after)).toEqual(learned);
  });
});
