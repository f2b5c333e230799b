/**
 * Readiness: whether the engine can serve what it promises right now, with the reason when not.
 * Each check is a small function returning its result; `engine.readiness()` runs them all (in
 * parallel, each bounded by {@link READINESS_CHECK_TIMEOUT_MS}) and the engine is ready when every
 * one passes. Adding a condition is adding a check to the list in engine.ts.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { open, rm, statfs } from 'node:fs/promises';
import path from 'node:path';
import { writeFully } from './util/write-fully.js';

/** The result of one readiness check. */
export interface ReadinessCheck {
  /** What was checked: `store`, `disk`, `catalogs`, `recommendations`, … */
  name: string;
  ok: boolean;
  /** Why it is not ok (absent when ok). */
  reason?: string;
}

/** The engine's readiness: ready when every check is ok. */
export interface Readiness {
  ready: boolean;
  checks: ReadinessCheck[];
}

/** Longest a single check may take before it counts as failed (a hung database, a stalled disk). */
export const READINESS_CHECK_TIMEOUT_MS = 2_000;

/**
 * Least free space on the data directory's file system for the disk to count as writable: below it a
 * catalog change or an event batch would likely fail with a full disk.
 */
export const READY_MIN_FREE_BYTES = 1024 * 1024;

/** Runs a named check, turning a throw or a timeout into a failed result. */
export async function runCheck(name: string, check: () => Promise<string | undefined>): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${READINESS_CHECK_TIMEOUT_MS} ms`), READINESS_CHECK_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const reason = await Promise.race([check().catch((err: unknown) => (err instanceof Error ? err.message : String(err))), timeout]);
    return reason === undefined ? { name, ok: true } : { name, ok: false, reason };
  } finally {
    clearTimeout(timer);
  }
}

/** Combines check results. Pure. */
export function combineChecks(checks: ReadinessCheck[]): Readiness {
  return { ready: checks.every((c) => c.ok), checks };
}

/**
 * The data directory is writable: a small probe file can be written, flushed and removed, and the file
 * system has at least {@link READY_MIN_FREE_BYTES} free. Returns the reason when not.
 */
export async function checkDiskWritable(dir: string): Promise<string | undefined> {
  const probe = path.join(dir, `.ready-probe-${randomUUID()}`);
  try {
    const file = await open(probe, 'w');
    try {
      await writeFully(file, Buffer.alloc(4096));
      await file.datasync();
    } finally {
      await file.close();
    }
    await rm(probe);
  } catch (err) {
    // Best effort: the reason returned below is what matters; a probe left behind is harmless.
    await rm(probe, { force: true }).catch(() => undefined);
    return `the data directory ${dir} is not writable: ${(err as Error).message}`;
  }
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  if (free < READY_MIN_FREE_BYTES) return `the data directory ${dir} has ${free} bytes free (less than ${READY_MIN_FREE_BYTES})`;
  return undefined;
}
