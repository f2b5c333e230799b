import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { aisleLoggerOptions, LOG_BUFFER_BYTES, LOG_FLUSH_MS, logDestination } from '../src/log-destination.js';
import { AisleError } from '@aisle/engine';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'aisle-log-dest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (file: string): { i: number; msg: string; q?: string }[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { i: number; msg: string; q?: string }) : [];

/** Runs the child logger; resolves when it exits (or, for `wait`, after `waitMs`, killing it). */
function runChild(file: string, count: number, mode: 'exit' | 'wait', waitMs = 0): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/log-child.ts'), file, String(count), mode], { cwd: repoRoot, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    if (mode === 'exit') child.once('exit', () => resolve());
    else setTimeout(() => { child.once('exit', () => resolve()); child.kill('SIGKILL'); }, waitMs);
  });
}

describe('logDestination (the buffered request log)', () => {
  it('writes every buffered line when the process exits', async () => {
    const file = path.join(dir, 'exit.log');
    await runChild(file, 25, 'exit');
    expect(lines(file).map((l) => l.i)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('writes many buffers\' worth of lines whole and in order, at exit and from the timer', async () => {
    // 12,000 lines of ~70 bytes: about a dozen buffers handed to the writer while logging, the rest at exit.
    const count = 12_000;
    expect(count * 70).toBeGreaterThan(10 * LOG_BUFFER_BYTES);
    const atExit = path.join(dir, 'many-exit.log');
    await runChild(atExit, count, 'exit');
    const written = lines(atExit);
    expect(written.map((l) => l.i)).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(written.filter((l) => l.i % 5 === 0).every((l) => l.q === 'café ünïcödé 🛒')).toBe(true);
    const byTimer = path.join(dir, 'many-wait.log');
    await runChild(byTimer, count, 'wait', LOG_FLUSH_MS * 3 + 1500);
    expect(lines(byTimer).map((l) => l.i)).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it('writes a quiet process\'s lines within the flush interval, without an exit', async () => {
    const file = path.join(dir, 'quiet.log');
    // Three short lines stay far below the buffer size: only the timer writes them before the kill.
    await runChild(file, 3, 'wait', LOG_FLUSH_MS * 3 + 1500);
    expect(lines(file).map((l) => l.msg)).toEqual(['request', 'request', 'request']);
    expect(3 * 100).toBeLessThan(LOG_BUFFER_BYTES);
  });

  it('calls a logger\'s flush callback once the gathered lines are written', async () => {
    const file = path.join(dir, 'flush-cb.log');
    const logger = pino({ name: 'aisle' }, logDestination(file));
    for (let i = 0; i < 10; i++) logger.info({ i }, 'request');
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    expect(lines(file).map((l) => l.i)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('calls a logger\'s flush callback without an error when its lines went to a pipe (stdout under a supervisor)', async () => {
    // A pipe cannot be fsynced (EINVAL): the lines are written all the same, and the callback must say so.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/log-child.ts'), '-', '3', 'flush'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    await new Promise((resolve) => child.once('close', resolve));
    expect(out.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([0, 1, 2]);
    expect(err).toBe('flushed');
  });

  it('writes a line larger than its buffer whole, in its place among the others', async () => {
    const file = path.join(dir, 'large-line.log');
    const logger = pino({ name: 'aisle' }, logDestination(file));
    // Two bytes per character in UTF-8: the line is about three buffers long.
    const q = 'ü'.repeat(LOG_BUFFER_BYTES * 1.5);
    logger.info({ i: 0 }, 'request');
    logger.info({ i: 1, q }, 'request');
    logger.info({ i: 2 }, 'request');
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    const written = lines(file);
    expect(written.map((l) => l.i)).toEqual([0, 1, 2]);
    expect(written[1]!.q).toBe(q);
  });

  it('hands out one destination per target', () => {
    const file = path.join(dir, 'same.log');
    expect(logDestination(file)).toBe(logDestination(file));
  });
});

describe('aisleLoggerOptions', () => {
  it('logs an engine error whose message already names its cause with that reason once, the cause kept', async () => {
    const file = path.join(dir, 'err-with-cause.log');
    const dest = logDestination(file);
    const logger = pino(aisleLoggerOptions('info'), dest);
    const reason = 'terminating connection due to administrator command';
    const cause = new Error(reason);
    logger.error({ err: new AisleError('STORE_FAILURE', `the store failed: ${reason}`, { cause }) }, 'request failed');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    const [line] = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { name: string; err: { message: string; cause: { message: string } } });
    expect(line!.name).toBe('aisle');
    expect(line!.err.message).toBe(`the store failed: ${reason}`);
    expect(line!.err.cause.message).toBe(reason);
  });
});
