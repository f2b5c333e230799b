import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine.js';
import { CatalogChangeLog, parseLogSegment, type LoggedChange } from './change-log.js';
import { liveProductList } from '../changes/tombstones.js';
import { productsOf } from '../columns/product-store.js';

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'aisle-change-log-'));
  dirs.push(d);
  return d;
}

const changes: LoggedChange[] = [
  { kind: 'upsert', products: [{ refId: 'a', title: 'Café ☕', price: '1.50' }, { refId: 'b', tags: ['x', 'y'], nested: { k: null } }] },
  { kind: 'delete', refIds: ['b', 'zz'] },
  { kind: 'replace', products: [] },
  { kind: 'upsert', products: [{ refId: 'line\nbreak', title: 'a "quoted" title' }] },
];

describe('CatalogChangeLog', () => {
  it('reads back what it appended, in order, across segments', async () => {
    const dir = await tempDir();
    const { log, pending } = await CatalogChangeLog.open(dir, 'w');
    expect(pending).toEqual([]);
    await log.append(changes[0], 1);
    log.rotate();
    await Promise.all([log.append(changes[1], 2), log.append(changes[2], 3), log.append(changes[3], 4)]);
    await log.close();
    expect((await readdir(dir)).sort()).toEqual(['w.log.1', 'w.log.2']);
    const reopened = await CatalogChangeLog.open(dir, 'w');
    expect(reopened.pending).toEqual(changes);
    await reopened.log.close();
  });

  it('ignores an entry cut by a crash (never acknowledged), and everything after it', async () => {
    const dir = await tempDir();
    const { log } = await CatalogChangeLog.open(dir, 'w');
    await log.append(changes[0], 1);
    await log.close();
    const file = path.join(dir, 'w.log.1');
    for (const tail of ['{"op":"upsert","count":2}\n{"refId":"c"}\n', '{"op":"upsert","count":1}\n{"refId":"c"', '{"op":"del', '{"op":"upsert","count":1}\nnot json\n']) {
      await writeFile(file, '');
      const fresh = await CatalogChangeLog.open(dir, 'w');
      await fresh.log.append(changes[0], 1);
      await fresh.log.close();
      await appendFile(file, tail);
      const { pending, log: again } = await CatalogChangeLog.open(dir, 'w');
      expect(pending).toEqual([changes[0]]);
      await again.close();
      await rm(path.join(dir, 'w.log.2'), { force: true });
    }
    expect(parseLogSegment('')).toEqual([]);
    expect(parseLogSegment('{"op":"upsert","count":0}\n')).toEqual([{ kind: 'upsert', products: [] }]);
  });

  it('fails an append it cannot write with STORE_FAILURE, and goes on with the next ones', async () => {
    const dir = await tempDir();
    const { log } = await CatalogChangeLog.open(dir, 'w');
    // The segment's name is taken by a directory: the write cannot happen.
    await mkdir(path.join(dir, 'w.log.1'));
    await expect(log.append(changes[0], 1)).rejects.toMatchObject({ code: 'STORE_FAILURE' });
    await rm(path.join(dir, 'w.log.1'), { recursive: true });
    // The failed segment is left behind: the next append goes to a new one.
    await log.append(changes[1], 2);
    await log.close();
    expect(await readdir(dir)).toEqual(['w.log.2']);
    expect((await CatalogChangeLog.open(dir, 'w')).pending).toEqual([changes[1]]);
  });

  it('drops only the segments whose every change a snapshot holds', async () => {
    const dir = await tempDir();
    const { log } = await CatalogChangeLog.open(dir, 'w');
    await log.append(changes[0], 1);
    await log.append(changes[1], 2);
    log.rotate();
    await log.append(changes[3], 3);
    log.rotate();
    await log.dropCovered(1);
    expect((await readdir(dir)).sort()).toEqual(['w.log.1', 'w.log.2']);
    await log.dropCovered(2);
    expect((await readdir(dir)).sort()).toEqual(['w.log.2']);
    await log.dropCovered(3);
    expect(await readdir(dir)).toEqual([]);
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
});
