import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine.js';
import { FileChangeLog, parseLogSegment } from './change-log.js';
import type { LoggedChange } from './catalog-change-log.js';
import { runChangeLogContract } from './change-log-contract.js';
import { liveProductList } from '../changes/tombstones.js';
import { productsOf } from '../columns/product-store.js';

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'aisle-change-log-'));
  dirs.push(d);
  return d;
}

runChangeLogContract('files', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'aisle-change-log-'));
  // Named as the engine names a website's files.
  const nameOf = (websiteId: string): string => encodeURIComponent(websiteId);
  return {
    open: (websiteId) => FileChangeLog.open(dir, nameOf(websiteId)),
    breakAppends: async (websiteId) => {
      // A fresh log writes to the segment after the last one there: a directory takes its name.
      const prefix = `${nameOf(websiteId)}.log.`;
      const ids = (await readdir(dir)).filter((f) => f.startsWith(prefix)).map((f) => Number(f.slice(prefix.length)));
      const blocker = path.join(dir, `${prefix}${Math.max(0, ...ids) + 1}`);
      await mkdir(blocker);
      return () => rm(blocker, { recursive: true });
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
});

const changes: LoggedChange[] = [
  { kind: 'upsert', products: [{ refId: 'a', title: 'Café ☕', price: '1.50' }, { refId: 'b', tags: ['x', 'y'], nested: { k: null } }] },
  { kind: 'delete', refIds: ['b', 'zz'] },
  { kind: 'replace', products: [] },
  { kind: 'upsert', products: [{ refId: 'line\nbreak', title: 'a "quoted" title' }] },
];

/** What a reopened log of `dir` holds, in order. */
async function reopenedChanges(dir: string): Promise<LoggedChange[]> {
  const log = await FileChangeLog.open(dir, 'w');
  const read = await log.readAfter(0);
  await log.close();
  return read.map((p) => p.change);
}

/** Stands for a snapshot's bytes: the file log stores them as given. */
const snapshotBytes = async (): Promise<Uint8Array> => new Uint8Array([1, 2, 3]);

describe('FileChangeLog: segment files', () => {
  it('reads back what it appended, in order, across segments (a snapshot starts a new one)', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    expect(await log.readAfter(0)).toEqual([]);
    await log.append([changes[0]]);
    // Position 0: the snapshot holds none of the changes, so no segment goes.
    await log.saveSnapshot(0, snapshotBytes);
    await Promise.all([log.append([changes[1]]), log.append([changes[2]]), log.append([changes[3]])]);
    await log.close();
    expect((await readdir(dir)).sort()).toEqual(['w.aislesnap', 'w.log.1', 'w.log.2']);
    expect(await reopenedChanges(dir)).toEqual(changes);
  });

  it('ignores an entry cut by a crash (never acknowledged), and everything after it', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    await log.append([changes[0]]);
    await log.close();
    const file = path.join(dir, 'w.log.1');
    for (const tail of ['{"op":"upsert","count":2}\n{"refId":"c"}\n', '{"op":"upsert","count":1}\n{"refId":"c"', '{"op":"del', '{"op":"upsert","count":1}\nnot json\n']) {
      await writeFile(file, '');
      const fresh = await FileChangeLog.open(dir, 'w');
      await fresh.append([changes[0]]);
      await fresh.close();
      await appendFile(file, tail);
      expect(await reopenedChanges(dir)).toEqual([changes[0]]);
      await rm(path.join(dir, 'w.log.2'), { force: true });
    }
    expect(parseLogSegment('')).toEqual([]);
    expect(parseLogSegment('{"op":"upsert","count":0}\n')).toEqual([{ kind: 'upsert', products: [] }]);
  });

  it('fails an append it cannot write with STORE_FAILURE, and goes on with the next ones', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    // The segment's name is taken by a directory: the write cannot happen.
    await mkdir(path.join(dir, 'w.log.1'));
    await expect(log.append([changes[0]])).rejects.toMatchObject({ code: 'STORE_FAILURE' });
    await rm(path.join(dir, 'w.log.1'), { recursive: true });
    // The failed segment is left behind: the next append goes to a new one.
    await log.append([changes[1]]);
    await log.close();
    expect(await readdir(dir)).toEqual(['w.log.2']);
    expect(await reopenedChanges(dir)).toEqual([changes[1]]);
  });

  it('drops only the segments whose every change the snapshot before the latest holds (two generations)', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    const first = await log.append([changes[0]]);
    const second = await log.append([changes[1]]);
    await log.saveSnapshot(first, snapshotBytes);
    expect((await readdir(dir)).sort()).toEqual(['w.aislesnap', 'w.log.1']);
    const third = await log.append([changes[3]]);
    // The first snapshot is now the previous generation: it holds no whole segment, so none goes.
    await log.saveSnapshot(second, snapshotBytes);
    expect((await readdir(dir)).sort()).toEqual(['w.aislesnap', 'w.aislesnap.prev', 'w.log.1', 'w.log.2']);
    // The second is now the previous one, and holds every change of segment 1.
    await log.saveSnapshot(third, snapshotBytes);
    expect((await readdir(dir)).sort()).toEqual(['w.aislesnap', 'w.aislesnap.prev', 'w.log.2']);
    await log.saveSnapshot(third, snapshotBytes);
    expect((await readdir(dir)).sort()).toEqual(['w.aislesnap', 'w.aislesnap.prev']);
    await log.close();
  });

  it('hands out the previous generation when the latest is missing (a crash between the two renames)', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    await log.saveSnapshot(await log.append([changes[0]]), async () => new Uint8Array([1]));
    const second = await log.append([changes[1]]);
    await log.saveSnapshot(second, async () => new Uint8Array([2]));
    expect([...(await log.loadSnapshot())!.data]).toEqual([2]);
    await rm(path.join(dir, 'w.aislesnap'));
    const previous = await log.loadSnapshot();
    expect([...previous!.data]).toEqual([1]);
    // It holds less than the latest did: reading after its position gives the change it lacks.
    expect((await log.readAfter(previous!.position)).map((p) => p.change)).toEqual([changes[1]]);
    await log.close();
  });
});

