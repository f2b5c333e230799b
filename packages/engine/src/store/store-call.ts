/**
 * How a store failure reaches the caller of a public operation: as `STORE_FAILURE`.
 * @module
 */
import { AisleError, isAisleError } from '../errors.js';

/** Runs a store call; a failure of the store (not an engine error) becomes `STORE_FAILURE`. */
export async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isAisleError(err)) throw err;
    throw new AisleError('STORE_FAILURE', `the store failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  }
}
