import { describe, expect, it } from 'vitest';
import { backgroundIdle, backgroundRunning, runInSlices } from './time-slices.js';
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
    // Background work waited for a turn of its own (never its caller's), and the change had begun by then.
    expect(log).toEqual(['c0', 'c1', 'c2', 'c3', 'b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
  });

  it("lets a change's caller go on before any background slice runs", async () => {
    const log: string[] = [];
    const background = runInSlices(logged(log, 'b', 3), 0);
    // What a caller does on hearing its change is done (answer, search it) runs in the publishing turn.
    const change = runInSlices(logged(log, 'c', 2), 0, 'change').then(() => log.push('caller'));
    await Promise.all([background, change]);
    expect(log).toEqual(['c0', 'c1', 'caller', 'b0', 'b1', 'b2']);
  });

  it('does not starve background work behind a change that keeps running', async () => {
    const log: string[] = [];
    let backgroundDone = false;
    function* endless(): Steps<void> {
      while (!backgroundDone) yield;
    }
    const change = runInSlices(endless(), 0, 'change');
    // Two runners: when the deferred work falls due, each runner waiting gets a slice, one per turn.
    await Promise.all([runInSlices(logged(log, 'a', 3), 0), runInSlices(logged(log, 'b', 3), 0)]);
    backgroundDone = true;
    await change;
    expect(log).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
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

describe('runInSlices turns', () => {
  it('lets one background slice through per turn of the event loop, however many runners wait', async () => {
    // A chain of setImmediate turns beside four background runners and a change: between two of its
    // ticks, at most one background slice and one of the change may run. Each runner's slices, each
    // one step here (slices of 0 ms), record the tick they ran after.
    let ticks = 0;
    let watching = true;
    const tick = (): void => {
      ticks++;
      if (watching) setImmediate(tick);
    };
    setImmediate(tick);
    const slicesAfterTick = new Map<number, number>();
    function* recorded(steps: number): Steps<void> {
      for (let i = 0; i < steps; i++) {
        slicesAfterTick.set(ticks, (slicesAfterTick.get(ticks) ?? 0) + 1);
        yield;
      }
    }
    const runners = [0, 1, 2, 3].map(() => runInSlices(recorded(20), 0));
    runners.push(runInSlices(recorded(20), 0, 'change'));
    await Promise.all(runners);
    watching = false;
    // The change's first slice runs in its caller, in this turn; every other slice in a turn of its own.
    expect(slicesAfterTick.get(0)).toBe(1);
    slicesAfterTick.delete(0);
    expect(Math.max(...slicesAfterTick.values())).toBeLessThanOrEqual(2);
    expect([...slicesAfterTick.values()].reduce((a, b) => a + b, 0)).toBe(5 * 20 - 1);
  });
});

describe('backgroundIdle', () => {
  it('resolves after the background work running, and after the work its end starts; not for a change', async () => {
    const log: string[] = [];
    // A run whose end starts another in its continuation (a rebuild queued behind it).
    const chained = runInSlices(logged(log, 'a', 3), 0).then(() => runInSlices(logged(log, 'b', 3), 0));
    expect(backgroundRunning()).toBe(true);
    await backgroundIdle();
    log.push('idle');
    await chained;
    expect(log).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2', 'idle']);
    expect(backgroundRunning()).toBe(false);
    // A change is not background work: idle does not wait for it.
    let changeDone = false;
    const change = runInSlices(logged(log, 'c', 50), 0, 'change').then(() => { changeDone = true; });
    await backgroundIdle();
    expect(changeDone).toBe(false);
    await change;
  });

  it('counts a failed run as ended', async () => {
    function* failing(): Steps<void> {
      yield;
      throw new Error('broken');
    }
    await expect(runInSlices(failing(), 0)).rejects.toThrow('broken');
    expect(backgroundRunning()).toBe(false);
    await backgroundIdle();
  });
});
