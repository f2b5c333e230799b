/**
 * Test helpers for the PostgreSQL tests: the server URL, a reachability check with a clear message,
 * and random schema names dropped after the run.
 * @module
 */
import net from 'node:net';
import pg from 'pg';
import { uniqueTestName } from './store-contract.js';

/** The test server (CI provides it): `AISLE_TEST_PG_URL` or postgres@127.0.0.1:5432/test. */
export const TEST_PG_URL = process.env.AISLE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Throws a clear error when the test server is not reachable. */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL tests need a server at ${TEST_PG_URL} (set AISLE_TEST_PG_URL): ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Hands out random schema names and drops them all in {@link dropAll}. */
export class TestSchemas {
  private readonly names: string[] = [];

  next(): string {
    const name = uniqueTestName('aisle_test');
    this.names.push(name);
    return name;
  }

  async dropAll(): Promise<void> {
    if (this.names.length === 0) return;
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      for (const name of this.names.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    } finally {
      await client.end();
    }
  }
}

/** Runs one statement on the test server (tests outside the engine package have no `pg` of their own). */
export async function queryTestDb<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** A TCP proxy in front of the test server whose link can be cut and restored: a PostgreSQL outage as one replica sees it. */
export class CuttableProxy {
  private readonly sockets = new Set<net.Socket>();
  private up = true;
  private readonly server = net.createServer((socket) => {
    if (!this.up) { socket.destroy(); return; }
    const target = new URL(TEST_PG_URL);
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [socket, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => { socket.destroy(); upstream.destroy(); });
    }
    socket.pipe(upstream).pipe(socket);
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const url = new URL(TEST_PG_URL);
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as net.AddressInfo).port);
    return url.toString();
  }

  cut(): void {
    this.up = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.up = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
