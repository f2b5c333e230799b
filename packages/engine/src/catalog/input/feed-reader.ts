/**
 * Reads a product feed as a stream of product objects, without ever holding the whole feed as one
 * string: NDJSON is split line by line; a JSON array is split element by element by a small scanner
 * that tracks strings, escapes and nesting depth, and each element is `JSON.parse`d on its own.
 *
 * Sources: a file path (`.ndjson`, `.jsonl`, `.json`, optionally `.gz`; the format is taken from the
 * extension, else sniffed from the first non-space character: `[` is a JSON array, anything else
 * NDJSON; gzip is recognised by its magic bytes too), a byte stream, or an (async) iterable of objects.
 * @module
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { LoadOptions, ProductSource } from '../../engine-api.js';
import { AisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { MAX_PRODUCT_CHARS, productProblem } from './product-limits.js';
import type { SkipReport } from './skip-report.js';

/** Options of {@link readProductFeed}: the load options plus the report that collects skipped records. */
export type FeedReadOptions = LoadOptions & {
  skipped: SkipReport;
  /** When given, receives the 1-based line (NDJSON) or element index of each product read, in order. */
  positions?: number[];
};

/** How often (in records) `onProgress` is called. */
export const PROGRESS_EVERY = 10_000;

type Format = 'ndjson' | 'array' | 'sniff';


/** Records or throws for one bad record, as `onError` says. */
class Rejecter {
  constructor(private readonly options: FeedReadOptions, private readonly unit: 'line' | 'element') {}

  bad(position: number, message: string): void {
    if ((this.options.onError ?? 'reject') === 'skip') {
      this.options.skipped.add({ line: position, message });
      return;
    }
    throw new AisleError('CATALOG_BAD_INPUT', `${this.unit} ${position}: ${message}`, { details: { [this.unit]: position } });
  }
}

/** Reports progress every {@link PROGRESS_EVERY} records and once at the end. */
class Progress {
  records = 0;
  bytes = 0;
  private lastReported = -1;
  constructor(private readonly onProgress: LoadOptions['onProgress'], private readonly withBytes: boolean) {}

  record(): void {
    this.records++;
    if (this.onProgress && this.records % PROGRESS_EVERY === 0) this.report();
  }

  report(): void {
    if (!this.onProgress || this.lastReported === this.records) return;
    this.lastReported = this.records;
    this.onProgress(this.withBytes ? { records: this.records, bytes: this.bytes } : { records: this.records });
  }
}

/**
 * Most characters of one record's JSON text (an NDJSON line, an array element): no product within its
 * limits (`MAX_PRODUCT_CHARS`, every character escaped as `\uXXXX` at 6) is spelt longer. A longer one was
 * gathered whole before its product was refused: a feed whose lines do not end in "\n" (CR-only line
 * ends, records run together) is one line, and past V8's longest string (about 2^29 characters) joining
 * it threw a RangeError, an internal error of the upload.
 */
export const MAX_RECORD_CHARS = 8 * MAX_PRODUCT_CHARS;

/** The pieces of one record's text across chunks, bounded by {@link MAX_RECORD_CHARS}. */
class RecordPieces {
  private pieces: string[] = [];
  private length = 0;
  /** The record went past the bound: its pieces are dropped and it is a bad record once it ends. */
  oversized = false;

  /** `tooLong` is told once the record goes past the bound (it throws with `onError: 'reject'`). */
  constructor(private readonly tooLong: () => void) {}

  push(piece: string): void {
    if (this.oversized || piece.length === 0) return;
    this.length += piece.length;
    if (this.length <= MAX_RECORD_CHARS) {
      this.pieces.push(piece);
      return;
    }
    this.oversized = true;
    this.pieces = [];
    this.tooLong();
  }

  get empty(): boolean {
    return this.length === 0;
  }

  /** The record's text with `last` (undefined: it was too long), and a fresh start for the next. */
  take(last: string): string | undefined {
    this.push(last);
    const text = this.oversized ? undefined : this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
    this.pieces = [];
    this.length = 0;
    this.oversized = false;
    return text;
  }

