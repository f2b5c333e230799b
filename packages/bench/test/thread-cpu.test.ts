import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { threadCpuOf } from '../src/http/thread-cpu.js';

describe('threadCpuOf', () => {
  it.runIf(process.platform === 'linux')('reads the main thread and the other threads of a process', () => {
    const threads = threadCpuOf(process.pid);
    expect(Object.keys(threads)).toContain('main');
    // V8 and libuv run threads beside the main one in every Node process.
    expect(Object.keys(threads).filter((name) => /^t\d+$/.test(name)).length).toBeGreaterThan(0);
    for (const us of Object.values(threads)) expect(Number.isInteger(us) && us >= 0).toBe(true);
  });

  it('reads nothing of a process that is gone', () => {
    const gone = spawnSync(process.execPath, ['-e', '0']);
    expect(gone.status).toBe(0);
    expect(threadCpuOf(gone.pid!)).toEqual({});
  });
});
