import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createEngine } from '../engine.js';
import { MemoryStore } from '../store/memory-store.js';
import type { SearchLogRow } from '../store/store.js';
import { MAX_LOGGED_QUERY_LENGTH, SEARCH_LOG_RETENTION_DAYS, SearchLog, logQuery } from './search-log.js';

const DAY = 86_400_000;
const all = { fromHour: 0, toHour: Number.MAX_SAFE_INTEGER, limit: 100 };

describe('SearchLog', () => {
  it('batches searches into one write per flush and keeps rows when the store fails', async () => {
    const writes: SearchLogRow[][] = [];
    let fail = true;
    class FlakyStore extends MemoryStore {
      override async addSearchLog(rows: readonly SearchLogRow[], deleteBefore: number): Promise<void> {
        if (fail) { fail = false; throw new Error('disk full'); }
        writes.push([...rows]);
        return super.addSearchLog(rows, deleteBefore);
      }
    }
    const store = new FlakyStore();
    const errors: unknown[] = [];
    const log = new SearchLog(store, { onError: (err) => errors.push(err) });
    log.record('w', 'Red Shoe', 4);
    log.record('w', 'red shoe', 6);
    log.record('w', 'nothing here', 0);
    await log.flush();
    expect(errors).toHaveLength(1);
    log.record('w', 'red  shoe', 2);
    await log.flush();
    expect(writes).toHaveLength(1);
    expect(await store.searchLogTotals('w', all)).toEqual({
      top: [{ query: 'red shoe', count: 3, avgResults: 4 }, { query: 'nothing here', count: 1, avgResults: 0 }],
      noResults: [{ query: 'nothing here', count: 1 }],
    });
    await log.close();
  });

  it('expires hours older than the retention window', async () => {
    const store = new MemoryStore();
    let now = Date.UTC(2026, 0, 1);
    const log = new SearchLog(store, { now: () => now, onError: (err) => { throw err; } });
    log.record('w', 'old', 1);
    await log.flush();
    now += (SEARCH_LOG_RETENTION_DAYS + 1) * DAY;
    log.record('w', 'new', 1);
    await log.flush();
    expect((await store.searchLogTotals('w', all)).top.map((t) => t.query)).toEqual(['new']);
    await log.close();
  });

  it('refreshes its completions from a store shared with another replica', async () => {
    const store = new MemoryStore();
    const onError = (err: unknown) => { throw err; };
    const one = new SearchLog(store, { onError });
    const two = new SearchLog(store, { onError });
    await two.load('w');
    two.record('w', 'walnut shelf', 2); // pending in two: kept across its reloads
    one.record('w', 'walnut desk', 3);
    one.record('w', 'walnut desk', 3);
    await one.flush();
    expect(two.completions('w', 'wal', 5)).toEqual(['walnut shelf']);
    two.startRefreshing(() => ['w'], 10);
    await vi.waitFor(() => expect(two.completions('w', 'wal', 5)).toEqual(['walnut desk', 'walnut shelf']), { timeout: 5_000, interval: 10 });
    await Promise.all([one.close(), two.close()]);
  });

  it('normalises and bounds the logged query', () => {
    expect(logQuery('  Café, CRÈME!  ')).toBe('cafe creme');
    expect(logQuery('word '.repeat(500)).length).toBe(MAX_LOGGED_QUERY_LENGTH);
  });
});

describe('search log in the embedded store', () => {
  it('survives a restart: the report and the suggestions', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aisle-searchlog-'));
    const site = { websiteId: 'w', client: 'c', tokens: ['t-0123456789'], hmacSecret: 's' };
    const search = (q: string) => ({ website_id: 'w', client: 'c', q, start: 0 });
    try {
      let engine = await createEngine({ dataDir: dir, workers: 0, websites: [site] });
      await engine.upsertProducts('w', [{ refId: 'a', title: 'Walnut desk' }, { refId: 'b', title: 'Walnut shelf' }]);
      await engine.search(search('walnut desk'));
      await engine.search(search('walnut desk'));
      await engine.search(search('oak'));
      await engine.close();
      engine = await createEngine({ dataDir: dir, workers: 0, websites: [site] });
      try {
        expect(await engine.searchReport('w')).toEqual({
          websiteId: 'w', top: [{ query: 'walnut desk', count: 2, avgResults: 1 }, { query: 'oak', count: 1, avgResults: 0 }], noResults: [{ query: 'oak', count: 1 }],
        });
        expect((await engine.search(search('wal'))).payload.suggestions.queries).toEqual(['walnut desk', 'walnut']);
        await expect(engine.searchReport('w', { limit: 0 })).rejects.toMatchObject({ code: 'EVENT_VALIDATION_FAILED' });
      } finally {
        await engine.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
