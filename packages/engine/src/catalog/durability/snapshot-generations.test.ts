/**
 * One unreadable snapshot does not lose a website: the start loads the previous generation and replays
 * the change log (kept back to it) over it, moves the bad file aside and reports the fallback; only two
 * unreadable generations stop the start.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BackgroundFailure } from '../../background-failures.js';
import { createEngine } from '../../engine.js';

const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
const search = { website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 1000 };
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A data directory after three snapshot generations with changes between them, and its catalog. */
async function threeGenerations(): Promise<{ dataDir: string; expected: string[] }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-generations-'));
  dirs.push(dataDir);
  const engine = await createEngine({ dataDir, workers: 0, store: { type: 'memory' }, websites: [site] });
  await engine.upsertProducts('site-a', Array.from({ length: 40 }, (_, i) => ({ refId: `p${i}`, title: `mug ${i}`, price: i })));
  await engine.saveSnapshots();
  await engine.upsertProducts('site-a', [{ refId: 'p40', title: 'cup', price: 40, color: 'red' }]);
  await engine.deleteProducts('site-a', ['p3']);
  await engine.saveSnapshots();
  await engine.upsertProducts('site-a', [{ refId: 'p41', title: 'plate', price: 41 }, { refId: 'p5', title: 'mug 5', price: 500 }]);
  const expected = (await engine.search(search)).payload.result.map((p) => JSON.stringify(p)).sort();
  // Closing writes the third snapshot (a change is pending).
  await engine.close();
  return { dataDir, expected };
}

describe('snapshot generations', () => {
  it('keep the previous snapshot and the log back to it, and fall back to them when the latest cannot be read', async () => {
    const { dataDir, expected } = await threeGenerations();
    const catalogs = path.join(dataDir, 'catalogs');
    expect((await readdir(catalogs)).filter((f) => f.includes('aislesnap')).sort()).toEqual(['site-a.aislesnap', 'site-a.aislesnap.prev']);
    await writeFile(path.join(catalogs, 'site-a.aislesnap'), 'torn');
    const failures: BackgroundFailure[] = [];
    const messages: string[] = [];
    const logger = { error: (_: object, message?: string) => messages.push(message ?? ''), warn: () => undefined, info: () => undefined };
    const engine = await createEngine({
      dataDir, workers: 0, store: { type: 'memory' }, websites: [site], logger, onError: (_, failure) => failures.push(failure),
    });
    const served = (await engine.search(search)).payload.result.map((p) => JSON.stringify(p)).sort();
    expect(served).toEqual(expected);
    expect(failures).toEqual([{ task: 'snapshot-load', websiteId: 'site-a' }]);
    expect(messages.join()).toMatch(/snapshot-load .*latest catalog snapshot could not be read .*loaded the previous one/);
    expect(engine.backgroundFailures()['snapshot-load']).toBe(1);
    const files = await readdir(catalogs);
    expect(files.some((f) => f.startsWith('site-a.aislesnap.unreadable-'))).toBe(true);
    await engine.close();
    // The next start reads the snapshot the close wrote, quietly.
    const again = await createEngine({ dataDir, workers: 0, store: { type: 'memory' }, websites: [site] });
    expect((await again.search(search)).payload.result.map((p) => JSON.stringify(p)).sort()).toEqual(expected);
    expect(again.backgroundFailures()['snapshot-load']).toBe(0);
    await again.close();
  });

  it('load the previous snapshot when a crash left no latest one', async () => {
    const { dataDir, expected } = await threeGenerations();
    await rm(path.join(dataDir, 'catalogs', 'site-a.aislesnap'));
    const engine = await createEngine({ dataDir, workers: 0, store: { type: 'memory' }, websites: [site] });
    expect((await engine.search(search)).payload.result.map((p) => JSON.stringify(p)).sort()).toEqual(expected);
    await engine.close();
  });

  it('stop the start, naming both files, when neither generation can be read', async () => {
    const { dataDir } = await threeGenerations();
    const catalogs = path.join(dataDir, 'catalogs');
    await writeFile(path.join(catalogs, 'site-a.aislesnap'), 'torn');
    await writeFile(path.join(catalogs, 'site-a.aislesnap.prev'), 'torn too');
    await expect(createEngine({ dataDir, workers: 0, store: { type: 'memory' }, websites: [site] }))
      .rejects.toThrow(/site-a\.aislesnap: .*previous snapshot cannot be read either .*website "site-a" cannot be read: move/s);
  });
});