  /** What was gathered so far (for a message). */
  peek(): string {
    return this.pieces.join('');
  }
}

/** The message of a record longer than {@link MAX_RECORD_CHARS}. */
const RECORD_TOO_LONG = `the record is longer than ${MAX_RECORD_CHARS} characters (a product holds at most ${MAX_PRODUCT_CHARS}): do the feed's lines end in "\\n"?`;

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function parseRecord(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `invalid JSON (${(err as Error).message}): ${shorten(text.trim())}` };
  }
}

function isReadable(source: unknown): source is Readable {
  return source instanceof Readable
    || (typeof source === 'object' && source !== null
      && typeof (source as Readable).pipe === 'function' && typeof (source as Readable).read === 'function');
}

function isByteChunk(chunk: unknown): chunk is Uint8Array | string {
  return typeof chunk === 'string' || chunk instanceof Uint8Array;
}

/** Prepends `first` to the rest of an iterator, as a Readable (to pipe it through gunzip). */
function rejoin(first: Uint8Array | string, rest: AsyncIterator<unknown>): Readable {
  return Readable.from((async function* () {
    yield first;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  })(), { objectMode: false });
}

/**
 * Reads products from `source`. Bad records (unparseable JSON, not an object, no string `refId`) are
 * pushed to `options.skipped` with their 1-based line number (NDJSON) or element index (JSON array,
 * object iterables) when `onError` is `'skip'`, and otherwise end the read with `CATALOG_BAD_INPUT`.
 * Blank lines and a UTF-8 byte-order mark are ignored.
 */
export async function* readProductFeed(source: ProductSource, options: FeedReadOptions): AsyncGenerator<Product> {
  // Products travel in batches (one per input chunk) through the inner generators and are flattened
  // only here: one async hop per product instead of one per generator level.
  for await (const batch of productBatches(source, options)) yield* batch;
}

async function* productBatches(source: ProductSource, options: FeedReadOptions): AsyncGenerator<Product[]> {
  if (typeof source === 'string') {
    const lower = source.toLowerCase();
    const base = lower.endsWith('.gz') ? lower.slice(0, -3) : lower;
    const format: Format = base.endsWith('.ndjson') || base.endsWith('.jsonl') ? 'ndjson' : 'sniff';
    let stream: Readable;
    try {
      stream = createReadStream(source);
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
    } catch (err) {
      throw new AisleError('CATALOG_BAD_INPUT', `cannot read product feed ${source}: ${(err as Error).message}`, { cause: err });
    }
    yield* readByteStream(stream, format, options, true);
    return;
  }
  if (isReadable(source)) {
    yield* readByteStream(source, 'sniff', options, false);
    return;
  }
  if (typeof source === 'object' && source !== null && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    yield* readObjects(source as Iterable<unknown> | AsyncIterable<unknown>, options);
    return;
  }
  throw new AisleError('CATALOG_BAD_INPUT', 'product source must be a file path, a byte stream or an iterable of products');
}

