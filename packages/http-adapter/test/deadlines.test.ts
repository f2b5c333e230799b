import { describe, expect, it } from 'vitest';
import { Deadlines, sweepPeriodMs, type DeadlineLinks } from '../src/deadlines.js';

interface Request extends DeadlineLinks<Request> { name: string }
const request = (name: string): Request => ({ name, deadlineAt: undefined, deadlinePrev: undefined, deadlineNext: undefined });

describe('Deadlines (the handler timeout)', () => {
  it('expires the requests past their deadline, in arrival order, each once; a disarmed one never', () => {
    let now = 0;
    const expired: string[] = [];
    const deadlines = new Deadlines<Request>(100, (r) => expired.push(r.name), () => now);
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(request) as [Request, Request, Request, Request, Request];
    deadlines.arm(a);
    now = 10;
    deadlines.arm(b);
    deadlines.arm(c);
    // Armed twice: the first deadline holds.
    now = 20;
    deadlines.arm(b);
    now = 40;
    deadlines.arm(d);
    deadlines.arm(e);
    deadlines.disarm(c);
    deadlines.disarm(e);
    // Disarmed twice, or never armed: nothing.
    deadlines.disarm(e);
    deadlines.disarm(request('never'));
    expect(deadlines.size).toBe(3);
    now = 109;
    deadlines.sweep();
    expect(expired).toEqual(['a']);
    now = 110;
    deadlines.sweep();
    expect(expired).toEqual(['a', 'b']);
    now = 1000;
    deadlines.sweep();
    deadlines.sweep();
    expect(expired).toEqual(['a', 'b', 'd']);
    expect(deadlines.size).toBe(0);
  });

  it('answers a request that never ends within the timeout plus one sweep period, by the clock', async () => {
    const expired: number[] = [];
    const started = performance.now();
    const deadlines = new Deadlines<Request>(40, () => expired.push(performance.now() - started));
    const [first, second] = [request('1'), request('2')];
    deadlines.arm(first);
    deadlines.arm(second);
    deadlines.disarm(second);
    await new Promise((resolve) => setTimeout(resolve, 40 + sweepPeriodMs(40) + 50));
    expect(expired).toHaveLength(1);
    expect(expired[0]).toBeGreaterThanOrEqual(40);
    expect(deadlines.size).toBe(0);
  });

  it('sweeps at a quarter of the timeout, between 5 ms and a second', () => {
    expect(sweepPeriodMs(30_000)).toBe(1000);
    expect(sweepPeriodMs(200)).toBe(50);
    expect(sweepPeriodMs(8)).toBe(5);
  });
});
