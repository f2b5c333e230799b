import { describe, expect, it } from 'vitest';
import { profileTimeline, type CpuProfile } from './cpu-profile-summary.js';

const frame = (functionName: string, url = ''): CpuProfile['nodes'][number]['callFrame'] => ({ functionName, url, lineNumber: 0 });

describe('profileTimeline', () => {
  it("names a sliced runner's samples by the engine frames under its slice loop, and joins consecutive ones", () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 5] },
        { id: 2, callFrame: frame('runSlices', 'file:///e/engine/src/time-slices.ts'), children: [3] },
        { id: 3, callFrame: frame('steps', 'file:///e/engine/src/background-build.ts'), children: [4] },
        { id: 4, callFrame: frame('set', 'file:///e/engine/src/background-build.ts') },
        { id: 5, callFrame: frame('(garbage collector)') },
      ],
      // Samples at 1000, 2000, 3000, 4000 µs; the first is before the window.
      samples: [4, 4, 4, 5, 4],
      timeDeltas: [1000, 1000, 1000, 1000, 1000],
      startTime: 0,
    };
    const runs = profileTimeline(profile, { fromUs: 1500, toUs: 10_000 });
    expect(runs.map((r) => r.label)).toEqual([
      'slice: steps@background-build:1 > set@background-build:1 | set@background-build:1',
      '(garbage collector)',
      'slice: steps@background-build:1 > set@background-build:1 | set@background-build:1',
    ]);
    expect(runs.map((r) => [r.atMs, r.ms])).toEqual([[0.5, 2], [2.5, 1], [3.5, 0]]);
  });
});
