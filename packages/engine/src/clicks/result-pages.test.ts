import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { RETENTION_BATCH } from '../store/store.js';
import { MAX_SPAN, newQueryId, queryIdIssuedAt, spanStarts } from './query-ids.js';
import { CROSS_REPLICA_GRACE_MS, MAX_PENDING_LISTS, MAX_STORED_LISTS_PER_WEBSITE, MIN_RETENTION_DAYS, ResultPages, retentionOf, type AnsweredList } from './result-pages.js';

const list = (websiteId = 'w1', refIds = ['a', 'b', 'c']): AnsweredList => ({
  websiteId, kind: 'search', source: 'red shoes', customerId: null, sessionId: 's', variant: null, firstPosition: 1, refIds,
});

describe('query ids', () => {
  it('carry the time they were issued, signed for their website: nothing else reads as one', () => {
    const id = newQueryId(1_700_000_000_123, 'w1', 'secret');
    expect(queryIdIssuedAt(id, 'w1', 'secret')).toBe(1_700_000_000_123);
    expect(newQueryId(5, 'w1', 'secret')).not.toBe(newQueryId(5, 'w1', 'secret'));
    expect(queryIdIssuedAt(id, 'w2', 'secret')).toBeUndefined();
    expect(queryIdIssuedAt(id, 'w1', 'other secret')).toBeUndefined();
    // Another issue time with the same random part and signature: forged.
    const [, random, mac] = id.split('.');
    expect(queryIdIssuedAt(`${(1_700_000_000_124).toString(36)}.${random}.${mac}`, 'w1', 'secret')).toBeUndefined();
    for (const bad of ['', 'x', '12.short', `${id}x`, 'ZZ.abcdefghijklmnop.abcdefghijk']) expect(queryIdIssuedAt(bad, 'w1', 'secret')).toBeUndefined();
  });
});

