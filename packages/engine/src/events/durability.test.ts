import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite-store.js';
import { lineReader, spawnTs } from './__tests__/child-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the durability child `iterations` times with the arguments of `argsOf(it)`, killing it with
 * SIGKILL once it has printed `killAfter(it)` acknowledgements (requests still in flight); returns
 * every acknowledged id.
 */
async function killMidStream(iterations: number, argsOf: (it: number) => string[], killAfter: (it: number) => number): Promise<Set<string>> {
  const acknowledged = new Set<string>();
  for (let it = 0; it < iterations; it++) {
    const child = spawnTs('./durability-child.ts', argsOf(it));
    const reader = lineReader(child);
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await reader.waitFor(() => reader.lines.length >= killAfter(it));
    child.kill('SIGKILL');
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    for (const line of reader.lines) if (line !== '') acknowledged.add(line);
  }
  return acknowledged;
}

describe('durability on SQLite', () => {
  it('keeps every acknowledged click exactly once per clickId when the process is killed mid-stream', async () => {
    const clickDir = path.join(dir, 'clicks');
    const iterations = 3;
    const acknowledged = await killMidStream(iterations,
      (it) => [clickDir, `c${it}`, `c${Math.max(0, it - 1)}`, it === 0 ? '0' : '10', 'clicks'], (it) => 30 + it * 23);
    const store = SqliteStore.open({ file: path.join(clickDir, 'aisle.sqlite') });
    try {
      const stored: string[] = [];
      for (let after = 0; ;) {
        const page = await store.readClicks('site-a', after, 5000);
        for (const c of page) stored.push(c.click.clickId!);
        if (page.length < 5000) break;
        after = page.at(-1)!.seq;
      }
      expect(new Set(stored).size).toBe(stored.length);
      expect([...acknowledged].filter((id) => !stored.includes(id))).toEqual([]);
      expect(acknowledged.size).toBeGreaterThan(iterations * 30);
    } finally {
      await store.close();
    }
  });

  it('keeps every acknowledged order exactly once when the process is killed mid-stream', async () => {
    const iterations = 4;
    // Kill after a varying number of acknowledgements, while requests are in flight.
    const acknowledged = await killMidStream(iterations, (it) => [dir, `it${it}`, `it${Math.max(0, it - 1)}`, it === 0 ? '0' : '10'], (it) => 40 + it * 37);
    const store = SqliteStore.open({ file: path.join(dir, 'aisle.sqlite') });
    try {
      const stored: string[] = [];
      for (let after = 0; ;) {
        const page = await store.readEvents({ afterSeq: after, limit: 5000, kind: 'purchase' });
        for (const e of page) if (e.kind === 'purchase') stored.push(e.purchase.orderId);
        if (page.length < 5000) break;
        after = page.at(-1)!.seq;
      }
      const counts = new Map<string, number>();
      for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const missing = [...acknowledged].filter((id) => !counts.has(id));
      expect(missing).toEqual([]);
      expect(acknowledged.size).toBeGreaterThan(iterations * 40);
    } finally {
      await store.close();
    }
  });
});
