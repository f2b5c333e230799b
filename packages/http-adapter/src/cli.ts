#!/usr/bin/env node
/**
 * The `aisle` command line: `aisle serve` (HTTP service; a demo website without a config) and
 * `aisle load` (load a product feed with a progress bar). Operator mistakes (bad config, missing
 * file, unknown website) print one message naming the cause and exit with code 1, no stack trace.
 * @module
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, isAisleError, type EngineOptions, type LoadSummary } from '@aisle/engine';
import { SingleBar, Presets } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { levels as pinoLevels, pino } from 'pino';
import { ConfigFileError, loadConfigFile } from './config-file.js';
import { demoBanner, demoCustomers, demoEngineOptions, demoIdentity, demoIdentityFile, ensureDemoSearchKey, seedDemo } from './demo.js';
import { aisleLoggerOptions, logDestination } from './log-destination.js';
import { createServer } from './server.js';

/** An operator-facing failure: printed as `aisle: <message>`, exit code 1. */
class CliError extends Error {}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return port;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/**
 * A path flag's value. An empty one is refused: `--config "$CONFIG"` with the variable unset served the
 * generated demo website, and `--data-dir ""` put the data in the working directory, both silently.
 */
function parsePath(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty (an unset variable?)');
  return value;
}

/** The data directory: the flag, else the config's `dataDir`, else ./data. */
function resolveDataDir(flag: string | undefined, config: EngineOptions | undefined): string {
  return path.resolve(flag ?? config?.dataDir ?? './data');
}

/**
 * The log level AISLE_LOG_LEVEL names (unset or empty: info). Checked here: pino refused a misspelt level
 * with "unexpected error: default level:infp must be included in custom levels", naming no variable.
 */