describe('FileChangeLog: snapshot marks (what a restart replays)', () => {
  /** Saves a snapshot at `position` and returns the mark the log gave its bytes. */
  const save = async (log: FileChangeLog, position: number): Promise<number | undefined> => {
    let mark: number | undefined;
    await log.saveSnapshot(position, async (logMark) => { mark = logMark; return new Uint8Array([position]); });
    return mark;
  };

  it('replays only the changes after the loaded snapshot, and drops the segments both generations hold', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    await log.append([changes[0]]);
    const mark = await save(log, await log.append([changes[1]]));
    await log.append([changes[3]]);
    await log.close();
    // A restart: the loaded snapshot's mark says segment 1 is held; only the later change is replayed.
    const again = await FileChangeLog.open(dir, 'w');
    expect((await again.readAfter(again.snapshotLoaded(mark))).map((p) => p.change)).toEqual([changes[3]]);
    // The next snapshot makes the loaded one the previous generation: segment 1 goes, segment 2 stays.
    await save(again, 3);
    expect((await readdir(dir)).sort()).toEqual(['w.aislesnap', 'w.aislesnap.prev', 'w.log.2']);
    await again.close();
  });

  it('keeps a change logged but not yet in the snapshot\'s version in the segments it replays', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    const first = await log.append([changes[0]]);
    await log.append([changes[1]]);
    // The version written holds the first change only (the second was logged, its build not published).
    const mark = await save(log, first);
    await log.close();
    const again = await FileChangeLog.open(dir, 'w');
    expect((await again.readAfter(again.snapshotLoaded(mark))).map((p) => p.change)).toEqual([changes[0], changes[1]]);
    await again.close();
  });

  it('after a restart appends at or above the mark, so the next snapshot never drops them unreplayed', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'w');
    const position = await log.append([changes[0]]);
    await save(log, position);
    // A second snapshot without a change in between: its mark names a segment never created.
    const mark = await save(log, position);
    expect(await readdir(dir)).not.toContain('w.log.2');
    await log.close();
    const again = await FileChangeLog.open(dir, 'w');
    expect(await again.readAfter(again.snapshotLoaded(mark))).toEqual([]);
    await again.append([changes[3]]);
    expect(await readdir(dir)).toContain(`w.log.${mark}`);
    // A snapshot that lost the race (still the old version) keeps the new change's segment: it is replayed.
    await save(again, 0);
    await again.close();
    const third = await FileChangeLog.open(dir, 'w');
    expect((await third.readAfter(third.snapshotLoaded(mark))).map((p) => p.change)).toEqual([changes[3]]);
    await third.close();
  });

  it('refuses to take a mark after an append', async () => {
    const log = await FileChangeLog.open(await tempDir(), 'w');
    await log.append([changes[0]]);
    expect(() => log.snapshotLoaded(undefined)).toThrow(/before any append/);
    await log.close();
  });
});

