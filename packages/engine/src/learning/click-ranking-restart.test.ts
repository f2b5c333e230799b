/**
 * The learned ranking state across a restart (embedded store, real SQLite in a data directory): it is
 * saved with the recommendation models' checkpoint, so the next start reads none of the clicks again
 * and ranks as before; without a usable checkpoint every stored click is read again, to the same order.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { modelCheckpointPath } from '../recommend/model-checkpoint.js';
import type { Product } from '../types.js';

const site = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a', settings: { clickRanking: { minSessions: 2 } } };
const products: Product[] = Array.from({ length: 30 }, (_, i) => ({ refId: `p${i + 1}`, title: `Blue lamp ${i + 1}` }));
const dirs: string[] = [];
const open: Engine[] = [];
afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function guid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The clicks each start read (its log line). */
const clicksRead: number[] = [];
const logger = {
  error: () => undefined, warn: () => undefined,
  info: (details: object) => { if ('clicksRead' in details) clicksRead.push(details.clicksRead as number); },
};

async function start(dataDir: string): Promise<Engine> {
  const engine = await createEngine({ dataDir, workers: 0, websites: [site], logger });
  open.push(engine);
  await engine.recommend('site-a', 'PopularItems', {});
  return engine;
}

const top = async (engine: Engine) => (await engine.search({ website_id: 'site-a', client: 'client-a', q: 'blue lamp', start: 0, size: 5 })).payload.result[0]!.refId;

describe('learned ranking state across restarts', () => {
  it('is restored from the checkpoint: no click is read again, the order is the same', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-learning-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    await first.upsertProducts('site-a', products);
    for (let n = 1; n <= 3; n++) {
      const page = await first.search({ website_id: 'site-a', client: 'client-a', q: 'blue lamp', start: 0, size: 30, session_id: guid(n) });
      const position = page.payload.result.findIndex((p) => p.refId === 'p17') + 1;
      await first.recordClicks('site-a', { customerId: guid(n), sessionId: guid(n), events: [{ eventTime: new Date().toISOString(), refId: 'p17', type: 'click', queryId: page.query_id, position }] });
    }
    await first.searchReport('site-a');
    const until = Date.now() + 5000;
    while (await top(first) !== 'p17' && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await top(first)).toBe('p17');
    await first.close();

    clicksRead.length = 0;
    const second = await start(dataDir);
    while (clicksRead.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(clicksRead).toEqual([0]);
    expect(await top(second)).toBe('p17');
    await second.close();

    // Without the checkpoint: every stored click is read again, to the same order.
    await rm(modelCheckpointPath(dataDir, 'site-a'));
    clicksRead.length = 0;
    const third = await start(dataDir);
    while (clicksRead.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(clicksRead).toEqual([3]);
    expect(await top(third)).toBe('p17');
  });
});