function logLevel(value: string | undefined): string {
  if (value === undefined || value === '') return 'info';
  const known = [...Object.keys(pinoLevels.values), 'silent'];
  if (!known.includes(value)) throw new CliError(`AISLE_LOG_LEVEL must be one of ${known.join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

interface ServeFlags { config?: string; port: number; host: string; dataDir?: string; demoProducts: number }

async function serve(flags: ServeFlags): Promise<void> {
  // One JSON line per request at level info; AISLE_LOG_LEVEL=warn keeps only problems.
  const logger = pino(aisleLoggerOptions(logLevel(process.env.AISLE_LOG_LEVEL)), logDestination());
  const config = flags.config ? loadConfigFile(flags.config) : undefined;
  const dataDir = resolveDataDir(flags.dataDir, config);
  if (config) {
    const engineOptions: EngineOptions = { ...config, dataDir };
    const app = await createServer({ engineOptions, port: flags.port, host: flags.host, logger, handleSignals: true });
    logger.info({ url: app.url, websites: app.engine.websites().map((w) => w.websiteId), dataDir }, `aisle listening on ${app.url}`);
    logger.flush(); // the log is buffered: show the operator the start now
    return;
  }
  const identity = demoIdentity(dataDir, flags.demoProducts);
  const engine = await createEngine(demoEngineOptions(dataDir, identity));
  const seeded = await seedDemo(engine, identity);
  const searchKey = await ensureDemoSearchKey(engine, identity, dataDir);
  if (seeded.products || seeded.views) logger.info({ websiteId: identity.websiteId, dataDir, ...seeded }, 'demo data generated');
  else {
    // Nothing was generated: say what the data directory holds (the seeding's zeros read as an empty catalog).
    const { products, views, purchases } = await engine.stats(identity.websiteId);
    logger.info({ websiteId: identity.websiteId, dataDir, products, views, purchases }, 'demo data loaded from the data directory');
  }
  const app = await createServer({
    engine, adminTokens: [identity.adminToken], port: flags.port, host: flags.host, logger, handleSignals: true,
    dashboard: { searchKeys: { [identity.websiteId]: searchKey }, demoCustomers: { [identity.websiteId]: demoCustomers(identity) } },
  });
  // The banner's sample product: a look-up no shopper sees, so not a served recommendation in the reports.
  const popular = await engine.recommend(identity.websiteId, 'PopularItems', { count: 1 }, { counted: false });
  const sample = popular.payload[0] ?? (await engine.search({ website_id: identity.websiteId, client: identity.client, q: '', start: 0, size: 1 })).payload.result[0]?.refId ?? 'P1';
  logger.info({ url: app.url, websiteId: identity.websiteId, client: identity.client }, `aisle listening on ${app.url} (demo website "${identity.websiteId}")`);
  logger.flush();
  process.stdout.write(`${demoBanner(app.url, identity, sample, demoIdentityFile(dataDir))}\n`);
}

interface LoadFlags { website: string; config?: string; dataDir?: string; replace?: boolean; skipBad?: boolean }

async function load(file: string, flags: LoadFlags): Promise<void> {
  if (!existsSync(file)) throw new CliError(`cannot read ${file}: no such file`);
  // It said "unexpected error: EISDIR: illegal operation on a directory, read".
  if (statSync(file).isDirectory()) throw new CliError(`cannot read ${file}: it is a directory, not a feed file`);
  const config = flags.config ? loadConfigFile(flags.config) : undefined;
  const dataDir = resolveDataDir(flags.dataDir, config);
  let engineOptions: EngineOptions;
  if (config) engineOptions = { ...config, dataDir, workers: 0 };
  else if (existsSync(demoIdentityFile(dataDir))) engineOptions = { ...demoEngineOptions(dataDir, demoIdentity(dataDir, 0)), workers: 0 };
  else throw new CliError(`no --config given and no demo website in ${dataDir}; pass --config or run "aisle serve" once`);
  const engine = await createEngine(engineOptions);
  try {
    if (!engine.website(flags.website)) {
      throw new CliError(`unknown website "${flags.website}" (known: ${engine.websites().map((w) => w.websiteId).join(', ') || 'none'})`);
    }
    const total = statSync(file).size;
    const bar = process.stderr.isTTY
      ? new SingleBar({ format: 'loading {bar} {percentage}% | {records} records | {eta_formatted} left', stream: process.stderr }, Presets.shades_classic)
      : undefined;
    bar?.start(total, 0, { records: 0 });
    const options = {
      onError: flags.skipBad ? ('skip' as const) : ('reject' as const),
      onProgress: ({ records, bytes }: { records: number; bytes?: number }) => bar?.update(bytes ?? 0, { records }),
    };
    let summary: LoadSummary;
    try {
      summary = flags.replace
        ? await engine.replaceProducts(flags.website, file, options)
        : await engine.upsertProducts(flags.website, file, options);
      bar?.update(total);
    } finally {
      bar?.stop();
    }
    await engine.saveSnapshots();
    const lines = [`loaded ${summary.loaded} products into "${flags.website}" (${flags.replace ? 'catalog replaced' : 'upserted'}); catalog size ${summary.catalogSize}`];
    if (summary.skippedCount > 0) {
      lines.push(`skipped ${summary.skippedCount}:`);
      for (const s of summary.skipped.slice(0, 20)) lines.push(`  line ${s.line}: ${s.message}`);
      const shown = Math.min(20, summary.skipped.length);
      if (summary.skippedCount > shown) lines.push(`  … and ${summary.skippedCount - shown} more`);
    } else {
      lines.push('skipped 0');
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await engine.close();
  }
}

/** Builds the command line program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command();
  program.name('aisle').description('Self-hosted search, recommendation and purchase-event engine for online shops').version('0.1.0');
  program
    .command('serve')
    .description('serve the HTTP API (without --config: a demo website with generated data)')
    .option('--config <file>', 'config file (JSON; see docs/operations.md)', parsePath)
    .option('--port <port>', 'port to listen on', parsePort, 8080)
    .option('--host <host>', 'address to bind (0.0.0.0 to accept connections from other machines)', '127.0.0.1')
    .option('--data-dir <dir>', 'data directory (default: the config\'s dataDir, else ./data)', parsePath)
    .option('--demo-products <n>', 'number of generated demo products', parsePositive, 5000)
    .action((flags: ServeFlags) => serve(flags));
  program
    .command('load')
    .description('load a product feed (NDJSON or JSON array, optionally gzipped) into a website')
    .argument('<file>', 'the feed file')
    .requiredOption('--website <id>', 'website id')
    .option('--config <file>', 'config file (JSON)', parsePath)
    .option('--data-dir <dir>', 'data directory (default: the config\'s dataDir, else ./data)', parsePath)
    .option('--replace', 'replace the whole catalog atomically instead of upserting')
    .option('--skip-bad', 'skip bad records (reported with their line numbers) instead of aborting')
    .action((file: string, flags: LoadFlags) => load(file, flags));
  return program;
}

/**
 * The operator's words for a listen that failed (the port taken, or one below 1024 without the right),
 * which Node reports as `listen EADDRINUSE: address already in use 127.0.0.1:8080`.
 */
function listenProblem(err: unknown): string | undefined {
  const e = err as { syscall?: string; code?: string; address?: string; port?: number; hostname?: string };
  // A --host no resolver knows; it was printed as "unexpected error: getaddrinfo ENOTFOUND 999.1.1.1".
  if (e?.syscall === 'getaddrinfo') return `cannot listen on ${e.hostname}: no such host (${e.code}); give --host an address of this machine (127.0.0.1, 0.0.0.0)`;
  if (e?.syscall !== 'listen') return undefined;
  const where = `${e.address}:${e.port}`;
  if (e.code === 'EADDRINUSE') return `cannot listen on ${where}: the address is in use (another "aisle serve"?); pick another port with --port`;
  if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: the address is not one of this machine's; give --host one of its addresses (127.0.0.1, 0.0.0.0)`;
  if (e.code === 'EACCES') return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick another port with --port`;
  return undefined;
}

/** Runs the CLI; operator errors print one line and exit 1. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    // Engine errors (bad feed, bad config, unreadable snapshot, store down) are written for the operator too.
    const listen = listenProblem(err);
    const known = listen !== undefined || err instanceof CliError || err instanceof ConfigFileError || isAisleError(err);
    const message = listen ?? (err instanceof Error ? err.message : String(err));
    process.stderr.write(`aisle: ${known ? message : `unexpected error: ${message}`}\n`);
    if (!known && process.env.AISLE_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  }
}

function invokedDirectly(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (invokedDirectly()) void main();