describe('ResultPages', () => {
  const open: ResultPages[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });

  function pages(store: MemoryStore, errors: unknown[] = []): ResultPages {
    const p = new ResultPages(store, { attributionWindowDays: () => 30, secretOf: (w) => `secret of ${w}`, websites: () => ['w1', 'w2'], onError: (e) => errors.push(e) });
    open.push(p);
    return p;
  }

  it('finds its own lists at once, only for their website', async () => {
    const mine = pages(new MemoryStore());
    const id = mine.record(list());
    expect([...(await mine.find('w1', [id])).values()]).toMatchObject([{ queryId: id, refIds: ['a', 'b', 'c'], websiteId: 'w1' }]);
    expect((await mine.find('w2', [id])).size).toBe(0);
  });

  it('stores answers of the same list in a row as one list with a span, and finds each of them, in memory and in the store', async () => {
    const store = new MemoryStore();
    let now = 1_700_000_000_000;
    const errors: unknown[] = [];
    const mine = new ResultPages(store, { now: () => now, attributionWindowDays: () => 30, secretOf: (w) => `secret of ${w}`, websites: () => ['w1'], onError: (e) => errors.push(e) });
    open.push(mine);
    const same = Array.from({ length: MAX_SPAN + 2 }, () => mine.record(list()));
    const other = mine.record(list('w1', ['x']));
    const again = mine.record(list());
    const all = [...same, other, again];
    expect(new Set(all).size).toBe(all.length);
    const check = async (from: ResultPages) => {
      const found = await from.find('w1', all);
      expect([...found.keys()]).toEqual(all);
      for (const id of all) expect(found.get(id)).toMatchObject({ queryId: id, refIds: id === other ? ['x'] : ['a', 'b', 'c'] });
      expect([...found.values()].every((page) => page.span === undefined)).toBe(true);
      // The counter after the last answer names no list (asked past the wait for another replica's write).
      now += CROSS_REPLICA_GRACE_MS + 1;
      expect((await from.find('w1', [`${again.slice(0, again.lastIndexOf('.'))}.zz`])).size).toBe(0);
    };
    await check(mine);
    await mine.flush();
    // Stored: one list of MAX_SPAN answers, one of the two left, the other list, the same list again.
    const stored = await store.findResultPages('w1', all);
    expect(stored.map((page) => page.span ?? 1)).toEqual([MAX_SPAN, 2, 1, 1]);
    // Another instance finds every answer in the store.
    const replica = new ResultPages(store, { now: () => now, attributionWindowDays: () => 30, secretOf: (w) => `secret of ${w}`, websites: () => ['w1'], onError: (e) => errors.push(e) });
    open.push(replica);
    await check(replica);
    // A list written takes no more answers: the next same answer starts a list of its own.
    const before = mine.record(list('w1', ['y']));
    await mine.flush();
    const after = mine.record(list('w1', ['y']));
    expect(spanStarts(after)[1]).toBe(before);
    await mine.flush();
    expect((await store.findResultPages('w1', [before, after])).map((page) => page.span ?? 1)).toEqual([1, 1]);
    expect(errors).toEqual([]);
  });

  it('names the ids that may start an answer\'s span, nearest first, within MAX_SPAN', () => {
    const signed = newQueryId(1_700_000_000_000, 'w1', 'secret');
    expect(spanStarts(signed)).toEqual([signed]);
    expect(spanStarts(`${signed}.2`)).toEqual([`${signed}.2`, `${signed}.1`, `${signed}.0`]);
    const far = spanStarts(`${signed}.${(1000).toString(36)}`);
    expect(far).toHaveLength(MAX_SPAN);
    expect(far.at(-1)).toBe(`${signed}.${(1000 - MAX_SPAN + 1).toString(36)}`);
    expect(spanStarts('not an id')).toEqual(['not an id']);
  });

  it('drops a tenth of the queued lists at once when the store has not taken them for too long, and says so once', async () => {
    class AwayStore extends MemoryStore {
      override async addResultPages(): Promise<void> {
        throw new Error('the store is away');
      }
    }
    const errors: unknown[] = [];
    const mine = pages(new AwayStore(), errors);
    // Each list another: none joins another's span.
    for (let i = 0; i <= MAX_PENDING_LISTS + 100; i++) mine.record(list('w1', [`p${i}`]));
    const dropped = errors.filter((e) => /dropped/.test(String(e)));
    expect(dropped).toHaveLength(1);
    expect(String(dropped[0])).toContain(`${MAX_PENDING_LISTS / 10 + 1} result lists were dropped`);
  });

  it('finds a list another instance (replica) answered a moment ago, once that one has written it', async () => {
    const store = new MemoryStore();
    const replicaA = pages(store);
    const replicaB = pages(store);
    const id = replicaA.record(list());
    // Asked at once: B does not hold it and the store may not have it yet; B waits for A's write.
    const forged = newQueryId(Date.now(), 'w1', 'a guessed secret');
    const found = await replicaB.find('w1', [id, 'never-issued', forged]);
    expect([...found.keys()]).toEqual([id]);
  });

  it('writes what is queued at close, and a closed store\'s failure is reported, not thrown', async () => {
    const store = new MemoryStore();
    const errors: unknown[] = [];
    const first = pages(store, errors);
    const id = first.record(list('w2'));
    await first.close();
    expect((await store.findResultPages('w2', [id])).map((p) => p.queryId)).toEqual([id]);
    await store.close();
    const second = pages(store, errors);
    second.record(list());
    await second.flush();
    await second.prune();
    expect(errors.map((e) => (e as Error).message)).toEqual(['store is closed', 'store is closed']);
  });

  it('prunes the expired lists of every website in batches until none is left', async () => {
    const store = new MemoryStore();
    const calls: number[] = [];
    const prune = store.pruneResultPages.bind(store);
    store.pruneResultPages = async (retention, limit) => {
      const deleted = await prune(retention, limit);
      calls.push(deleted);
      return deleted;
    };
    const old = Date.now() - 40 * 86_400_000;
    const expired = Array.from({ length: 2 * RETENTION_BATCH + 10 }, (_, i) => ({ ...list(i % 2 === 0 ? 'w1' : 'w2'), queryId: `old-${i}`, createdAt: old }));
    await store.addResultPages([...expired, { ...list(), queryId: 'fresh', createdAt: Date.now() }]);
    await pages(store).prune();
    // At most a batch per website and transaction: two full passes, then the rest.
    expect(calls).toEqual([2 * RETENTION_BATCH, 10]);
    expect((await store.findResultPages('w1', ['old-0', 'fresh'])).map((p) => p.queryId)).toEqual(['fresh']);
    expect((await store.findResultPages('w2', ['old-1'])).length).toBe(0);
  });

  it('keeps each website\'s lists for its attribution window (at least a day) and at most the cap', () => {
    const now = Date.UTC(2026, 10, 29);
    expect(retentionOf('w1', 30, now)).toEqual({ websiteId: 'w1', before: now - 30 * 86_400_000, keep: MAX_STORED_LISTS_PER_WEBSITE });
    expect(retentionOf('w1', 0, now).before).toBe(now - MIN_RETENTION_DAYS * 86_400_000);
  });
});
