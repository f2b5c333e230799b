import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite-store.js';
import { lineReader, spawnTs } from './__tests__/child-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('durability on SQLite', () => {
  it('keeps every acknowledged order exactly once when the process is killed mid-stream', async () => {
    const acknowledged = new Set<string>();
    const iterations = 4;
    for (let it = 0; it < iterations; it++) {
      const resend = it === 0 ? '0' : '10';
      const child = spawnTs('./durability-child.ts', [dir, `it${it}`, `it${Math.max(0, it - 1)}`, resend]);
      const reader = lineReader(child);
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      // Kill after a varying number of acknowledgements, while requests are in flight.
      const killAfter = 40 + it * 37;
      await reader.waitFor(() => reader.lines.length >= killAfter);
      child.kill('SIGKILL');
      await exited;
      expect(child.signalCode).toBe('SIGKILL');
      for (const line of reader.lines) if (line !== '') acknowledged.add(line);
    }
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
