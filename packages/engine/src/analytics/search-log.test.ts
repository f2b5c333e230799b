import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createEngine } from '../engine.js';
import { MemoryStore } from '../store/memory-store.js';
import type { AnalyticsBatch } from '../store/store.js';
import { hourOf } from '../store/analytics-rows.js';
import { DEFAULT_SUGGESTION_SETTINGS } from './analytics-settings.js';
import { CHAIN_WINDOW_MS } from './search-chains.js';
import { FLUSH_AT_ENTRIES, MAX_LOGGED_QUERY_LENGTH, MAX_PENDING_ROWS, SearchLog, logQuery } from './search-log.js';
import { buildCatalogState } from '../catalog/build/build-catalog-state.js';

const rethrow = (err: unknown) => { throw err; };
const emptyCatalog = buildCatalogState([], { catalogId: 'empty', version: 0 });
const settings = (minSessions = 3, exclude: string[] = []) => ({ ...DEFAULT_SUGGESTION_SETTINGS, minSessions, exclude });

/** A log on a memory store with a clock the test moves. */
function clockedLog(store = new MemoryStore(), onError: (err: unknown) => void = rethrow) {
  const clock = { now: Date.UTC(2026, 0, 5, 10) };
  const log = new SearchLog(store, { now: () => clock.now, onError });
  let n = 0;
  const search = (q: string, session: string | undefined, totalResults = 3) => {
    const queryId = `q${++n}`;
    log.record('w', { queryId, q, session, totalResults });
    return queryId;
  };
  return { store, clock, log, search };
}

/** A memory store whose first analytics write fails; the later ones are kept (cloned) in `writes`. */
function failingOnce() {
  const writes: AnalyticsBatch[] = [];
  let fail = true;
  class FlakyStore extends MemoryStore {
    override async writeAnalytics(batch: AnalyticsBatch): Promise<number[]> {
      if (fail) { fail = false; throw new Error('disk full'); }
      writes.push(structuredClone(batch));
      return super.writeAnalytics(batch);
    }
  }
  return { store: new FlakyStore(), writes };
}

