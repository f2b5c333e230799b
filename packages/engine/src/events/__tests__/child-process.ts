/** Spawning TypeScript child processes for the multi-process tests (`node --import tsx`). */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: tsx is installed there. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/** Starts `node --import tsx <script> ...args` with piped stdio. */
export function spawnTs(script: string, args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], { cwd: REPO_ROOT, stdio: 'pipe' });
}

/** Collects a child's stdout as lines; `waitFor` resolves when a line matches (or rejects when it exits first). */
export function lineReader(child: ChildProcessWithoutNullStreams): { lines: string[]; waitFor: (pred: (line: string) => boolean) => Promise<string>; stderr: () => string } {
  const lines: string[] = [];
  let buffer = '';
  let err = '';
  const waiters: { pred: (l: string) => boolean; resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.push(line);
      for (const w of waiters.splice(0)) {
        if (w.pred(line)) w.resolve(line);
        else waiters.push(w);
      }
    }
  });
  child.on('exit', (code) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${code}) before the expected line; stderr: ${err}`));
  });
  return {
    lines,
    stderr: () => err,
    waitFor: (pred) => new Promise((resolve, reject) => {
      const found = lines.find(pred);
      if (found !== undefined) return resolve(found);
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`child already exited; stderr: ${err}`));
      waiters.push({ pred, resolve, reject });
    }),
  };
}
