import { describe, expect, it } from 'vitest';
import { runInSlices } from './time-slices.js';
import type { Steps } from '../steps.js';

/** `count` steps, each logged as `label` + its number. */
function* logged(log: string[], label: string, count: number): Steps<string> {
  for (let i = 0; i < count; i++) {
    log.push(`${label}${i}`);
    yield;
  }
  return label;
}

describe('runInSlices priorities', () => {
  it('runs a change before the background work waiting for a turn, then the background work', async () => {
    const log: string[] = [];
    // Slices of 0 ms: every step hands the loop a turn.
    const background = runInSlices(logged(log, 'b', 6), 0);
    const change = runInSlices(logged(log, 'c', 4), 0, 'change');
    expect(await Promise.all([background, change])).toEqual(['b', 'c']);
    // The background's first step ran in its caller, before the change started; none after it until the change ended.
    expect(log).toEqual(['b0', 'c0', 'c1', 'c2', 'c3', 'b1', 'b2', 'b3', 'b4', 'b5']);
  });

  it('does not starve background work behind a change that keeps running', async () => {
    const log: string[] = [];
    let backgroundDone = false;
    function* endless(): Steps<void> {
      while (!backgroundDone) yield;
    }
    const change = runInSlices(endless(), 0, 'change');
    await runInSlices(logged(log, 'b', 3), 0);
    backgroundDone = true;
    await change;
    expect(log).toEqual(['b0', 'b1', 'b2']);
  });

  it('gives back the result of the steps and their failure', async () => {
    function* failing(): Steps<void> {
      yield;
      throw new Error('step failed');
    }
    await expect(runInSlices(failing(), 0, 'change')).rejects.toThrow('step failed');
    // The failed change does not hold background work back.
    expect(await runInSlices(logged([], 'b', 3), 0)).toBe('b');
  });
});
