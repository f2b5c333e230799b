/**
 * Reads a product source into checked product objects: a bad record (not an object, or without a
 * non-empty string `refId`) rejects the whole batch, or is listed in `skipped` with `onError: 'skip'`.
 * @module
 */
import type { Readable } from 'node:stream';
import type { LoadOptions, ProductSource, SkippedLine } from '../engine-api.js';
import { AisleError } from '../errors.js';
import type { Product } from '../types.js';

const PROGRESS_EVERY = 10_000;

/** Why a record is not a product, or undefined when it is one. */
export function productProblem(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'is not a JSON object';
  const refId = (record as { refId?: unknown }).refId;
  if (typeof refId !== 'string' || refId.length === 0) return 'has no string refId';
  return undefined;
}

type FeedReader = (source: ProductSource, options: LoadOptions & { skipped: SkippedLine[] }) => AsyncIterable<Product>;

// File paths and byte streams go through the feed reader (NDJSON or JSON array, streamed). It is
// imported lazily so that in-memory batches never load stream code.
async function feedReader(): Promise<FeedReader> {
  const specifier = './feed-reader.js';
  const mod = (await import(specifier)) as { readProductFeed: FeedReader };
  return mod.readProductFeed;
}

function isIterable(source: unknown): source is Iterable<unknown> {
  return typeof (source as Iterable<unknown>)[Symbol.iterator] === 'function';
}

/**
 * All records of `source`, checked, in order. With `onError: 'reject'` (default) the first bad record
 * throws `CATALOG_BAD_INPUT` naming its 1-based index (line for feeds).
 */
export async function readProducts(source: ProductSource, options: LoadOptions = {}): Promise<{ products: Product[]; skipped: SkippedLine[] }> {
  const onError = options.onError ?? 'reject';
  const skipped: SkippedLine[] = [];
  const products: Product[] = [];
  let records = 0;
  const take = (record: unknown): void => {
    records++;
    const problem = productProblem(record);
    if (problem !== undefined) {
      const message = `product ${records} ${problem}`;
      if (onError === 'reject') throw new AisleError('CATALOG_BAD_INPUT', `catalog: ${message}`, { details: { line: records } });
      skipped.push({ line: records, message });
      return;
    }
    products.push(record as Product);
    if (options.onProgress && records % PROGRESS_EVERY === 0) options.onProgress({ records });
  };
  if (typeof source === 'string' || typeof (source as Readable).pipe === 'function') {
    const read = await feedReader();
    for await (const product of read(source, { ...options, onError, skipped })) take(product);
  } else if (isIterable(source) && typeof source !== 'string') {
    for (const record of source as Iterable<unknown>) take(record);
  } else if (typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    for await (const record of source as AsyncIterable<unknown>) take(record);
  } else {
    throw new AisleError('CATALOG_BAD_INPUT', 'catalog: the product source must be a file path, a stream, or an (async) iterable of products');
  }
  options.onProgress?.({ records });
  return { products, skipped };
}
