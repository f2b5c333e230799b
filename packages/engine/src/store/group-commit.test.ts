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
});
