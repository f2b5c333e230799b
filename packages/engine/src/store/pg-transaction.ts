/**
 * One transaction on one checked-out PostgreSQL connection, shared by the store and the catalog
 * change feed.
 * @module
 */
import type pg from 'pg';

/**
 * Runs `work` between `begin` (`BEGIN`, possibly with an isolation level or a lock taken in the same
 * round trip) and `COMMIT`; rolls back and rethrows when it throws. `release` gets the connection back
 * to its pool, with the error when even the rollback failed (the connection is then discarded).
 */
export async function runPgTransaction<T>(
  client: pg.ClientBase, begin: string, work: (client: pg.ClientBase) => Promise<T>, release: (broken: Error | undefined) => void,
): Promise<T> {
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').then(() => { broken = undefined; }, () => undefined);
    throw err;
  } finally {
    release(broken);
  }
}