async function* readObjects(source: Iterable<unknown> | AsyncIterable<unknown>, options: FeedReadOptions): AsyncGenerator<Product[]> {
  const rejecter = new Rejecter(options, 'element');
  const progress = new Progress(options.onProgress, false);
  let index = 0;
  const sync = !(Symbol.asyncIterator in (source as object));
  let batch: Product[] = [];
  for await (const item of source as AsyncIterable<unknown>) {
    index++;
    const problem = productProblem(item);
    if (problem) {
      rejecter.bad(index, problem);
      continue;
    }
    progress.record();
    options.positions?.push(index);
    batch.push(item as Product);
    // A synchronous iterable is batched; an asynchronous one is passed on item by item (it may be live).
    if (!sync || batch.length >= 1000) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
  progress.report();
}

async function* readByteStream(stream: Readable, format: Format, options: FeedReadOptions, ownStream: boolean): AsyncGenerator<Product[]> {
  const iterator = (stream[Symbol.asyncIterator]() as AsyncIterator<unknown>);
  try {
    yield* readChunks(iterator, format, options);
  } finally {
    // A file opened here is closed however the read ends (the consumer broke off, or a bad record
    // rejected the feed). A caller's stream is left to the caller: an HTTP request, for one, must stay
    // open so that the error response can still be written.
    if (ownStream && !stream.destroyed) stream.destroy();
  }
}

async function* readChunks(iterator: AsyncIterator<unknown>, format: Format, options: FeedReadOptions): AsyncGenerator<Product[]> {
  let first = await iterator.next();
  // Skip empty leading chunks so the sniffing below sees real bytes.
  while (!first.done && isByteChunk(first.value) && first.value.length === 0) first = await iterator.next();
  if (first.done) return;
  const firstChunk = first.value;
  if (!isByteChunk(firstChunk)) {
    // An object-mode stream of products.
    yield* readObjects((async function* () {
      yield firstChunk;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    })(), options);
    return;
  }
  let chunks: AsyncIterator<unknown>;
  if (typeof firstChunk !== 'string' && firstChunk.length >= 2 && firstChunk[0] === 0x1f && firstChunk[1] === 0x8b) {
    chunks = boundedUnzip(rejoin(firstChunk, iterator).pipe(createGunzip()), options.maxUnzippedBytes);
  } else {
    chunks = (async function* () {
      yield firstChunk;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    })();
  }
  yield* parseText(chunks, format, options);
}

/**
 * The chunks of an unzipped stream, failing with `LIMIT_EXCEEDED` once they pass `max` bytes: the upload
 * limit counts the bytes sent, and a few kilobytes of gzip unzip to gigabytes, every record of which a
 * load holds until it is built.
 */
async function* boundedUnzip(unzipped: Readable, max: number | undefined): AsyncGenerator<unknown> {
  let bytes = 0;
  try {
    for await (const chunk of unzipped) {
      bytes += (chunk as Buffer).length;
      if (max !== undefined && bytes > max) {
        throw new AisleError('LIMIT_EXCEEDED', `the product feed exceeds the limit of ${max} bytes once unzipped; nothing was changed`);
      }
      yield chunk;
    }
  } finally {
    unzipped.destroy();
  }
}

/**
 * Where the bytes of `chunk` stop being UTF-8, counted from its start: the first byte that neither
 * starts a sequence nor continues one (leading continuation bytes belong to a sequence the chunk
 * before began). Near, not exact (over-long forms and surrogates pass): it only words the error.
 */
function firstBadUtf8Byte(chunk: Uint8Array): number {
  let i = 0;
  while (i < chunk.length && i < 3 && (chunk[i]! & 0xc0) === 0x80) i++;
  while (i < chunk.length) {
    const c = chunk[i]!;
    const length = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length && i + k < chunk.length; k++) if ((chunk[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return Math.max(0, chunk.length - 1);
}

/**
 * The feed's bytes are not UTF-8 (a Latin-1 or Windows-1252 export, most often): the whole feed is
 * refused, whatever `onError` says. Decoded with U+FFFD in place of the bad bytes, every accented
 * title would be stored as text nobody sent; skipped, every such product would be dropped — the bytes
 * cannot be told apart per record before they are decoded.
 */
function notUtf8(byteOffset: number): AisleError {
  return new AisleError(
    'CATALOG_BAD_INPUT',
    `the product feed is not valid UTF-8 (near byte ${byteOffset + 1}): convert it to UTF-8 (e.g. iconv -f WINDOWS-1252 -t UTF-8); nothing was loaded`,
  );
}

/**
 * Decodes the byte chunks to text chunks (UTF-8 sequences split across chunks are joined; BOM dropped);
 * bytes that are not UTF-8 refuse the feed (see {@link notUtf8}).
 */
async function* decode(chunks: AsyncIterator<unknown>, progress: Progress): AsyncGenerator<string> {
  // ignoreBOM keeps a leading BOM in the text, dropped below as for string chunks.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let atStart = true;
  for (;;) {
    let next: IteratorResult<unknown>;
    try {
      next = await chunks.next();
    } catch (err) {
      if (err instanceof AisleError) throw err;
      throw new AisleError('CATALOG_BAD_INPUT', `cannot read product feed: ${(err as Error).message}`, { cause: err });
    }
    if (next.done) break;
    const chunk = next.value;
    let text: string;
    if (typeof chunk === 'string') {
      text = chunk;
      progress.bytes += Buffer.byteLength(chunk);
    } else if (chunk instanceof Uint8Array) {
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw notUtf8(progress.bytes + firstBadUtf8Byte(chunk));
      }
      progress.bytes += chunk.length;
    } else {
      throw new AisleError('CATALOG_BAD_INPUT', 'a product byte stream yielded a non-byte chunk');
    }
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length > 0) yield text;
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    // The feed ends inside a multi-byte sequence.
    throw notUtf8(Math.max(0, progress.bytes - 1));
  }
  if (rest.length > 0) yield rest;
}

async function* parseText(chunks: AsyncIterator<unknown>, format: Format, options: FeedReadOptions): AsyncGenerator<Product[]> {
  const progress = new Progress(options.onProgress, true);
  const texts = decode(chunks, progress);
  let kind = format;
  let head: string | undefined;
  if (kind === 'sniff') {
    // Find the first non-space character; keep what was read so far for the parser.
    let seen = '';
    for (;;) {
      const next = await texts.next();
      if (next.done) break;
      seen += next.value;
      if (/\S/.test(next.value)) break;
    }
    head = seen;
    kind = /^\s*\[/.test(seen) ? 'array' : 'ndjson';
  }
  async function* all(): AsyncGenerator<string> {
    if (head !== undefined && head.length > 0) yield head;
    yield* texts;
  }
  if (kind === 'array') yield* parseArray(all(), options, progress);
  else yield* parseNdjson(all(), options, progress);
  progress.report();
}

async function* parseNdjson(texts: AsyncIterable<string>, options: FeedReadOptions, progress: Progress): AsyncGenerator<Product[]> {
  const rejecter = new Rejecter(options, 'line');
  let lineNumber = 0;
  // The current incomplete line, as pieces (joined only once its end is seen: a huge line that
  // arrives in many chunks is not re-concatenated at every chunk).
  const pieces = new RecordPieces(() => {
    if ((options.onError ?? 'reject') === 'reject') rejecter.bad(lineNumber + 1, RECORD_TOO_LONG);
  });
  let batch: Product[] = [];
  function take(text: string | undefined): void {
    lineNumber++;
    if (text === undefined) {
      rejecter.bad(lineNumber, RECORD_TOO_LONG);
      return;
    }
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.length === 0 || !/\S/.test(line)) return;
    const parsed = parseRecord(line);
    if (parsed.error !== undefined) {
      rejecter.bad(lineNumber, parsed.error);
      return;
    }
    const problem = productProblem(parsed.value);
    if (problem) {
      rejecter.bad(lineNumber, problem);
      return;
    }
    progress.record();
    options.positions?.push(lineNumber);
    batch.push(parsed.value as Product);
  }
  for await (const text of texts) {
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      const line = text.slice(from, nl);
      take(pieces.empty && line.length <= MAX_RECORD_CHARS ? line : pieces.take(line));
      from = nl + 1;
    }
    if (from < text.length) pieces.push(from === 0 ? text : text.slice(from));
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  if (!pieces.empty || pieces.oversized) take(pieces.take(''));
  if (batch.length > 0) yield batch;
}

const OPEN_BRACE = 0x7b, CLOSE_BRACE = 0x7d, OPEN_BRACKET = 0x5b, CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Splits a JSON array into its element texts without parsing them: a scanner that knows whether it is
 * inside a string (and after a backslash there), and the nesting depth. An element ends at a comma or
 * the closing bracket at depth 0.
 */
async function* parseArray(texts: AsyncIterable<string>, options: FeedReadOptions, progress: Progress): AsyncGenerator<Product[]> {
  const rejecter = new Rejecter(options, 'element');
  type State = 'before-array' | 'before-element' | 'in-element' | 'after-element' | 'done';
  let state: State = 'before-array';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let index = 0;
  const pieces = new RecordPieces(() => {
    if ((options.onError ?? 'reject') === 'reject') rejecter.bad(index + 1, RECORD_TOO_LONG);
  });
  let trailingGarbage = false;

  let batch: Product[] = [];
  function finish(text: string | undefined): void {
    index++;
    if (text === undefined) {
      rejecter.bad(index, RECORD_TOO_LONG);
      return;
    }
    const parsed = parseRecord(text);
    if (parsed.error !== undefined) {
      rejecter.bad(index, parsed.error);
      return;
    }
    const problem = productProblem(parsed.value);
    if (problem) {
      rejecter.bad(index, problem);
      return;
    }
    progress.record();
    options.positions?.push(index);
    batch.push(parsed.value as Product);
  }

  for await (const text of texts) {
    let start = state === 'in-element' ? 0 : -1;
    const n = text.length;
    let nextBackslash = -1;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (state === 'in-element') {
        if (inString) {
          if (escaped) {
            escaped = false;
            continue;
          }
          // Jump to the next quote or backslash (string contents are most of a feed's bytes).
          if (nextBackslash < i) {
            nextBackslash = text.indexOf('\\', i);
            if (nextBackslash < 0) nextBackslash = n;
          }
          let quote = text.indexOf('"', i);
          if (quote < 0) quote = n;
          if (nextBackslash < quote) {
            escaped = true;
            i = nextBackslash;
          } else if (quote < n) {
            inString = false;
            i = quote;
          } else i = n;
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (depth > 0) depth--;
          else {
            // The array's closing bracket right after a primitive element.
            finish(pieces.take(text.slice(start, i)));
            state = 'done';
            continue;
          }
        } else if (c === COMMA && depth === 0) {
          finish(pieces.take(text.slice(start, i)));
          state = 'before-element';
          continue;
        }
        if (depth === 0 && (c === CLOSE_BRACE || c === CLOSE_BRACKET)) {
          // An object or array element is complete.
          finish(pieces.take(text.slice(start, i + 1)));
          state = 'after-element';
        }
        continue;
      }
      if (isSpace(c)) continue;
      switch (state) {
        case 'before-array':
          if (c !== OPEN_BRACKET) throw new AisleError('CATALOG_BAD_INPUT', 'element 1: a JSON array feed must start with "["');
          state = 'before-element';
          break;
        case 'before-element':
          if (c === CLOSE_BRACKET && index === 0) {
            state = 'done';
            break;
          }
          state = 'in-element';
          start = i;
          depth = 0;
          inString = false;
          escaped = false;
          i--; // re-scan this character as part of the element
          break;
        case 'after-element':
          if (c === COMMA) state = 'before-element';
          else if (c === CLOSE_BRACKET) state = 'done';
          else {
            // Junk between elements: make it part of a (bad) next element.
            state = 'in-element';
            start = i;
            depth = 0;
            i--;
          }
          break;
        case 'done':
          trailingGarbage = true;
          break;
      }
      if (trailingGarbage) break;
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
    if (trailingGarbage) break;
    if (state === 'in-element') pieces.push(start <= 0 ? text : text.slice(start));
  }
  if (trailingGarbage) {
    rejecter.bad(index + 1, 'unexpected content after the end of the JSON array');
    return;
  }
  if (state === 'before-array') return; // empty or blank input: no products
  if (state !== 'done') {
    const partial = pieces.peek();
    rejecter.bad(index + 1, `unterminated JSON array (input ended ${partial.trim().length > 0 ? `inside element: ${shorten(partial.trim())}` : 'before "]"'})`);
  }
}
