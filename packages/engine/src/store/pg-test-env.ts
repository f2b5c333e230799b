/**
 * Test helpers for the PostgreSQL tests: the server URL, a reachability check with a clear message,
 * and random schema names dropped after the run.
 * @module
 */
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

/** Ends the server sessions of the connections made from these client ports (fault tests). */
export async function terminateBackends(clientPorts: readonly number[]): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [clientPorts]);
    return rows.length;
  } finally {
    await client.end();
  }
}
