import { describe, expect, it } from 'vitest';
import { GroupCommitter } from './group-commit.js';

describe('GroupCommitter', () => {
  it('commits concurrent submissions in one batch and resolves none before the commit', async () => {
    const batches: number[][] = [];
    let committed = false;
    const resolvedBeforeCommit: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const gc = new GroupCommitter<number, string>(async (ops) => {
      batches.push(ops);
      await gate;
      committed = true;
      return ops.map((n) => `ok-${n}`);
    });
    const promises = [1, 2, 3].map((n) => gc.submit(n).then((r) => {
      if (!committed) resolvedBeforeCommit.push(n);
      return r;
    }));
    await new Promise((r) => setImmediate(r));
    // Submitted while the first batch is committing: waits for the next batch.
    const late = gc.submit(4);
    release();
    expect(await Promise.all(promises)).toEqual(['ok-1', 'ok-2', 'ok-3']);
    expect(await late).toBe('ok-4');
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(resolvedBeforeCommit).toEqual([]);
  });

  it('retries each op of a failed batch alone so one bad op does not fail its neighbours', async () => {
    const gc = new GroupCommitter<number, number>((ops) => {
      if (ops.includes(13)) throw new Error('bad op');
      return ops.map((n) => n * 2);
    });
    const results = await Promise.allSettled([1, 13, 3].map((n) => gc.submit(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([2, 'rejected', 6]);
    await gc.flush();
  });

  it('caps the batch size', async () => {
    const sizes: number[] = [];
    const gc = new GroupCommitter<number, number>((ops) => { sizes.push(ops.length); return ops; }, 4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => gc.submit(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('with two batches in flight, splits a large first batch, hands over the next before the first settles, and flush waits for both', async () => {
    const batches: number[][] = [];
    const gates: (() => void)[] = [];
    const gc = new GroupCommitter<number, number>(async (ops) => {
      batches.push(ops);
      await new Promise<void>((r) => gates.push(r));
      return ops;
    }, 2000, 2);
    const all = Array.from({ length: 40 }, (_, i) => gc.submit(i));
    await new Promise((r) => setImmediate(r));
    // Both halves were handed over although neither has committed.
    expect(batches.map((b) => b.length)).toEqual([20, 20]);
    let flushed = false;
    const flushing = gc.flush().then(() => { flushed = true; });
    gates.shift()!();
    await all[0];
    expect(flushed).toBe(false);
    gates.shift()!();
    await flushing;
    expect(await Promise.all(all)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});