describe('engine: catalog changes and snapshots', () => {
  it('keeps a change queued while a snapshot was taken (the snapshot does not hold it, the log does)', async () => {
    const dataDir = await tempDir();
    const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
    const first = await createEngine({ dataDir, workers: 0, websites: [site] });
    // Big enough to build in time slices: the snapshot below is taken before the upsert is applied.
    const products = Array.from({ length: 3000 }, (_, i) => ({ refId: `p${i}`, title: `mug ${i}`, price: i }));
    const upsert = first.upsertProducts('site-a', products);
    await new Promise((resolve) => setImmediate(resolve));
    await first.saveSnapshots();
    await upsert;
    // A crash now: a second engine opens the same data directory without the first one closing.
    const second = await createEngine({ dataDir, workers: 0, websites: [site] });
    const found = await second.search({ website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 1 });
    expect(found.payload.total_results).toBe(3000);
    await second.close();
    await first.close();
  });

  it('a restart after a snapshot replays none of the changes it holds (the change log does not grow with restarts)', async () => {
    const dataDir = await tempDir();
    const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
    const replayed: number[] = [];
    const logger = { error: () => undefined, warn: () => undefined, info: (d: object) => { if ('changesReplayed' in d) replayed.push(d.changesReplayed as number); } };
    const products = Array.from({ length: 500 }, (_, i) => ({ refId: `p${i}`, title: `mug ${i}`, price: i }));
    const first = await createEngine({ dataDir, workers: 0, websites: [site], logger });
    await first.replaceProducts('site-a', products);
    await first.close();
    for (let start = 0; start < 3; start++) {
      const again = await createEngine({ dataDir, workers: 0, websites: [site], logger });
      const found = await again.search({ website_id: 'site-a', client: 'client-a', q: 'mug', start: 0, size: 1 });
      expect(found.payload.total_results).toBe(500);
      if (start === 1) await again.upsertProducts('site-a', [{ refId: 'p1', title: 'mug renamed' }]);
      await again.close();
    }
    // The load is replayed by no start; the upsert of the second start was snapshotted at its close.
    expect(replayed).toEqual([0, 0, 0, 0]);
    const segments = (await readdir(path.join(dataDir, 'catalogs'))).filter((f) => f.includes('.log.'));
    expect(segments.length).toBeLessThanOrEqual(1);
  });
});

