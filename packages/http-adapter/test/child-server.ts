/**
 * A server (`createServer` around `createEngine` options) in a child process, through tsx and
 * test/fixtures/replica-server.ts: for tests that kill processes or run several replicas.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EngineOptions } from '@aisle/engine';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, 'fixtures', 'replica-server.ts');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const env = { ...process.env, TSX_TSCONFIG_PATH: path.join(here, 'tsconfig.cli.json'), NODE_NO_WARNINGS: '1' };
const repoRoot = path.join(here, '..', '..', '..');

/** A server in a child process. */
export interface ChildServer {
  child: ChildProcess;
  url: string;
  stderr(): string;
  exited: Promise<void>;
}

/** Starts `createServer` around `engineOptions` in a child process; resolves once it listens. */
export async function startChild(engineOptions: EngineOptions): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', tsxLoader, fixture, JSON.stringify({ engineOptions })], { env, cwd: repoRoot });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening: ${err}`)));
  });
  return { child, url, stderr: () => err, exited };
}
