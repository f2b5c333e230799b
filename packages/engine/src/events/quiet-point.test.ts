/**
 * EventService.atQuietPoint (the moment the models' checkpoints are taken): however many event writes
 * are in flight when it is asked for, the sink has then been fed exactly the stored events up to the
 * sequence number it passes — on the embedded store, whose group commits resolve writes in batches.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventService } from './event-service.js';
import { RecordingSink, WEBSITE, event, purchaseBody, viewBody } from './__tests__/fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-quiet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('EventService.atQuietPoint', () => {
  it('passes the last sequence number the sink has been fed up to, with writes in flight', async () => {
    const sink = new RecordingSink();
    const service = await EventService.open({ store: { type: 'embedded', path: 'quiet.sqlite' }, dataDir: dir, websites: [WEBSITE], sink });
    try {
      await service.replay();
      const writes: Promise<unknown>[] = [];
      const points: { lastSeq: number; fed: number }[] = [];
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 40; i++) {
          writes.push(i % 4 === 0
            ? service.recordPurchases('site-a', purchaseBody([event(`o-${round}-${i}`)]))
            : service.recordViews('site-a', viewBody([`v-${round}-${i}`, `w-${round}-${i}`])));
        }
        // Asked while the round's writes are in flight; more writes come while it waits.
        const point = service.atQuietPoint((lastSeq) => ({ lastSeq, fed: sink.views.length + sink.purchases.length }));
        for (let i = 0; i < 10; i++) writes.push(service.recordViews('site-a', viewBody([`late-${round}-${i}`])));
        points.push((await point)!);
      }
      await Promise.all(writes);
      for (const { lastSeq, fed } of points) {
        const stored = await service.store.readEvents({ afterSeq: 0, limit: 10_000 });
        expect(fed).toBe(stored.filter((e) => e.seq <= lastSeq).length);
      }
      expect(points.at(-1)!.fed).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });
});
