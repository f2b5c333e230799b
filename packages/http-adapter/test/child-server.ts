/**
 * Servers in child processes, for tests that kill processes or run several replicas: either
 * `createServer` around `createEngine` options (test/fixtures/replica-server.ts) or the `aisle serve`
 * CLI itself, both through tsx. Also the polling wait those tests share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EngineOptions } from '@aisle/engine';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, 'fixtures', 'replica-server.ts');
const cli = path.join(here, '..', 'src', 'cli.ts');
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

/** Runs `script` with `args` through tsx; resolves once `listening(stdout so far)` finds the URL. */
async function spawnServer(script: string, args: readonly string[], listening: (out: string) => string | undefined): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', tsxLoader, script, ...args], { env, cwd: repoRoot });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString();
      const found = listening(out);
      if (found === undefined) return;
      // Keep draining stdout (a full pipe would block the child) without keeping what it says.
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve(found);
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening: ${err}`)));
  });
  return { child, url, stderr: () => err, exited };
}

/** Starts `createServer` around `engineOptions` in a child process; resolves once it listens. */
export function startChild(engineOptions: EngineOptions): Promise<ChildServer> {
  return spawnServer(fixture, [JSON.stringify({ engineOptions })], (out) => {
    const line = out.split('\n').find((l) => l.startsWith('{'));
    return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
  });
}

/** Starts `aisle serve <args>` (the CLI as shipped) in a child process; resolves once it listens. */
export function startCli(args: readonly string[]): Promise<ChildServer> {
  return spawnServer(cli, ['serve', ...args], (out) => out.match(/aisle listening on (http:\/\/[\d.]+:\d+)/)?.[1]);
}

/** A named server of a {@link ReplicaSet}. */
export interface Replica extends ChildServer { name: string }

/** The replicas a test file started, so that they can be stopped together at its end. */
export class ReplicaSet {
  private readonly running = new Set<Replica>();

  /** Starts a replica with `start` and keeps it in the set. */
  async start(name: string, start: () => Promise<ChildServer>): Promise<Replica> {
    const replica = { name, ...await start() };
    this.running.add(replica);
    return replica;
  }

  /** Sends `signal` and waits for the process to exit. */
  async kill(replica: Replica, signal: NodeJS.Signals): Promise<void> {
    replica.child.kill(signal);
    await replica.exited;
    this.running.delete(replica);
  }

  /** Stops every replica still running (SIGTERM: a clean shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((r) => this.kill(r, 'SIGTERM')));
  }

  /** The end of a replica test file: the replicas stopped, then their schemas and data directories removed. */
  async tearDown(schemas: { dropAll(): Promise<void> }, dataDir: string): Promise<void> {
    await this.stopAll();
    await schemas.dropAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Polls `probe` every 50 ms until it returns true; past `deadlineMs` fails with `describe` (a text, or
 * a function that says what differs at that moment).
 */
export async function eventually(probe: () => Promise<boolean>, describe: string | (() => Promise<string> | string), deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > end) throw new Error(`not reached within ${deadlineMs} ms: ${typeof describe === 'string' ? describe : await describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
