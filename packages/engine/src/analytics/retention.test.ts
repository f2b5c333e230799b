import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../store/analytics-rows.js';
import { MemoryStore } from '../store/memory-store.js';
import type { ViewAppend } from '../store/store.js';
import { RETENTION_BATCH, RETENTION_INTERVAL_MS, RetentionJob } from './retention.js';
import { RETENTION_KINDS } from '../contract/settings-schema.js';

describe('RetentionJob', () => {
  it('deletes each website\'s raw rows past its retention, in batches, and keeps the roll-ups', async () => {
    const store = new MemoryStore();
    const now = 400 * DAY_MS;
    const responses = Array.from({ length: RETENTION_BATCH + 5 }, (_, i) => ({
      websiteId: i % 2 === 0 ? 'a' : 'b', queryId: `q${i}`, kind: 'search' as const, at: now - 20 * DAY_MS, key: 'sofa', countedAs: null,
    }));
    await store.writeAnalytics({ responses, rollups: [{ websiteId: 'a', kind: 'search', hour: now - 20 * DAY_MS, key: 'sofa', tactic: '', counters: { responses: 3 } }], outcomes: [], sessions: [] });
    const views = (websiteId: string, daysAgo: number): ViewAppend => ({
      websiteId, transactionId: `t-${websiteId}-${daysAgo}`, customerId: 'c', sessionId: 's', origin: 'test', receivedAt: now - daysAgo * DAY_MS,
      views: [{ refId: 'p', currentUrl: 'https://shop.example/p', eventTime: '2026-01-01T00:00:00Z', eventTimeMs: 0 }],
    });
    for (const [site, days] of [['a', 400], ['a', 100], ['b', 400]] as const) await store.appendViews(views(site, days));
    const clicks = (websiteId: string, daysAgo: number) => store.appendClicks({
      websiteId, transactionId: `c-${websiteId}-${daysAgo}`, customerId: 'c', sessionId: 's', origin: 'test', receivedAt: now - daysAgo * DAY_MS,
      clicks: [{ refId: 'p', type: 'click', eventTime: '2026-01-01T00:00:00Z', eventTimeMs: 0 }],
    });
    for (const [site, days] of [['a', 40], ['a', 20], ['b', 40]] as const) await clicks(site, days);
    const failures: unknown[] = [];
    const job = new RetentionJob(store, {
      now: () => now,
      // a keeps searches 10 days and views 200; b keeps the defaults (90 days of searches, a year of views).
      websites: () => [{ websiteId: 'a', settings: { eventRetentionDays: { searches: 10, views: 200, clicks: 30 } } }, { websiteId: 'b', settings: undefined }],
      onError: (err) => failures.push(err),
    });
    expect(await job.run()).toBe(Math.ceil(responses.length / 2) + 2 + 1);
    expect((await store.readClicks('a', 0, 10)).map((c) => c.receivedAt)).toEqual([now - 20 * DAY_MS]);
    expect((await store.readClicks('b', 0, 10)).length).toBe(1);
    expect(failures).toEqual([]);
    expect((await store.readEvents({ afterSeq: 0, limit: 10 })).map((e) => [e.websiteId, e.receivedAt])).toEqual([['a', now - 100 * DAY_MS]]);
    // The roll-ups stay; a click on an expired search counts as a click, outside ctr.
    await store.writeAnalytics({ responses: [], rollups: [], sessions: [], outcomes: [{ websiteId: 'a', kind: 'search', queryId: 'q0', at: now, key: 'sofa', counters: { clicks: 1 }, flag: 'clicked' }] });
    const [sofa] = await store.rollupTotals('a', 'search', { fromHour: 0, toHour: now });
    expect(sofa!.counters).toMatchObject({ responses: 3, clicks: 1, clicked: 0 });
    // b's searches are within its 90 days: a click on one of them counts in ctr.
    await store.writeAnalytics({ responses: [], rollups: [], sessions: [], outcomes: [{ websiteId: 'b', kind: 'search', queryId: 'q1', at: now, key: 'sofa', counters: { clicks: 1 }, flag: 'clicked' }] });
    expect((await store.rollupTotals('b', 'search', { fromHour: 0, toHour: now }))[0]!.counters).toMatchObject({ clicked: 1 });
    await job.stop();
  });

  it('runs its first pass soon after the start, not one interval later', async () => {
    const store = new MemoryStore();
    await store.appendViews({
      websiteId: 'a', transactionId: 't', customerId: 'c', sessionId: 's', origin: 'test', receivedAt: Date.now() - 400 * DAY_MS,
      views: [{ refId: 'p', currentUrl: 'https://shop.example/p', eventTime: '2026-01-01T00:00:00Z', eventTimeMs: 0 }],
    });
    const job = new RetentionJob(store, { websites: () => [{ websiteId: 'a', settings: undefined }], onError: (err) => { throw err; } });
    // A process restarted more often than every 10 minutes never deleted anything.
    job.start(RETENTION_INTERVAL_MS, 10);
    while ((await store.readEvents({ afterSeq: 0, limit: 10 })).length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await job.stop();
  });

  it('reports a failing delete and goes on with the next website', async () => {
    class FailingStore extends MemoryStore {
      override async deleteExpired(websiteId: string, ...rest: [never, number, number]): Promise<number> {
        if (websiteId === 'a') throw new Error('disk gone');
        return super.deleteExpired(websiteId, ...rest);
      }
    }
    const failures: [string, string][] = [];
    const job = new RetentionJob(new FailingStore(), {
      websites: () => [{ websiteId: 'a', settings: undefined }, { websiteId: 'b', settings: undefined }],
      onError: (err, websiteId) => failures.push([websiteId, (err as Error).message]),
    });
    expect(await job.run()).toBe(0);
    expect(failures.length).toBe(RETENTION_KINDS.length); // each kind of a, none of b
    expect(new Set(failures.map(([site]) => site))).toEqual(new Set(['a']));
    await job.stop();
  });
});
