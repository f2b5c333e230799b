/**
 * Catalog changes on a full disk: every change answered with success survives a restart, every change
 * answered with an error is neither visible nor replayed. The data directory is a small tmpfs (needs
 * root to mount; skipped with a message otherwise — the fault suite of the HTTP adapter covers more).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine.js';
import { parseLogSegment } from './change-log.js';

const isRoot = process.getuid?.() === 0;
const mounted: string[] = [];
afterAll(async () => {
  for (const dir of mounted) {
    execFileSync('umount', ['-l', dir]);
    await rm(dir, { recursive: true, force: true });
  }
});

describe('change log format', () => {
  it('replays only committed batches', () => {
    const head = '{"aisleLog":2}\n';
    const committed = '{"op":"upsert","count":1}\n{"refId":"a"}\n{"op":"commit","seq":1}\n';
    const uncommitted = '{"op":"delete","refIds":["a"]}\n{"op":"upsert","count":1}\n{"refId":"b"}\n';
    expect(parseLogSegment(head + committed + uncommitted)).toEqual([{ kind: 'upsert', products: [{ refId: 'a' }] }]);
    expect(parseLogSegment(head + uncommitted)).toEqual([]);
    expect(parseLogSegment(head + committed + uncommitted + '{"op":"commit","seq":3}\n')).toHaveLength(3);
  });
});

describe.skipIf(!isRoot)('catalog on a full disk', () => {
  it('acknowledges only what is on disk, and leaves no trace of what it refused', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-full-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=192k', 'tmpfs', dataDir]);
    mounted.push(dataDir);
    const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };
    const options = { dataDir, workers: 0, store: { type: 'memory' as const }, websites: [site] };
    const engine = await createEngine(options);
    const acknowledged: string[] = [];
    const refused: string[] = [];
    // Batches of ~6 kB until the disk is full, then a few more (each must fail whole).
    for (let batch = 0; batch < 60 && refused.length < 40; batch++) {
      const products = Array.from({ length: 8 }, (_, i) => ({ refId: `b${batch}-${i}`, title: 'x'.repeat(700) }));
      try {
        await engine.upsertProducts('site-a', products);
        acknowledged.push(...products.map((p) => p.refId));
      } catch (err) {
        expect(err).toMatchObject({ code: 'STORE_FAILURE' });
        refused.push(...products.map((p) => p.refId));
      }
    }
    expect(refused.length).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(0);
    const search = { website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 1000 };
    const live = new Set((await engine.search(search)).payload.result.map((p) => String(p.refId)));
    expect([...live].sort()).toEqual([...acknowledged].sort());
    // A crash (no close): a second engine replays the log.
    const restarted = await createEngine(options);
    const replayed = new Set((await restarted.search(search)).payload.result.map((p) => String(p.refId)));
    expect([...replayed].sort()).toEqual([...acknowledged].sort());
    await restarted.close().catch(() => undefined);
    await engine.close().catch(() => undefined);
  });
});
