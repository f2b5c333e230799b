/**
 * Acknowledged catalog changes survive SIGKILL: a child process applies a deterministic sequence of
 * upserts, price changes (value patches) and deletes, snapshotting now and then, and is killed at
 * varying points; each restart must show exactly the acknowledged changes (plus, possibly, the one in
 * flight when it died) — from the snapshot and the replayed change log.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lineReader, spawnTs } from '../../events/__tests__/child-process.js';
import { applyOps, catalogOps } from './__tests__/catalog-ops.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-catalog-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPS = 400;

function start(prefix: string) {
  const child = spawnTs('../../catalog/durability/__tests__/catalog-durability-child.ts', [dir, prefix, String(OPS)]);
  const reader = lineReader(child);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, reader, exited };
}

const asMap = (line: string) => new Map<string, unknown>(JSON.parse(line.slice('READY '.length)) as [string, unknown][]);

describe('catalog durability (write-ahead change log + snapshots)', () => {
  it('keeps every acknowledged change across SIGKILLs, and nothing that was not sent', async () => {
    let expected = new Map<string, unknown>();
    let inFlight: Map<string, unknown> | undefined;
    const iterations = 4;
    for (let it = 0; it <= iterations; it++) {
      const { child, reader, exited } = start(`it${it}`);
      const ready = asMap(await reader.waitFor((l) => l.startsWith('READY ')));
      // Exactly the acknowledged state, or that state plus the change in flight at the kill.
      const matches = JSON.stringify([...ready]) === JSON.stringify([...expected].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
        || (inFlight !== undefined && JSON.stringify([...ready]) === JSON.stringify([...inFlight].sort((a, b) => (a[0] < b[0] ? -1 : 1))));
      expect(matches, `after restart ${it}: ${ready.size} products, expected ${expected.size}`).toBe(true);
      if (it === iterations) {
        child.kill('SIGKILL');
        await exited;
        break;
      }
      const killAfter = 30 + it * 53;
      await reader.waitFor((l) => /^\d+$/.test(l) && Number(l) >= killAfter);
      child.kill('SIGKILL');
      await exited;
      expect(child.signalCode).toBe('SIGKILL');
      const acked = reader.lines.filter((l) => /^\d+$/.test(l)).map(Number);
      const last = Math.max(...acked);
      expect(acked).toEqual(Array.from({ length: last + 1 }, (_, i) => i));
      const ops = catalogOps(`it${it}`, OPS);
      const base = ready;
      expected = applyOps(base, ops.slice(0, last + 1));
      inFlight = applyOps(base, ops.slice(0, last + 2));
    }
    // Snapshots were taken and the log segments they cover were dropped: the log stays short.
    // A kill between a write's two renames leaves the previous generation alone (the start reads it
    // with the log after it): either generation shows that snapshots were taken.
    const files = readdirSync(path.join(dir, 'catalogs'));
    expect(files.some((f) => f === 'site-a.aislesnap' || f === 'site-a.aislesnap.prev'), files.join(', ')).toBe(true);
    // Without drops the ~440 changes would leave a segment per snapshot started (one every 25 changes,
    // ~18); a snapshot written in steps may still be under way at a kill on a busy machine, so a
    // segment or two more than the last completed one's may stay (5 seen once under a parallel run).
    expect(files.filter((f) => f.includes('.log.')).length).toBeLessThanOrEqual(6);
  });
});
