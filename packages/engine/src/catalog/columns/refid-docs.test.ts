import { describe, expect, it } from 'vitest';
import { Dictionary } from './dictionary.js';
import { RefIdDocs } from './refid-docs.js';

describe('RefIdDocs', () => {
  it('finds the latest live doc of a refId a version sees', () => {
    const refIds = Dictionary.empty().writer();
    for (const r of ['a', 'b', 'c']) refIds.add(r);
    const v1 = new RefIdDocs(refIds.dictionary(), undefined, 3);
    // b changed (doc 1 tombstoned, appended again as doc 3), c deleted (doc 2).
    const deleted = new Uint32Array(1);
    deleted[0] = (1 << 1) | (1 << 2);
    const w2 = refIds.dictionary().writer();
    w2.add('b');
    const v2 = new RefIdDocs(w2.dictionary(), deleted, 2);
    expect(['a', 'b', 'c', 'd'].map((r) => v1.get(r))).toEqual([0, 1, 2, undefined]);
    expect(['a', 'b', 'c', 'd'].map((r) => v2.get(r))).toEqual([0, 3, undefined, undefined]);
    expect([...v2.entries()]).toEqual([['a', 0], ['b', 3]]);
    expect(v2.has('c')).toBe(false);
  });
});
