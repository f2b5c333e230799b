/**
 * Request-body reading with limits: byte size (413), JSON nesting depth and array lengths (400),
 * Content-Type checks (415). Bodies that a framework (Express/Connect body parsers) already read are
 * taken from `req.body`.
 * @module
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { HttpError } from './errors.js';

/** Limits applied to JSON request bodies. */
export interface BodyLimits {
  /** Maximum body size in bytes. */
  maxBytes: number;
  /** Maximum nesting depth of objects and arrays. */
  maxDepth: number;
  /** Maximum number of elements of any array in the body. */
  maxArrayLength: number;
}

/** The media type of a request (lowercase, without parameters), or '' when absent. */
export function mediaType(req: IncomingMessage): string {
  const header = req.headers['content-type'];
  if (!header) return '';
  const semi = header.indexOf(';');
  return (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/** Throws 415 unless the request's media type is one of `accepted`. */
export function requireMediaType(req: IncomingMessage, accepted: readonly string[], codings: readonly ContentCoding[] = []): string {
  const type = mediaType(req);
  if (!accepted.includes(type)) {
    throw new HttpError('MEDIA_TYPE_UNSUPPORTED', { accepted: accepted.join(' or '), got: type ? ` (got ${type})` : '' }, { key: '$' });
  }
  requireContentCoding(req, codings);
  return type;
}

/** A content coding an operation decodes besides identity (a product feed: gzip, which the engine unzips). */
export type ContentCoding = 'gzip';

/**
 * Refuses (415) a body whose `Content-Encoding` is not identity or one of `codings` (RFC 9110, 8.4.1):
 * read as it came, a gzipped search was refused as "not valid UTF-8" and a coding nobody decodes (`br`)
 * was read as plain text. `x-gzip` is gzip (RFC 9110, 8.4.1.3); one coding at most.
 */
function requireContentCoding(req: IncomingMessage, codings: readonly ContentCoding[]): void {
  const header = req.headers['content-encoding'];
  if (header === undefined) return;
  const applied = header.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity').map((c) => (c === 'x-gzip' ? 'gzip' : c));
  if (applied.length === 0 || (applied.length === 1 && (codings as readonly string[]).includes(applied[0]!))) return;
  throw new HttpError('CONTENT_ENCODING_UNSUPPORTED', {
    accepted: ['identity', ...codings].join(' or '), got: applied.join(', '), send: codings.length === 0 ? 'uncompressed' : `uncompressed or ${codings.join(' or ')}ped`,
  }, { key: '$' });
}

interface FrameworkRequest extends IncomingMessage {
  body?: unknown;
  _body?: boolean;
}

/** Bytes beyond the limit that are still read and discarded so a keep-alive connection stays usable. */
const DRAIN_FACTOR = 8;

/** Reads the raw body, failing with 413 once it exceeds `maxBytes`. */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    const tooLarge = () => new HttpError('BODY_TOO_LARGE', { max: maxBytes });
    if (Number.isFinite(declared) && declared > maxBytes * DRAIN_FACTOR) {
      // Far too large to drain: answer now; node discards what the client still sends.
      reject(tooLarge());
      return;
    }
    if (req.readableEnded) {
      // Already consumed upstream (a framework read it without leaving req.body): nothing more will come.
      resolve(Buffer.alloc(0));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let exceeded = Number.isFinite(declared) && declared > maxBytes;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) exceeded = true;
      if (exceeded) {
        chunks.length = 0;
        if (size > maxBytes * DRAIN_FACTOR) {
          cleanup();
          reject(tooLarge());
        }
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (exceeded) reject(tooLarge());
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new HttpError('BODY_UNREADABLE', { reason: err.message }));
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(new HttpError('BODY_ABORTED', {}));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** A request body handed on as a stream, after a look at its first byte. */
export interface PeekedBody {
  /** The first non-whitespace byte, or undefined when the body is blank. */
  first: number | undefined;
  /** The whole body (what was read to find `first`, then the rest); fails with 413 past the limit. */
  stream: Readable;
  /** True once the stream failed because the body went past the limit. */
  exceeded(): boolean;
}

/**
 * Streams a large body (a product feed) to a consumer without holding it whole: reads just enough to
 * find its first non-whitespace byte (so blank bodies and wrong formats are refused before anything is
 * changed), then replays it. Past `maxBytes` the stream fails; the caller answers 413.
 */
export async function peekBodyStream(req: IncomingMessage, maxBytes: number): Promise<PeekedBody> {
  const tooLarge = () => new HttpError('BODY_TOO_LARGE', { max: maxBytes }, { headers: { connection: 'close' } });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  let first: number | undefined;
  let exceeded = false;
  while (first === undefined) {
    const next = await chunks.next();
    if (next.done) break;
    size += next.value.length;
    if (size > maxBytes) throw tooLarge();
    head.push(next.value);
    first = next.value.find((byte) => !isSpace(byte));
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* head;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      size += next.value.length;
      if (size > maxBytes) {
        exceeded = true;
        throw tooLarge();
      }
      yield next.value;
    }
  }
  return { first, stream: Readable.from(replay(), { objectMode: false }), exceeded: () => exceeded };
}

/**
 * Scans raw JSON for its nesting depth without parsing (so a hostile body cannot make the parser
 * recurse deeply); returns false as soon as `maxDepth` is exceeded.
 */
export function jsonDepthWithin(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return true;
}

function formatPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/** Throws 400 naming the path of the first array longer than `maxArrayLength`. */
export function checkArrayLengths(value: unknown, maxArrayLength: number, path = ''): void {
  if (Array.isArray(value)) {
    if (value.length > maxArrayLength) {
      throw new HttpError('BODY_ARRAY_TOO_LONG', { at: path || 'the body', length: value.length, max: maxArrayLength }, { key: path || '$' });
    }
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item !== null && typeof item === 'object') checkArrayLengths(item, maxArrayLength, formatPath(path, i));
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') checkArrayLengths(item, maxArrayLength, formatPath(path, key));
    }
  }
}

