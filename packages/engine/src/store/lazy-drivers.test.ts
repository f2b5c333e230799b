import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PROBE = fileURLToPath(new URL('./__tests__/driver-probe.ts', import.meta.url));

/** The store drivers a fresh process has loaded after the probe ran with `store`. */
function driversLoaded(store: 'none' | 'memory' | 'embedded'): string[] {
  const out = execFileSync(process.execPath, ['--import', 'tsx', PROBE, store], { cwd: REPO_ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('store drivers are loaded only when their store is opened', () => {
  it('importing @aisle/engine loads neither better-sqlite3 nor pg', () => {
    expect(driversLoaded('none')).toEqual([]);
  });

  it('a memory-store engine loads neither', () => {
    expect(driversLoaded('memory')).toEqual([]);
  });

  it('an embedded-store engine loads better-sqlite3 (the probe sees a loaded driver) and not pg', () => {
    expect(driversLoaded('embedded')).toEqual(['better-sqlite3']);
  });
});
