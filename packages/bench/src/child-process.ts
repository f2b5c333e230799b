/**
 * Running a benchmark step in its own Node process (so that one engine's heap, JIT state and garbage
 * do not colour another's figures): fork a script, send it one message, await one reply.
 * @module
 */
import { growableSharedBytes } from '@aisle/engine/internal';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs `script` (a path relative to this package's src/ or dist/ directory, without extension) with
 * `input`; `execArgv` adds node options (e.g. `--cpu-prof`).
 */
export function runInChild<I, O>(script: string, input: I, options: { timeoutMs: number; maxOldSpaceMb?: number; execArgv?: string[] }): Promise<O> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const path = fileURLToPath(new URL(`./${script}${ext}`, import.meta.url));
  const execArgv = [...process.execArgv.filter((a) => !a.startsWith('--max-old-space-size')), '--expose-gc',
    `--max-old-space-size=${options.maxOldSpaceMb ?? 8192}`, ...(options.execArgv ?? [])];
  return new Promise<O>((resolve, reject) => {
    const child = fork(path, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${Math.round(options.timeoutMs / 1000)} s`));
    }, options.timeoutMs);
    child.once('message', (message: { ok: boolean; result?: O; error?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (message.ok) resolve(message.result as O);
      else reject(new Error(message.error ?? 'child failed'));
      child.disconnect();
    });
    child.once('exit', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`child exited (${signal ?? code}) without a result`));
    });
    child.send(input as object);
  });
}

/** In a child: receives the input, runs `work`, replies, and exits. */
export function serveChild<I, O>(work: (input: I) => Promise<O>): void {
  process.once('message', (input: I) => {
    work(input).then(
      (result) => process.send!({ ok: true, result }, () => process.exit(0)),
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? `${err.message}` : String(err) }, () => process.exit(1)),
    );
  });
}

/** Retained memory by kind: V8's heap, array buffers, and the engine's growable shared buffers. */
export interface RetainedMemory { heap: number; arrayBuffers: number; growable: number; total: number }

/**
 * Retained memory: heap used + array buffers + the engine's growable shared buffers (which
 * `process.memoryUsage()` does not count), after a full GC when exposed.
 */
export async function retainedMemory(): Promise<RetainedMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) { gc(); gc(); }
  // Collected growable buffers are subtracted by finalizers, which run in a later task.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const m = process.memoryUsage();
  const growable = growableSharedBytes();
  return { heap: m.heapUsed, arrayBuffers: m.arrayBuffers, growable, total: m.heapUsed + m.arrayBuffers + growable };
}

/** {@link retainedMemory}'s total. */
export async function retainedBytes(): Promise<number> {
  return (await retainedMemory()).total;
}
