/**
 * The CLI as a user runs it: a child process (TypeScript sources through tsx, the engine mapped to its
 * sources by test/tsconfig.cli.json, so no build is needed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import net, { type AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, '..', 'src', 'cli.ts');
/** tsx's loader by absolute URL: the child runs in a temporary directory where 'tsx' does not resolve. */
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const env = { ...process.env, TSX_TSCONFIG_PATH: path.join(here, 'tsconfig.cli.json'), NODE_NO_WARNINGS: '1' };
/** The engine's search workers load tsx by name when running from sources, so the child runs at the repo root. */
const repoRoot = path.join(here, '..', '..', '..');
const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function start(args: string[], extraEnv: Record<string, string> = {}): ChildProcess & { out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', tsxLoader, cli, ...args], { env: { ...env, ...extraEnv }, cwd: repoRoot });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return Object.assign(child, { out: () => out, err: () => err, exited });
}

async function run(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const child = start(args, extraEnv);
  const code = await child.exited;
  return { code, out: child.out(), err: child.err() };
}

async function waitFor(child: { out: () => string; exited: Promise<number | null> }, pattern: RegExp): Promise<RegExpMatchArray> {
  let exited = false;
  void child.exited.then(() => { exited = true; });
  for (;;) {
    const m = child.out().match(pattern);
    if (m) return m;
    if (exited) throw new Error(`process exited before printing ${pattern}: ${child.out()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('aisle serve --config', () => {
  it('a bad config stops the start with a message naming the key, exit 1, no stack trace', async () => {
    const file = path.join(tmp, 'bad.json');
    writeFileSync(file, JSON.stringify({ websites: [{ websiteId: 'a', client: 'c', tokens: 'not-an-array', hmacSecret: 's' }] }));
    const { code, err } = await run(['serve', '--config', file, '--port', '0']);
    expect(code).toBe(1);
    expect(err).toContain('websites[0].tokens');
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('unparseable and missing config files are named', async () => {
    const file = path.join(tmp, 'broken.json');
    writeFileSync(file, '{ "websites": [ ');
    const broken = await run(['serve', '--config', file]);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain('broken.json is not valid JSON');
    const missing = await run(['serve', '--config', path.join(tmp, 'absent.json')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('absent.json');
  });

  it('a good config serves its websites with their tokens until SIGTERM', async () => {
    const file = path.join(tmp, 'good.json');
    // Saved with a byte order mark, as Windows editors do (it was "not valid JSON: Unexpected token '﻿'").
    writeFileSync(file, '\uFEFF' + JSON.stringify({
      store: { type: 'memory' }, workers: 0, adminTokens: ['cfg-admin'],
      websites: [{ websiteId: 'shop-1', client: 'shop1', tokens: ['cfg-token'], hmacSecret: 'cfg-secret' }],
    }));
    const child = start(['serve', '--config', file, '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(tmp, 'cfg-data')]);
    const url = (await waitFor(child, /"url":"(http:\/\/[\d.:]+)"/))[1]!;
    const load = await fetch(`${url}/admin/v1/websites/shop-1/products`, {
      method: 'PUT', headers: { 'content-type': 'application/json', authorization: 'Bearer cfg-admin' },
      body: JSON.stringify([{ refId: 'A1', title: 'linen shirt' }]),
    });
    expect(load.status).toBe(200);
    await load.text();
    const search = await fetch(`${url}/v1.4/search`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer cfg-token' },
      body: JSON.stringify({ website_id: 'shop-1', client: 'shop1', q: 'linen', start: 0 }),
    });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { payload: { total_results: number } }).payload.total_results).toBe(1);
    expect(child.out()).not.toContain('cfg-token');
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it('shuts down gracefully on SIGHUP (a closed terminal) as on SIGTERM', async () => {
    const file = path.join(tmp, 'hangup.json');
    writeFileSync(file, JSON.stringify({ store: { type: 'memory' }, workers: 0, websites: [{ websiteId: 'h', client: 'h1', tokens: ['hangup-token'], hmacSecret: 's' }] }));
    const child = start(['serve', '--config', file, '--port', '0', '--data-dir', path.join(tmp, 'hangup-data')]);
    await waitFor(child, /"url":"(http:\/\/[\d.:]+)"/);
    // Node's default for SIGHUP ended the process at once (no exit code, no snapshot, no "stopped").
    child.kill('SIGHUP');
    expect(await child.exited).toBe(0);
    expect(child.out()).toMatch(/"signal":"SIGHUP","msg":"shutting down"[\s\S]*"msg":"stopped"/);
  });

  it('an embedded store file another server uses is named, exit 1', async () => {
    const file = path.join(tmp, 'shared-store.json');
    const storeFile = path.join(tmp, 'shared', 'events.sqlite');
    writeFileSync(file, JSON.stringify({ store: { type: 'embedded', path: storeFile }, workers: 0, websites: [{ websiteId: 's', client: 's1', tokens: ['shared-token'], hmacSecret: 's' }] }));
    const first = start(['serve', '--config', file, '--port', '0', '--data-dir', path.join(tmp, 'shared-a')]);
    await waitFor(first, /"url":"(http:\/\/[\d.:]+)"/);
    try {
      // Another data directory, the same store file: it started, and both wrote one event store that
      // each fed only its own events to its models.
      const second = await run(['serve', '--config', file, '--port', '0', '--data-dir', path.join(tmp, 'shared-b')]);
      expect(second.code).toBe(1);
      expect(second.err).toMatch(new RegExp(`^aisle: the embedded store .*events\\.sqlite is in use by process ${first.pid}`));
    } finally {
      first.kill('SIGTERM');
      await first.exited;
    }
  });

  it('a port in use is named, with what to do, exit 1', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const file = path.join(tmp, 'port.json');
      writeFileSync(file, JSON.stringify({ store: { type: 'memory' }, workers: 0, websites: [{ websiteId: 'p', client: 'p1', tokens: ['port-token'], hmacSecret: 's' }] }));
      const { code, err } = await run(['serve', '--config', file, '--port', String(port), '--data-dir', path.join(tmp, 'port-data')]);
      expect(code).toBe(1);
      // It said "unexpected error: listen EADDRINUSE: address already in use …".
      expect(err).toBe(`aisle: cannot listen on 127.0.0.1:${port}: the address is in use (another "aisle serve"?); pick another port with --port\n`);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('a misspelt AISLE_LOG_LEVEL is named, exit 1', async () => {
    const file = path.join(tmp, 'level.json');
    writeFileSync(file, JSON.stringify({ store: { type: 'memory' }, workers: 0, websites: [{ websiteId: 'l', client: 'l1', tokens: ['level-token'], hmacSecret: 's' }] }));
    const { code, err } = await run(['serve', '--config', file, '--port', '0', '--data-dir', path.join(tmp, 'level-data')], { AISLE_LOG_LEVEL: 'infp' });
    expect(code).toBe(1);
    // It said "aisle: unexpected error: default level:infp must be included in custom levels".
    expect(err).toBe('aisle: AISLE_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got "infp")\n');
  });

  it('a --host, a --data-dir or a feed that cannot be used is named, exit 1', async () => {
    const file = path.join(tmp, 'operator.json');
    writeFileSync(file, JSON.stringify({ store: { type: 'memory' }, workers: 0, websites: [{ websiteId: 'o', client: 'o1', tokens: ['operator-token'], hmacSecret: 's' }] }));
    const aFile = path.join(tmp, 'a-file');
    writeFileSync(aFile, '');
    // Each was "aisle: unexpected error: …" (getaddrinfo ENOTFOUND, ENOTDIR, EISDIR).
    const host = await run(['serve', '--config', file, '--port', '0', '--host', '999.1.1.1', '--data-dir', path.join(tmp, 'operator-data')]);
    expect([host.code, host.err]).toEqual([1, 'aisle: cannot listen on 999.1.1.1: no such host (ENOTFOUND); give --host an address of this machine (127.0.0.1, 0.0.0.0)\n']);
    const dir = await run(['serve', '--config', file, '--port', '0', '--data-dir', aFile]);
    expect(dir.code).toBe(1);
    expect(dir.err).toMatch(/^aisle: config: dataDir .*a-file cannot hold aisle's files: ENOTDIR/);
    if (process.platform === 'linux') {
      // Under /proc, with a config and without (the demo writes demo.json first): both spun at full CPU for ever.
      const proc = await run(['serve', '--config', file, '--port', '0', '--data-dir', '/proc/aisle-no-such']);
      expect([proc.code, proc.err]).toEqual([1, expect.stringMatching(/^aisle: config: dataDir \/proc\/aisle-no-such cannot hold aisle's files: ENOENT/)]);
      const demo = await run(['serve', '--port', '0', '--data-dir', '/proc/aisle-no-such']);
      expect([demo.code, demo.err]).toEqual([1, expect.stringMatching(/^aisle: config: dataDir \/proc\/aisle-no-such cannot hold aisle's files: ENOENT/)]);
    }
    // SQLite's "file is not a database" named no file (and store.path may point anywhere).
    const damaged = path.join(tmp, 'damaged-data');
    mkdirSync(damaged);
    writeFileSync(path.join(damaged, 'aisle.sqlite'), 'not a database '.repeat(512));
    const embedded = path.join(tmp, 'embedded.json');
    writeFileSync(embedded, JSON.stringify({ store: { type: 'embedded' }, workers: 0, websites: [{ websiteId: 'o', client: 'o1', tokens: ['operator-token'], hmacSecret: 's' }] }));
    const store = await run(['serve', '--config', embedded, '--port', '0', '--data-dir', damaged]);
    expect([store.code, store.err]).toEqual([1, `aisle: The embedded store ${path.join(damaged, 'aisle.sqlite')} could not be opened: file is not a database\n`]);
    const feed = await run(['load', '--website', 'o', '--config', file, '--data-dir', path.join(tmp, 'operator-data'), tmp]);
    expect([feed.code, feed.err]).toEqual([1, `aisle: cannot read ${tmp}: it is a directory, not a feed file\n`]);
  });

  it('a bad flag is refused', async () => {
    const { code, err } = await run(['serve', '--port', 'eighty']);
    expect(code).toBe(1);
    expect(err).toContain('--port');
    // An unset variable: --config "" served the generated demo website, --data-dir "" wrote into the working directory.
    for (const flag of ['--config', '--data-dir']) {
      const empty = await run(['serve', '--port', '0', flag, '']);
      expect([flag, empty.code, empty.err]).toEqual([flag, 1, expect.stringContaining(`${flag} <`)]);
      expect(empty.err).toContain('must not be empty (an unset variable?)');
    }
  });
});

describe('aisle serve (demo) and aisle load', () => {
  const dataDir = path.join(tmp, 'data');

  async function serveDemo(): Promise<{ child: ReturnType<typeof start>; url: string; token: string; adminToken: string; searchKey: string }> {
    // No --host: the default binds this machine only.
    const child = start(['serve', '--port', '0', '--data-dir', dataDir, '--demo-products', '300']);
    const url = (await waitFor(child, /curl -s (http:\/\/[\d.:]+)\/openapi\.json/))[1]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    // The banner prints no token: they are in the demo identity file it names. The browser search key
    // (public by design) is printed.
    expect(child.out()).not.toMatch(/demo-[0-9a-f]{32}|admin-[0-9a-f]{32}/);
    const identityFile = child.out().match(/tokens: +in (\S+)/)![1]!;
    const { token, adminToken } = JSON.parse(readFileSync(identityFile, 'utf8')) as { token: string; adminToken: string };
    const searchKey = child.out().match(/search key: +(\S+)/)![1]!;
    return { child, url, token, adminToken, searchKey };
  }

  it('serves a demo website, prints its ids and tokens, shuts down on SIGTERM, and does not duplicate the demo on restart', async () => {
    const first = await serveDemo();
    expect(first.child.out()).toContain('website id:   demo');
    const search = await fetch(`${first.url}/v1.4/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${first.token}` },
      // distinct: false counts products (the demo website shows one result per style by default).
      body: JSON.stringify({ website_id: 'demo', client: 'demo', q: '', start: 0, size: 3, distinct: false }),
    });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { payload: { total_results: number } }).payload.total_results).toBe(300);
    // The printed browser key opens search (and nothing else).
    const keyed = await fetch(`${first.url}/v1.4/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${first.searchKey}` },
      body: JSON.stringify({ website_id: 'demo', client: 'demo', q: '', start: 0, size: 3 }),
    });
    expect(keyed.status).toBe(200);
    expect((await fetch(`${first.url}/admin/v1/websites/demo/stats`, { headers: { authorization: `Bearer ${first.searchKey}` } })).status).toBe(401);
    // The banner's purchase, sent twice: an idempotent replay.
    const printedPurchase = (out: string) => out.match(/-d '(\{"customerId[^']*)'/)![1]!;
    const purchase = (url: string, token: string, body: string) => fetch(`${url}/3.0/events/purchases`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
    const bought = await purchase(first.url, first.token, printedPurchase(first.child.out()));
    expect(bought.status).toBe(202);
    expect(await (await purchase(first.url, first.token, printedPurchase(first.child.out()))).json()).toEqual(await bought.json());
    const statsAfterPurchase = await (await fetch(`${first.url}/admin/v1/websites/demo/stats`, { headers: { authorization: `Bearer ${first.adminToken}` } })).json();
    first.child.kill('SIGTERM');
    expect(await first.child.exited).toBe(0);

    const second = await serveDemo();
    expect(second.token).toBe(first.token);
    expect(second.searchKey).toBe(first.searchKey);
    const stats2 = await (await fetch(`${second.url}/admin/v1/websites/demo/stats`, { headers: { authorization: `Bearer ${second.adminToken}` } })).json();
    expect(stats2).toEqual(statsAfterPurchase);
    // The restart's banner prints a new order (the first banner's order id with a new eventTime was a 409).
    expect((await purchase(second.url, second.token, printedPurchase(second.child.out()))).status).toBe(202);
    // The start's log line says what it found (it said products 0, views 0, purchases 0).
    const loaded = second.child.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'demo data loaded from the data directory');
    const { products, views, purchases } = statsAfterPurchase as { products: number; views: number; purchases: number };
    expect(loaded).toMatchObject({ products, views, purchases });
    expect(products).toBe(300);
    second.child.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
  });

  it('loads an NDJSON feed, reporting skipped lines; without --skip-bad a bad line fails the load', async () => {
    const feed = path.join(tmp, 'feed.ndjson');
    writeFileSync(feed, '{"refId":"L-1","title":"one"}\n{"title":"no refId"}\n{"refId":"L-2","title":"two"}\n');
    const skipped = await run(['load', '--website', 'demo', '--data-dir', dataDir, '--skip-bad', feed]);
    expect(skipped.err).toBe('');
    expect(skipped.code).toBe(0);
    expect(skipped.out).toContain('loaded 2 products');
    expect(skipped.out).toMatch(/line 2: /);
    const rejected = await run(['load', '--website', 'demo', '--data-dir', dataDir, feed]);
    expect(rejected.code).toBe(1);
    expect(rejected.err).toMatch(/^aisle: .*line 2/m);
    const unknown = await run(['load', '--website', 'nope', '--data-dir', dataDir, feed]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('unknown website "nope"');
    const array = path.join(tmp, 'feed.json');
    writeFileSync(array, JSON.stringify([{ refId: 'J-1', title: 'one' }, { refId: 'J-2', title: 'two' }]));
    const replaced = await run(['load', '--website', 'demo', '--data-dir', dataDir, '--replace', array]);
    expect(replaced.code).toBe(0);
    expect(replaced.out).toContain('loaded 2 products into "demo" (catalog replaced); catalog size 2');
    expect(replaced.out).toContain('skipped 0');
  });
});