/**
 * The text of a JSON body's bytes. JSON text is UTF-8 (RFC 8259, section 8.1): bytes that are not
 * (a Latin-1 export, a truncated sequence) are refused with 400 rather than decoded with U+FFFD in
 * place of each bad byte, which would store a refId, an order id or a title that nobody sent.
 */
export function utf8Text(raw: Buffer): string {
  if (!isUtf8(raw)) throw new HttpError('BODY_NOT_JSON', { reason: 'its bytes are not valid UTF-8 (JSON text is UTF-8, RFC 8259)' });
  // A leading byte order mark is not JSON, but RFC 8259 (8.1) lets a parser ignore it, and editors and
  // .NET's StreamWriter(Encoding.UTF8) write one: it made every such body a 400 "Unexpected token".
  return raw.toString('utf8', hasUtf8Bom(raw) ? 3 : 0);
}

/** Whether `raw` starts with the UTF-8 byte order mark (EF BB BF). */
function hasUtf8Bom(raw: Buffer): boolean {
  return raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
}

/** Parses JSON text within the limits; malformed JSON → 400 with the key `$`. */
export function parseJson(text: string, limits: BodyLimits): unknown {
  if (!jsonDepthWithin(text, limits.maxDepth)) {
    throw new HttpError('BODY_TOO_DEEP', { max: limits.maxDepth });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError('BODY_NOT_JSON', { reason: (err as Error).message });
  }
  if (Number.isFinite(limits.maxArrayLength)) checkArrayLengths(value, limits.maxArrayLength);
  return value;
}

/** Reads and parses a JSON body within the limits (or takes one a framework already parsed). */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const framework = req as FrameworkRequest;
  if (framework.body !== undefined && (framework._body === true || req.readableEnded)) {
    const body = framework.body;
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      const text = typeof body === 'string' ? body : utf8Text(body);
      if (Buffer.byteLength(text) > limits.maxBytes) throw new HttpError('BODY_TOO_LARGE', { max: limits.maxBytes });
      return parseJson(text, limits);
    }
    checkArrayLengths(body, limits.maxArrayLength);
    return body;
  }
  const raw = await readRawBody(req, limits.maxBytes);
  if (raw.length === 0) throw new HttpError('BODY_EMPTY', {});
  return parseJson(utf8Text(raw), limits);
}
