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
import { SLICE_MS } from '../build/time-slices.js';

const PROGRESS_EVERY = 10_000;
/**
 * Records checked between two looks at the clock: the event loop is handed back once a turn has taken
 * {@link SLICE_MS}. A fixed count of records per turn was wrong one way or the other: a check takes a
 * few µs, but while a collection marks a big heap (a replace of a million products, the old version's
 * and the caller's objects alive) it took up to 120 µs, so 250 records held the loop 31 ms and 10,000
 * checks against the pinned types 53–89 ms (issue #27 item 3, a profile of the replace at 1M).
 */
const CLOCK_EVERY = 64;


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
  const { products, skipped, lines } = await readRecords(source, options);
  const kept = await withoutMisfits(products, lines, fit, options.onError ?? 'reject', skipped);
  if (positions) for (let i = 0; i < kept.products.length; i++) positions.push(lineOf(kept.lines, i));
  return { products: kept.products, skipped };
}

/**
 * Where each product of a list was read: its 1-based record number (line, for feeds). Undefined when
 * the list is the records themselves, in order (nothing was skipped): product `i` is record `i + 1`,
 * and no list of a million numbers is pushed for that.
 */
type Lines = readonly number[] | undefined;

function lineOf(lines: Lines, i: number): number {
  return lines === undefined ? i + 1 : lines[i]!;
}

/**
 * The records of a list that pass a check, made as it goes: the list itself (and its lines) while none is
 * dropped, a list of their own from the first one dropped. A replace of a million that all pass pushed
 * two lists of a million, grown by copies of themselves, each a stall at 1M products.
 */
class KeptRecords {
  private own: { products: Product[]; lines: number[] } | undefined;

  constructor(private readonly records: readonly unknown[], private readonly lines: Lines) {}

  /** Record `i` passes (records are told in order). */
  keep(i: number): void {
    if (this.own === undefined) return;
    this.own.products.push(this.records[i] as Product);
    this.own.lines.push(lineOf(this.lines, i));
  }

  /** Record `i` is dropped. */
  drop(i: number): void {
    this.own ??= { products: this.records.slice(0, i) as Product[], lines: Array.from({ length: i }, (_, k) => lineOf(this.lines, k)) };
  }

  /** The records kept, and whether they are the list itself (nothing dropped). */
  result(): { products: readonly Product[]; lines: Lines; all: boolean } {
    return this.own === undefined ? { products: this.records as readonly Product[], lines: this.lines, all: true } : { ...this.own, all: false };
  }
}

/** A turn of the event loop for others, when this one has taken {@link SLICE_MS} since `since`; the new turn's start. */
async function yieldIfDue(since: number): Promise<number> {
  const now = performance.now();
  if (now - since < SLICE_MS) return since;
  await new Promise((resolve) => setImmediate(resolve));
  return performance.now();
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
  products: Product[], lines: Lines, fit: CatalogFit, onError: 'reject' | 'skip', skipped: SkipReport,
): Promise<{ products: Product[]; lines: Lines }> {
  const fieldTypes = fit.fieldTypes !== undefined && Object.keys(fit.fieldTypes).length > 0 ? fit.fieldTypes : undefined;
  let dimension = fit.vectorDimension ?? 0;
  const kept = new KeptRecords(products, lines);
  const bad: (FieldMismatch & { line: number })[] = [];
  let turn = performance.now();
  for (let i = 0; i < products.length; i++) {
    // A replace of a million products: the event loop is handed back now and then, as while reading.
    if ((i & (CLOCK_EVERY - 1)) === CLOCK_EVERY - 1) turn = await yieldIfDue(turn);
    const product = products[i]!;
    const line = lineOf(lines, i);
    const mismatch = fieldTypes === undefined ? undefined : firstMismatch(product, fieldTypes);
    let dropped = mismatch !== undefined;
    if (mismatch !== undefined) {
      const message = `product ${line}: product "${mismatch.refId}": ${mismatch.message}`;
      if (onError === 'skip') skipped.add({ line, message, refId: mismatch.refId, field: mismatch.field, value: mismatch.value });
      else if (bad.length < MAX_REPORTED_SKIPS) bad.push({ line, ...mismatch, message });
    } else {
      const vector = product[IMAGE_VECTOR_FIELD];
      const problem = vectorDimensionProblem(vector, dimension);
      if (problem !== undefined) {
        const message = `product ${line}: product "${shortRefId(product.refId)}": ${problem}`;
        if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line } });
        skipped.add({ line, message });
        dropped = true;
      } else if (dimension === 0 && Array.isArray(vector)) dimension = vector.length; // a non-empty vector here, or none (`null` removes one)
    }
    if (dropped) kept.drop(i);
    else kept.keep(i);
  }
  if (bad.length > 0) {
    const problem = { ...problemDetails(400, { $: bad.map((b) => b.message) }), records: bad };
    throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${bad[0]!.message}`, { problem, details: { line: bad[0]!.line } });
  }
  const { products: passed, lines: passedLines } = kept.result();
  return { products: passed as Product[], lines: passedLines };
}

/** {@link readProducts} without the checks against the catalog. */
async function readRecords(source: ProductSource, options: LoadOptions): Promise<{ products: Product[]; skipped: SkipReport; lines: Lines }> {
  const onError = options.onError ?? 'reject';
  const skipped = new SkipReport();
  if (Array.isArray(source)) return readArray(source, options, onError, skipped);
  if (typeof source !== 'string' && isIterable(source) && !isAsyncIterable(source)) {
    // Other in-memory sources (generators, sets): taken one at a time, as they come.
    const products: unknown[] = [];
    let turn = performance.now();
    for (const record of source as Iterable<unknown>) {
      products.push(record);
      if ((products.length & (CLOCK_EVERY - 1)) === 0) turn = await yieldIfDue(turn);
    }
    return readArray(products, options, onError, skipped, true);
  }
  // File paths, byte streams (NDJSON, JSON array, gzip) and async iterables: the streaming feed
  // reader checks records, numbers lines and reports progress itself.
  const products: Product[] = [];
  const lines: number[] = [];
  for await (const product of readProductFeed(source, { ...options, onError, skipped, positions: lines })) products.push(product);
  return { products, skipped, lines };
}

/**
 * The records of an in-memory list checked in a plain loop (no promise per element), handing the event
 * loop back once a turn has taken its slice, so a huge batch does not stall other requests meanwhile.
 */
async function readArray(
  records: readonly unknown[], options: LoadOptions, onError: 'reject' | 'skip', skipped: SkipReport, owned = false,
): Promise<{ products: Product[]; skipped: SkipReport; lines: Lines }> {
  const kept = new KeptRecords(records, undefined);
  let turn = performance.now();
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const line = i + 1;
    const problem = productProblem(record);
    if (problem !== undefined) {
      const message = `product ${line}: ${problem}`;
      if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line } });
      skipped.add({ line, message });
      kept.drop(i);
    } else kept.keep(i);
    if (options.onProgress && line % PROGRESS_EVERY === 0) options.onProgress({ records: line });
    if ((i & (CLOCK_EVERY - 1)) === CLOCK_EVERY - 1) turn = await yieldIfDue(turn);
  }
  options.onProgress?.({ records: records.length });
  const { products, lines, all } = kept.result();
  // The whole list: a caller's is copied once (it stays the caller's).
  return { products: (all && !owned ? products.slice() : products) as Product[], skipped, lines };
}