describe('SearchLog', () => {
  it('batches into one write per flush and keeps the batch when the store fails', async () => {
    const { store, writes } = failingOnce();
    const errors: unknown[] = [];
    const { log, search, clock } = clockedLog(store, (err) => errors.push(err));
    search('Red Shoe', undefined, 4);
    search('red shoe', undefined, 6);
    search('nothing here', undefined, 0);
    await log.flush();
    expect(errors).toHaveLength(1);
    search('red  shoe', undefined, 2);
    clock.now += 1_000;
    await log.flush();
    expect(writes).toHaveLength(1);
    const report = await log.report('w', {});
    expect(report.top.map((t) => [t.query, t.count, t.avgResults])).toEqual([['red shoe', 3, 4], ['nothing here', 1, 0]]);
    expect(report.noResults).toEqual([{ query: 'nothing here', count: 1 }]);
    expect(report.noClicks).toEqual([{ query: 'red shoe', count: 3 }]);
    await log.close();
  });

  it('says how many entries it dropped when the store failed past the pending bound', async () => {
    class DownStore extends MemoryStore {
      override async writeAnalytics(): Promise<number[]> {
        throw new Error('the store is away');
      }
    }
    const errors: string[] = [];
    const { log, search } = clockedLog(new DownStore(), (err) => errors.push((err as Error).message));
    // The oldest entries past the bound were dropped with nothing but the write's failure said.
    for (let i = 0; i <= MAX_PENDING_ROWS; i++) search('red shoe', undefined, 1);
    await log.flush();
    // Every write failed (one per FLUSH_AT_ENTRIES entries, and the last); the drop is said once, with its count.
    expect(errors.filter((e) => e === 'the store is away').length).toBeGreaterThan(0);
    const dropped = errors.filter((e) => e.startsWith('the search log dropped'));
    expect(dropped).toEqual([expect.stringMatching(new RegExp(`^the search log dropped its \\d+ oldest pending entries: the store failed for longer than ${MAX_PENDING_ROWS} entries`))]);
  });

  it('counts a search-as-you-type chain once, as its last query, and its clicks with it', async () => {
    const { store, log, search, clock } = clockedLog();
    const ids = ['w', 'wa', 'war', 'wardrobe'].map((q) => { clock.now += 400; return search(q, 'shopper-1'); });
    clock.now += 1_000;
    search('wardrobe', undefined, 2); // no session: a search of its own
    // A click on the results shown for "wa" belongs to the chain's search; so does a purchase.
    log.recordClickOutcome({ websiteId: 'w', at: clock.now, kind: 'search', queryId: ids[1], key: 'wa', position: 3, type: 'click' });
    log.recordClickOutcome({ websiteId: 'w', at: clock.now, kind: 'search', queryId: ids[3], key: 'wardrobe', position: 1, type: 'click' });
    log.recordClickOutcome({ websiteId: 'w', at: clock.now, kind: 'search', queryId: ids[3], key: 'wardrobe', type: 'addToCart' });
    log.recordConversion({ websiteId: 'w', at: clock.now, kind: 'search', queryId: ids[3], key: 'wardrobe', revenue: 99.5 });
    await log.flush(); // the chain is still open: only the search without a session is counted, the outcomes wait
    const [counted] = await store.rollupTotals('w', 'search', { fromHour: 0, toHour: clock.now });
    expect(counted!.counters).toMatchObject({ responses: 1, results: 2, clicks: 0 });
    clock.now += CHAIN_WINDOW_MS + 1;
    await log.flush();
    const report = await log.report('w', {});
    expect(report.top).toEqual([{
      query: 'wardrobe', count: 2, avgResults: 2.5, clicks: 2, ctr: 0.5, avgClickPosition: 2, conversions: 1, conversionRate: 0.5, revenue: 99.5,
    }]);
    expect(report.noClicks).toEqual([{ query: 'wardrobe', count: 1 }]);
    await log.close();
  });

  it('reports recommendation responses served, their items per tactic and their clicks', async () => {
    const { log, clock } = clockedLog();
    log.recordServed('w', { queryId: 'r1', method: 'ViewedTogether', tactics: ['Viewed With', 'Viewed With', 'Popular Items'] });
    log.recordServed('w', { queryId: 'r2', method: 'ViewedTogether', tactics: ['Viewed With'] });
    log.recordServed('w', { queryId: 'r3', method: 'ViewedTogether', tactics: [] });
    for (const tactic of ['Viewed With', 'Popular Items']) {
      log.recordClickOutcome({ websiteId: 'w', at: clock.now, kind: 'recommendation', queryId: 'r1', key: 'ViewedTogether', tactic, type: 'click' });
    }
    log.recordConversion({ websiteId: 'w', at: clock.now, kind: 'recommendation', queryId: 'r1', key: 'ViewedTogether', tactic: 'Viewed With', revenue: 20 });
    expect((await log.recommendationReport('w', {})).methods).toEqual([{
      method: 'ViewedTogether', served: 2, items: 4, clicks: 2, ctr: 0.5, conversions: 1, revenue: 20, tactics: [
        { tactic: 'Viewed With', items: 3, clicks: 1, ctr: 1 / 3, conversions: 1, revenue: 20 },
        { tactic: 'Popular Items', items: 1, clicks: 1, ctr: 1, conversions: 0, revenue: 0 },
      ],
    }]);
    await expect(log.recommendationReport('w', { from: 'yesterday' })).rejects.toMatchObject({ code: 'EVENT_VALIDATION_FAILED' });
    await log.close();
  });

  it('completes from queries searched with results in enough distinct sessions, never from personal data or excluded words', async () => {
    const { store, log, search, clock } = clockedLog();
    for (const session of ['a', 'b', 'c']) {
      search('walnut desk', session);
      search('walnut chair', session);
      search('walnut shelf', session, 0); // found nothing
      search('walnut john@example.com', session);
      search('walnut 0612345678', session);
      clock.now += CHAIN_WINDOW_MS + 1;
    }
    for (let i = 0; i < 50; i++) search('walnut spam', i % 2 === 0 ? 'one-session' : undefined); // one session, and none
    search('walnut table', 'a');
    search('walnut table', 'b');
    await log.flush(true);
    const complete = (s = settings()) => log.suggestions('w', 'walnut', emptyCatalog, s);
    expect(await complete()).toEqual(['walnut chair', 'walnut desk']);
    expect(await complete(settings(2))).toEqual(['walnut chair', 'walnut desk', 'walnut table']);
    expect(await complete(settings(1))).toEqual(['walnut chair', 'walnut desk', 'walnut table', 'walnut spam']);
    expect(await complete(settings(2, ['DESK', 'Walnut  Table', 'chai']))).toEqual(['walnut chair']); // whole words: "chai" is not "chair"
    expect(await log.suggestions('w', 'walnut', emptyCatalog, settings(), async (q) => q !== 'walnut chair')).toEqual(['walnut desk']);
    // The path without a scope test (a search's, on its own turn) offers what the checked path offers when every candidate passes.
    for (const s of [settings(), settings(1), settings(2, ['DESK'])]) {
      expect(log.suggestionsNow('w', 'walnut', emptyCatalog, s)).toEqual(await log.suggestions('w', 'walnut', emptyCatalog, s, async () => true));
    }
    // Loaded again from the store (a restart): the same evidence.
    const again = new SearchLog(store, { onError: rethrow });
    await again.load('w');
    expect(await again.suggestions('w', 'walnut', emptyCatalog, settings(2))).toEqual(['walnut chair', 'walnut desk', 'walnut table']);
    await Promise.all([log.close(), again.close()]);
  });

  it('refreshes its completions from a store shared with another replica', async () => {
    const store = new MemoryStore();
    const one = new SearchLog(store, { onError: rethrow });
    const two = new SearchLog(store, { onError: rethrow });
    await two.load('w');
    two.record('w', { queryId: 't1', q: 'walnut shelf', session: 's1', totalResults: 2 });
    await two.flush(true);
    one.record('w', { queryId: 'o1', q: 'walnut desk', session: 's2', totalResults: 3 });
    one.record('w', { queryId: 'o2', q: 'walnut desk', session: 's3', totalResults: 3 });
    await one.flush(true);
    const complete = () => two.suggestions('w', 'wal', emptyCatalog, settings(1));
    expect(await complete()).toEqual(['walnut shelf']);
    two.startRefreshing(() => ['w'], 10);
    await vi.waitFor(async () => expect(await complete()).toEqual(['walnut desk', 'walnut shelf']), { timeout: 5_000, interval: 10 });
    await Promise.all([one.close(), two.close()]);
  });

  it('starts a write at once when a burst fills the batch, without waiting for the timer', async () => {
    const written: number[] = [];
    class CountingStore extends MemoryStore {
      override async writeAnalytics(batch: AnalyticsBatch): Promise<number[]> {
        written.push(batch.responses.length);
        return super.writeAnalytics(batch);
      }
    }
    const { log } = clockedLog(new CountingStore());
    // The timer cannot fire: only the batch's size can start the write.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // Each click on a recommendation adds itself and the response it names (logged by its first
      // outcome); a served response adds only to its two roll-up rows, which add up with the others'.
      for (let i = 0; i < 100; i++) log.recordServed('w', { queryId: `r${i}`, method: 'PopularItems', tactics: ['Popular Items'] });
      const burst = (FLUSH_AT_ENTRIES - 2) / 2;
      for (let i = 0; i < burst; i++) log.recordClickOutcome({ websiteId: 'w', at: 0, kind: 'recommendation', key: 'PopularItems', queryId: `r${i}`, type: 'click' });
      for (let i = 0; i < 10; i++) await Promise.resolve();
      expect(written).toEqual([burst]);
    } finally {
      vi.useRealTimers();
    }
    await log.close();
  });

  it('adds up the roll-up deltas of one row as they are logged, also across a failed write', async () => {
    const { store, writes } = failingOnce();
    const errors: unknown[] = [];
    const { log, clock } = clockedLog(store, (err) => errors.push(err));
    const serve = (i: number, tactics: string[], method = 'PopularItems') => log.recordServed('w', { queryId: `r${i}`, method, tactics });
    serve(1, ['Popular Items', 'Popular Items', 'Bought Together']);
    serve(2, ['Popular Items']);
    serve(3, ['Popular Items'], 'ProductDetail');
    await log.flush();
    expect(errors).toHaveLength(1);
    // After the failed write: the kept deltas and the new ones of the same rows still add up.
    serve(4, ['Bought Together']);
    clock.now += 3_600_000;
    serve(5, ['Popular Items']);
    await log.flush();
    expect(writes).toHaveLength(1);
    const rows = writes[0]!.rollups.map((d) => [d.key, d.tactic, d.hour - writes[0]!.rollups[0]!.hour, d.counters]);
    expect(rows).toEqual([
      ['PopularItems', '', 0, { responses: 3, results: 5 }],
      ['PopularItems', 'Popular Items', 0, { results: 3 }],
      ['PopularItems', 'Bought Together', 0, { results: 2 }],
      ['ProductDetail', '', 0, { responses: 1, results: 1 }],
      ['ProductDetail', 'Popular Items', 0, { results: 1 }],
      ['PopularItems', '', 3_600_000, { responses: 1, results: 1 }],
      ['PopularItems', 'Popular Items', 3_600_000, { results: 1 }],
    ]);
    // Served recommendations log no response of their own (decision 0091): a click logs the one it names.
    expect(writes[0]!.responses).toEqual([]);
    await log.close();
  });

  it('logs a recommendation response with its first outcome, in the hour its id was issued, and counts its click once', async () => {
    const store = new MemoryStore();
    const { log, clock } = clockedLog(store);
    const issued = clock.now - 60_000;
    // An id as the engine issues them: its time (ms, base 36) first.
    const queryId = `${issued.toString(36)}.AAAAAAAAAAAAAAAA.BBBBBBBBBBB.3`;
    const experiment = { id: 'x1', variant: 'B', customerId: 'c1' };
    log.recordServed('w', { queryId, method: 'PopularItems', tactics: ['Popular Items'], experiment });
    await log.flush();
    const click = { websiteId: 'w', at: clock.now, kind: 'recommendation' as const, key: 'PopularItems', queryId, tactic: 'Popular Items', type: 'click' as const, experiment };
    log.recordClickOutcome(click);
    log.recordClickOutcome(click);
    await log.flush();
    // The id's hour (09:00), not the answer's (10:00): served and clicked count in the same row.
    const window = { fromHour: hourOf(issued), toHour: hourOf(issued) };
    const [method] = (await store.rollupTotals('w', 'recommendation', window)).filter((t) => t.tactic === '');
    expect(method).toMatchObject({ key: 'PopularItems', counters: { responses: 1, clicks: 2, clicked: 1 } });
    const [user] = (await store.rollupTotals('w', 'experiment:x1', window)).filter((t) => t.tactic === '');
    expect(user).toMatchObject({ key: 'B\u001fc1', counters: { responses: 1, clicks: 2, clicked: 1 } });
    await log.close();
  });

  it('counts responses like the last one in the same rows, and never in a batch already written', async () => {
    const { store, writes } = failingOnce();
    const errors: unknown[] = [];
    const { log, clock } = clockedLog(store, (err) => errors.push(err));
    const serve = (websiteId: string, i: number, tactics: string[], method = 'PopularItems') => log.recordServed(websiteId, { queryId: `${websiteId}${i}`, method, tactics });
    serve('w', 1, ['Popular Items', 'Popular Items']);
    serve('w', 2, ['Popular Items', 'Popular Items']);
    serve('v', 3, ['Popular Items', 'Popular Items']);
    serve('w', 4, ['Popular Items', 'Popular Items']);
    await log.flush();
    expect(errors).toHaveLength(1);
    // After the failed write the kept rows are indexed anew: a response like the last adds to them.
    serve('w', 5, ['Popular Items', 'Popular Items']);
    await log.flush();
    // Written: a response like the last one starts new rows of the next batch.
    serve('w', 6, ['Popular Items', 'Popular Items']);
    serve('w', 7, ['Popular Items', 'Popular Items']);
    serve('w', 8, ['Popular Items', 'Bought Together']);
    clock.now += 3_600_000;
    serve('w', 9, ['Popular Items', 'Bought Together']);
    await log.flush();
    expect(writes).toHaveLength(2);
    const rowsOf = (batch: AnalyticsBatch) => batch.rollups.map((d) => [d.websiteId, d.key, d.tactic, d.hour - writes[0]!.rollups[0]!.hour, d.counters]);
    expect(rowsOf(writes[0]!)).toEqual([
      ['w', 'PopularItems', '', 0, { responses: 4, results: 8 }],
      ['w', 'PopularItems', 'Popular Items', 0, { results: 8 }],
      ['v', 'PopularItems', '', 0, { responses: 1, results: 2 }],
      ['v', 'PopularItems', 'Popular Items', 0, { results: 2 }],
    ]);
    expect(rowsOf(writes[1]!)).toEqual([
      ['w', 'PopularItems', '', 0, { responses: 3, results: 6 }],
      ['w', 'PopularItems', 'Popular Items', 0, { results: 5 }],
      ['w', 'PopularItems', 'Bought Together', 0, { results: 1 }],
      ['w', 'PopularItems', '', 3_600_000, { responses: 1, results: 2 }],
      ['w', 'PopularItems', 'Popular Items', 3_600_000, { results: 1 }],
      ['w', 'PopularItems', 'Bought Together', 3_600_000, { results: 1 }],
    ]);
    expect((await log.recommendationReport('w', {})).methods).toMatchObject([{ method: 'PopularItems', served: 8, items: 16 }]);
    await log.close();
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
    const search = (q: string, session_id?: string) => ({ website_id: 'w', client: 'c', q, start: 0, ...(session_id && { session_id }) });
    try {
      let engine = await createEngine({ dataDir: dir, workers: 0, websites: [site] });
      await engine.upsertProducts('w', [{ refId: 'a', title: 'Walnut desk' }, { refId: 'b', title: 'Walnut shelf' }]);
      for (const session of ['s1', 's2', 's3']) await engine.search(search('walnut desk', session));
      await engine.search(search('oak'));
      await engine.close();
      engine = await createEngine({ dataDir: dir, workers: 0, websites: [site] });
      try {
        const report = await engine.searchReport('w');
        expect(report.top.map((t) => [t.query, t.count, t.avgResults])).toEqual([['walnut desk', 3, 1], ['oak', 1, 0]]);
        expect(report.noResults).toEqual([{ query: 'oak', count: 1 }]);
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
