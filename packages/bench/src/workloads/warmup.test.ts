import { describe, expect, it } from 'vitest';
import { loadDataset } from '../datasets.js';
import { buildWarmupWorkload, buildWorkload } from './index.js';

describe('buildWarmupWorkload', () => {
  it('leaves out every timed query, however long the warm-up', async () => {
    const sample = await loadDataset({ kind: 'generated', count: 2_000, seed: 1 });
    const timed = buildWorkload(sample, 200);
    const plain = buildWarmupWorkload(sample, 3_000);
    const warmup = buildWarmupWorkload(sample, 3_000, timed);
    let dropped = 0;
    for (const type of Object.keys(timed) as (keyof typeof timed)[]) {
      const asked = new Set(timed[type].map((q) => JSON.stringify(q)));
      expect(warmup[type].filter((q) => asked.has(JSON.stringify(q)))).toEqual([]);
      // Only the timed ones go: the rest of the warm-up is kept in its order.
      expect(warmup[type]).toEqual(plain[type].filter((q) => !asked.has(JSON.stringify(q))));
      dropped += plain[type].length - warmup[type].length;
    }
    // A warm-up of 3,000 a type draws some timed queries again (the case this guards).
    expect(dropped).toBeGreaterThan(0);
  });
});
