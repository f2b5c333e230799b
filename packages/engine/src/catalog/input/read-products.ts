/**
 * Reads a product source into checked product objects: a bad record (not an object, or without a
 * non-empty string `refId`) rejects the whole batch, or is listed in `skipped` with `onError: 'skip'`.
 * @module
 */
import type { LoadOptions, ProductSource } from '../../engine-api.js';
import { AisleError } from '../../errors.js';
import { problemDetails } from '../../contract/errors.js';
import { MAX_REPORTED_SKIPS } from '../../engine-api.js';
import { firstMismatch, type FieldMismatch, type FieldTypes } from '../field-types.js';
import type { Product } from '../../types.js';
import { readProductFeed } from './feed-reader.js';
import { productProblem } from './product-limits.js';
import { SkipReport } from './skip-report.js';

const PROGRESS_EVERY = 10_000;
/**
 * Records checked between two turns of the event loop (small batches are checked in one go): a check
 * takes a few µs, but while a collection is marking a big heap (a replace of a million products, the
 * old version's and the caller's objects alive) each allocation does marking work, so a turn of 1,000
 * records could take 60–80 ms; 10,000 took longer still.
 */
const YIELD_EVERY = 250;
/** Products checked against the pinned field types between two turns of the event loop (a check is a few property reads). */
const CHECKS_PER_TURN = 10_000;


function isIterable(source: unknown): source is Iterable<unknown> {
  return typeof source === 'object' && source !== null && typeof (source as Iterable<unknown>)[Symbol.iterator] === 'function';
}

function isAsyncIterable(source: unknown): boolean {
  return typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/**
 * All records of `source`, checked, in order. With `onError: 'reject'` (default) the first bad record
 * throws `CATALOG_BAD_INPUT` naming its 1-based index (line for feeds). `positions`, when given,
 * receives each product's 1-based index (line for feeds), so a later check can name the record.
 * With `fieldTypes` (the website's pinned types), a record with a value that does not fit is bad too
 * (see {@link withoutMismatches}); a patch record is checked as sent, which fits exactly when the
 * merged product does (its other values are stored, so they fit; `null` removes).
 */
export async function readProducts(
  source: ProductSource, options: LoadOptions = {}, positions?: number[], fieldTypes?: FieldTypes,
): Promise<{ products: Product[]; skipped: SkipReport }> {
  if (fieldTypes === undefined || Object.keys(fieldTypes).length === 0) return readRecords(source, options, positions);
  const read: number[] = [];
  const { products, skipped } = await readRecords(source, options, read);
  const kept = await withoutMismatches(products, read, fieldTypes, options.onError ?? 'reject', skipped);
  positions?.push(...kept.positions);
  return { products: kept.products, skipped };
}

/**
 * The products whose values fit `fieldTypes`. With `'reject'` one that does not throws
 * `CATALOG_BAD_INPUT` whose problem details list (up to {@link MAX_REPORTED_SKIPS}) every such record
 * of the batch, as `{line, refId, field, value, message}`; with `'skip'` each goes to `skipped`.
 */
async function withoutMismatches(
  products: readonly Product[], positions: readonly number[], fieldTypes: FieldTypes, onError: 'reject' | 'skip', skipped: SkipReport,
): Promise<{ products: Product[]; positions: number[] }> {
  const kept: Product[] = [];
  const keptPositions: number[] = [];
  const bad: (FieldMismatch & { line: number })[] = [];
  for (let i = 0; i < products.length; i++) {
    // A replace of a million products: the event loop is handed back now and then, as while reading.
    if (i > 0 && i % CHECKS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const product = products[i]!;
    const mismatch = firstMismatch(product, fieldTypes);
    if (mismatch === undefined) {
      kept.push(product);
      keptPositions.push(positions[i]!);
      continue;
    }
    const line = positions[i]!;
    const message = `product ${line}: product "${mismatch.refId}": ${mismatch.message}`;
    if (onError === 'skip') skipped.add({ line, message, refId: mismatch.refId, field: mismatch.field, value: mismatch.value });
    else if (bad.length < MAX_REPORTED_SKIPS) bad.push({ line, ...mismatch, message });
  }
  if (bad.length > 0) {
    const problem = { ...problemDetails(400, { $: bad.map((b) => b.message) }), records: bad };
    throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${bad[0]!.message}`, { problem, details: { line: bad[0]!.line } });
  }
  return { products: kept, positions: keptPositions };
}

/** {@link readProducts} without the pinned types. */
async function readRecords(source: ProductSource, options: LoadOptions, positions?: number[]): Promise<{ products: Product[]; skipped: SkipReport }> {
  const onError = options.onError ?? 'reject';
  const skipped = new SkipReport();
  const products: Product[] = [];
  let records = 0;
  const take = (record: unknown): void => {
    records++;
    const problem = productProblem(record);
    if (problem !== undefined) {
      const message = `product ${records}: ${problem}`;
      if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line: records } });
      skipped.add({ line: records, message });
      return;
    }
    products.push(record as Product);
    positions?.push(records);
    if (options.onProgress && records % PROGRESS_EVERY === 0) options.onProgress({ records });
  };
  if (Array.isArray(source) || (typeof source !== 'string' && isIterable(source) && !isAsyncIterable(source))) {
    // In-memory batches: a plain loop (no promise per element), handing the event loop back every
    // YIELD_EVERY records so a huge batch does not stall other requests while it is checked.
    for (const record of source as Iterable<unknown>) {
      take(record);
      if (records % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    options.onProgress?.({ records });
  } else {
    // File paths, byte streams (NDJSON, JSON array, gzip) and async iterables: the streaming feed
    // reader checks records, numbers lines and reports progress itself.
    for await (const product of readProductFeed(source, { ...options, onError, skipped, positions })) products.push(product);
  }
  return { products, skipped };
}