describe('data directory lock', () => {
  it('refuses while another process holds it, is free again the moment that process is killed, and is shared within a process', async () => {
    const { lockDataDir, LOCK_FILE } = await import('./data-dir-lock.js');
    const { spawn } = await import('node:child_process');
    const dir = await tempDir();
    // Another process holding the lock the way the engine takes it (a SQLite exclusive lock).
    const holderScript = `const db = new (require('better-sqlite3'))(${JSON.stringify(path.join(dir, LOCK_FILE))});
      db.pragma('locking_mode = EXCLUSIVE'); db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY); COMMIT');
      require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'LOCK.owner'))}, process.pid + '\\n'); console.log('held'); setTimeout(() => {}, 60000);`;
    const holder = spawn(process.execPath, ['-e', holderScript], { cwd: path.resolve(import.meta.dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    await expect(lockDataDir(dir)).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED', message: expect.stringContaining(String(holder.pid)) });
    // kill -9, without waiting for the process to be reaped: the kernel has released the lock already
    // once the process is gone; retry briefly for the signal to be delivered.
    holder.kill('SIGKILL');
    let lock: Awaited<ReturnType<typeof lockDataDir>> | undefined;
    for (let attempt = 0; !lock && attempt < 200; attempt++) {
      lock = await lockDataDir(dir).catch(async (err: unknown) => {
        expect(err).toMatchObject({ code: 'DATA_DIR_LOCKED' });
        await new Promise((resolve) => setTimeout(resolve, 10));
        return undefined;
      });
    }
    expect(lock).toBeDefined();
    // The same process may take it again (shared); it is free for others once both let go.
    const again = await lockDataDir(dir);
    await lock!.release();
    await again.release();
    const third = await lockDataDir(dir);
    await third.release();
  });
});

describe('Catalog.replay', () => {
  it('applies logged changes in order as one build', async () => {
    const { Catalog } = await import('../catalog.js');
    const logged: LoggedChange[] = [];
    for (let i = 0; i < 20; i++) {
      logged.push({ kind: 'upsert', products: [{ refId: `p${i}`, price: i }, { refId: `p${i % 3}`, price: 100 + i }] });
      if (i % 4 === 3) logged.push({ kind: 'delete', refIds: [`p${i - 2}`] });
      if (i === 10) logged.push({ kind: 'replace', products: [{ refId: 'r', price: 1 }] });
    }
    const replayed = new Catalog();
    await replayed.replay(logged);
    expect(replayed.version).toBe(1);
    const oneByOne = new Catalog();
    for (const c of logged) {
      if (c.kind === 'delete') await oneByOne.delete(c.refIds);
      else if (c.kind === 'upsert') await oneByOne.upsert(c.products.slice());
      else await oneByOne.replace(c.products.slice());
    }
    expect(productsOf(liveProductList(replayed.state))).toEqual(productsOf(liveProductList(oneByOne.state)));
    expect(replayed.appliedSeq).toBe(logged.length);
  });

  it('publishes the log position of the last logged change with the version that holds it', async () => {
    const { Catalog } = await import('../catalog.js');
    const catalog = new Catalog();
    await catalog.replay([changes[0]], 7);
    expect(catalog.loggedPosition).toBe(7);
    let next = 10;
    catalog.setChangeLogger(async () => next++);
    await catalog.upsert([{ refId: 'n', title: 'new' }]);
    expect(catalog.loggedPosition).toBe(10);
    // A batch whose logging fails is not published, and neither is a position.
    catalog.setChangeLogger(async () => { throw new Error('disk full'); });
    await expect(catalog.upsert([{ refId: 'm', title: 'lost' }])).rejects.toThrow('disk full');
    expect(catalog.loggedPosition).toBe(10);
    expect(catalog.getProduct('m')).toBeUndefined();
  });
});

describe('FileChangeLog: a batch of several write chunks', () => {
  // The turn handed to the event loop between chunks is not asserted here: at this size the writes give
  // turns anyway; the stalls it removes showed at 1M products (docs/benchmarks.md, "Stalls and memory").
  it('is written whole across its chunks and read back', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'big');
    // ~4 MB of product lines: several chunks of the log's 1 MB writes.
    const products = Array.from({ length: 8000 }, (_, i) => ({ refId: `p${i}`, title: `Product ${i} ${'é'.repeat(240)}` }));
    expect(await log.append([{ kind: 'replace', products }, { kind: 'delete', refIds: ['p1'] }])).toBe(2);
    const read = await log.readAfter(0);
    expect(read.map((r) => r.position)).toEqual([1, 2]);
    expect(read[0]!.change).toEqual({ kind: 'replace', products });
    expect(read[1]!.change).toEqual({ kind: 'delete', refIds: ['p1'] });
    await log.close();
  });

  it('writes a line longer than its write buffer on its own, and astral and unpaired UTF-16 as JSON gives them', async () => {
    const dir = await tempDir();
    const log = await FileChangeLog.open(dir, 'long');
    // 1.5M characters of 3-byte UTF-8 (4.5 MB): longer than the 1 MB buffer; around it, short lines
    // with surrogate pairs (4 bytes for two units) and a lone surrogate (JSON escapes it).
    const products = [
      { refId: 'before', title: 'emoji 😀 and a lone \ud800 unit' },
      { refId: 'long', description: '€'.repeat(1_500_000) },
      { refId: 'after', title: '𝔸'.repeat(1000) },
    ];
    expect(await log.append([{ kind: 'upsert', products }])).toBe(1);
    expect((await log.readAfter(0)).map((r) => r.change)).toEqual([{ kind: 'upsert', products }]);
    await log.close();
  });
});
