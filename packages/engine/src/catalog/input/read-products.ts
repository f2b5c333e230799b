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
import { productProblem, shortRefId } from './product-limits.js';
import { IMAGE_VECTOR_FIELD } from '../field-values.js';
import { vectorDimensionProblem } from '../columns/vector-column.js';
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

/** What a load or patch checks its records against besides each record alone: the catalog it changes. */
export interface CatalogFit {
  /** The website's pinned field types (`settings.fields`). */
  fieldTypes?: FieldTypes;
  /**
   * The dimension of the catalog's live image vectors (0 or absent: none, or a replace, which keeps none
   * of them): every vector of the request must have it; without one, the request's first vector sets it.
   */
  vectorDimension?: number;
}

/**
 * All records of `source`, checked, in order. With `onError: 'reject'` (default) the first bad record
 * throws `CATALOG_BAD_INPUT` naming its 1-based index (line for feeds). `positions`, when given,
 * receives each product's 1-based index (line for feeds), so a later check can name the record.
 * Then each record is checked against the catalog (`fit`): a value that does not fit its field's pinned
 * type (see {@link withoutMisfits}), an image vector of another dimension than the catalog's. A patch
 * record is checked as sent, which fits exactly when the merged product does (its other values are
 * stored, so they fit; `null` removes; a vector is replaced whole).
 */
export async function readProducts(
  source: ProductSource, options: LoadOptions = {}, positions?: number[], fit: CatalogFit = {},
): Promise<{ products: Product[]; skipped: SkipReport }> {
  const read: number[] = [];
  const { products, skipped } = await readRecords(source, options, read);
  const kept = await withoutMisfits(products, read, fit, options.onError ?? 'reject', skipped);
  positions?.push(...kept.positions);
  return { products: kept.products, skipped };
}

/**
 * The products of a replace, read and checked like any load's against the pinned types only (a replace
 * keeps no product, so no vector dimension of the catalog's). A replace left with no product — none given
 * (`[]`, an export that came out empty), or every record bad and skipped — throws `CATALOG_BAD_INPUT` and
 * changes nothing: it would empty the catalog, which a blank body was already refused for. Deleting
 * products is the delete operations' job.
 */
export async function readReplacement(
  source: ProductSource, options: LoadOptions = {}, fieldTypes: FieldTypes | undefined,
): Promise<{ products: Product[]; skipped: SkipReport }> {
  const read = await readProducts(source, options, undefined, { fieldTypes });
  if (read.products.length > 0) return read;
  const { count, first } = read.skipped;
  const held = count === 0 ? 'this one held none' : `${count === 1 ? 'its one record was' : `all ${count} records of this one were`} bad (${first[0]!.message})`;
  throw new AisleError('CATALOG_BAD_INPUT', `catalog: a replace must hold at least one product, and ${held}: nothing was changed (a replace with no product would empty the catalog; to delete products, delete them)`);
}

/**
 * The products that fit the catalog (`fit`). A value that does not fit its pinned type, with `'reject'`,
 * throws `CATALOG_BAD_INPUT` whose problem details list (up to {@link MAX_REPORTED_SKIPS}) every such
 * record of the batch, as `{line, refId, field, value, message}`; an image vector of another dimension
 * throws naming its record, as a record's own problem does. With `'skip'` each goes to `skipped`.
 */
async function withoutMisfits(
  products: readonly Product[], positions: readonly number[], fit: CatalogFit, onError: 'reject' | 'skip', skipped: SkipReport,
): Promise<{ products: Product[]; positions: number[] }> {
  const fieldTypes = fit.fieldTypes !== undefined && Object.keys(fit.fieldTypes).length > 0 ? fit.fieldTypes : undefined;
  let dimension = fit.vectorDimension ?? 0;
  const kept: Product[] = [];
  const keptPositions: number[] = [];
  const bad: (FieldMismatch & { line: number })[] = [];
  for (let i = 0; i < products.length; i++) {
    // A replace of a million products: the event loop is handed back now and then, as while reading.
    if (i > 0 && i % CHECKS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const product = products[i]!;
    const line = positions[i]!;
    const mismatch = fieldTypes === undefined ? undefined : firstMismatch(product, fieldTypes);
    if (mismatch !== undefined) {
      const message = `product ${line}: product "${mismatch.refId}": ${mismatch.message}`;
      if (onError === 'skip') skipped.add({ line, message, refId: mismatch.refId, field: mismatch.field, value: mismatch.value });
      else if (bad.length < MAX_REPORTED_SKIPS) bad.push({ line, ...mismatch, message });
      continue;
    }
    const vector = product[IMAGE_VECTOR_FIELD];
    const problem = vectorDimensionProblem(vector, dimension);
    if (problem !== undefined) {
      const message = `product ${line}: product "${shortRefId(product.refId)}": ${problem}`;
      if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line } });
      skipped.add({ line, message });
      continue;
    }
    // Records checked on their own hold a non-empty vector here, or none (`null` removes one).
    if (dimension === 0 && Array.isArray(vector)) dimension = vector.length;
    kept.push(product);
    keptPositions.push(line);
  }
  if (bad.length > 0) {
    const problem = { ...problemDetails(400, { $: bad.map((b) => b.message) }), records: bad };
    throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${bad[0]!.message}`, { problem, details: { line: bad[0]!.line } });
  }
  return { products: kept, positions: keptPositions };
}

/** {@link readProducts} without the checks against the catalog. */
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
