import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { SkippedLine } from '../../engine-api.js';
import { isAisleError } from '../../errors.js';
import type { Product } from '../../types.js';
import { MAX_RECORD_CHARS, readProductFeed, type FeedReadOptions } from './feed-reader.js';
import { SkipReport } from './skip-report.js';

const dir = mkdtempSync(join(tmpdir(), 'aisle-feed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function collect(source: Parameters<typeof readProductFeed>[0], options: Partial<FeedReadOptions> = {}): Promise<{ products: Product[]; skipped: SkippedLine[] }> {
  const report = new SkipReport();
  const products: Product[] = [];
  for await (const p of readProductFeed(source, { ...options, skipped: report })) products.push(p);
  return { products, skipped: report.first };
}

async function rejection(source: Parameters<typeof readProductFeed>[0], options: Partial<FeedReadOptions> = {}): Promise<Error> {
  try {
    await collect(source, options);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the read to fail');
}

/** A byte stream delivering `text` in chunks of `size` bytes (splitting UTF-8 sequences too). */
function chunked(text: string | Buffer, size: number): Readable {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks, { objectMode: false });
}

const products = [
  { refId: 'a', title: 'Red shoe', price: 10 },
  { refId: 'b', title: 'Blue "quoted" hat, with comma', tags: ['x', 'y]'], nested: { deep: [1, { z: '}' }] } },
  { refId: 'c', title: 'Ünïcødé — 日本語 🚀', org_price: '12.50' },
];
const ndjson = products.map((p) => JSON.stringify(p)).join('\n') + '\n';
const array = `[\n  ${products.map((p) => JSON.stringify(p)).join(',\n  ')}\n]\n`;

describe('readProductFeed', () => {
  it('reads an NDJSON file (blank lines, CRLF and a BOM ignored)', async () => {
    const path = file('feed.ndjson', '\uFEFF' + products.map((p) => JSON.stringify(p)).join('\r\n\r\n   \n') + '\r\n');
    const { products: read, skipped } = await collect(path);
    expect(read).toEqual(products);
    expect(skipped).toEqual([]);
  });

  it('reads a .jsonl file and a file without a final newline', async () => {
    expect((await collect(file('feed.jsonl', ndjson.trimEnd()))).products).toEqual(products);
  });

  it('reads a JSON array file, and sniffs the format when the extension says nothing', async () => {
    expect((await collect(file('feed.json', array))).products).toEqual(products);
    expect((await collect(file('feed.txt', '\uFEFF  ' + array))).products).toEqual(products);
    expect((await collect(file('feed2.txt', ndjson))).products).toEqual(products);
    expect((await collect(file('feed.json', JSON.stringify(products)))).products).toEqual(products);
    expect((await collect(file('empty.json', '[ ]'))).products).toEqual([]);
    expect((await collect(file('blank.ndjson', '\n\n'))).products).toEqual([]);
  });

  it('reads gzipped files and gzipped streams', async () => {
    expect((await collect(file('feed.ndjson.gz', gzipSync(ndjson)))).products).toEqual(products);
    expect((await collect(file('feed.json.gz', gzipSync(array)))).products).toEqual(products);
    expect((await collect(chunked(gzipSync(array), 7))).products).toEqual(products);
  });

  it('handles any chunking, including 1-byte chunks that split lines, strings, escapes and UTF-8 sequences', async () => {
    for (const size of [1, 2, 3, 5, 64]) {
      expect((await collect(chunked(ndjson, size))).products).toEqual(products);
      expect((await collect(chunked(array, size))).products).toEqual(products);
    }
  });

  it('reads string chunks and object streams and (async) iterables of objects', async () => {
    expect((await collect(Readable.from([ndjson.slice(0, 10), ndjson.slice(10)], { objectMode: false }))).products).toEqual(products);
    expect((await collect(Readable.from(products))).products).toEqual(products);
    expect((await collect(products)).products).toEqual(products);
    expect((await collect((async function* () { yield* products; })())).products).toEqual(products);
  });

  it('keeps huge strings and escapes intact', async () => {
    // Long words, so that the text stays within the words-per-field limit.
    const big = { refId: 'big', description: `${'x'.repeat(100)}\\"\n\u2028`.repeat(10_000) + 'é'.repeat(100_000) };
    const text = JSON.stringify(big);
    expect((await collect(chunked(text + '\n', 65_536))).products).toEqual([big]);
    expect((await collect(chunked(`[${text},${text}]`, 65_536))).products).toEqual([big, big]);
  });

  it('refuses a feed that is not UTF-8 (a Latin-1 export) whole, whatever onError says, naming the byte', async () => {
    // "café" in Latin-1: 0xE9 alone. Decoded leniently, it was stored as "caf\uFFFD" (text nobody sent).
    const latin1 = Buffer.concat([Buffer.from('{"refId":"a","title":"ok"}\n{"refId":"b","title":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]);
    for (const size of [1, 3, 64]) {
      for (const onError of ['reject', 'skip'] as const) {
        const err = await rejection(chunked(latin1, size), { onError });
        expect((err as { code?: string }).code).toBe('CATALOG_BAD_INPUT');
        // Near: a sequence the byte began is found broken in the next chunk.
        expect(err.message).toMatch(/^the product feed is not valid UTF-8 \(near byte 5[34]\): convert it to UTF-8 \(e\.g\. iconv -f WINDOWS-1252 -t UTF-8\); nothing was loaded$/);
      }
    }
    expect((await rejection(chunked(latin1, 64))).message).toMatch(/near byte 53\)/);
    expect((await rejection(file('latin1.json', Buffer.concat([Buffer.from('[{"refId":"'), Buffer.from([0xff]), Buffer.from('"}]')])))).message).toMatch(/not valid UTF-8 \(near byte 12\)/);
    // A feed cut inside a multi-byte sequence ("é" is 0xC3 0xA9).
    expect((await rejection(chunked(Buffer.from([...Buffer.from('{"refId":"a"}\n'), 0xc3]), 5))).message).toMatch(/not valid UTF-8 \(near byte 15\)/);
  });

  it("skips bad NDJSON lines with onError 'skip', reporting 1-based line numbers", async () => {
    const text = ['{"refId":"a"}', '', '{bad json', '[1,2]', '{"title":"no id"}', '{"refId":5}', '"str"', '{"refId":"b"}'].join('\n');
    const { products: read, skipped } = await collect(chunked(text, 4), { onError: 'skip' });
    expect(read.map((p) => p.refId)).toEqual(['a', 'b']);
    expect(skipped.map((s) => s.line)).toEqual([3, 4, 5, 6, 7]);
    expect(skipped[0]!.message).toMatch(/invalid JSON/);
    expect(skipped[1]!.message).toMatch(/not a JSON object/);
    expect(skipped[2]!.message).toMatch(/refId/);
  });

  it("rejects the first bad NDJSON line by default with CATALOG_BAD_INPUT naming the line", async () => {
    const err = await rejection(chunked('{"refId":"a"}\n\n{oops}\n{"refId":"b"}\n', 3));
    expect(isAisleError(err)).toBe(true);
    expect((err as { code?: string }).code).toBe('CATALOG_BAD_INPUT');
    expect(err.message).toMatch(/^line 3: /);
  });

  it('skips or rejects bad array elements by 1-based element index', async () => {
    const text = '[{"refId":"a"}, {bad}, 42, {"refId":"b"}, {"no":"id"}, "s"]';
    const { products: read, skipped } = await collect(chunked(text, 1), { onError: 'skip' });
    expect(read.map((p) => p.refId)).toEqual(['a', 'b']);
    expect(skipped.map((s) => s.line)).toEqual([2, 3, 5, 6]);
    const err = await rejection(chunked(text, 1));
    expect(err.message).toMatch(/^element 2: /);
  });

  it('refuses a record longer than MAX_RECORD_CHARS without gathering it (lines that do not end in \\n), and reads on with skip', async () => {
    // A CR-only export is one line: it was gathered whole, and past V8's longest string joining it threw (a 500).
    const long = `{"refId":"L","title":"${'x'.repeat(MAX_RECORD_CHARS)}"}`;
    const ndjson = `{"refId":"A"}\n${long}\n{"refId":"B"}\n`;
    const skipped = await collect(chunked(ndjson, 1 << 20), { onError: 'skip' });
    expect(skipped.products.map((p) => p.refId)).toEqual(['A', 'B']);
    expect(skipped.skipped).toEqual([{ line: 2, message: expect.stringMatching(/^the record is longer than 16000000 characters \(a product holds at most 2000000\)/) }]);
    const array = await collect(chunked(`[{"refId":"A"},${long},{"refId":"B"}]`, 1 << 20), { onError: 'skip' });
    expect(array.products.map((p) => p.refId)).toEqual(['A', 'B']);
    expect(array.skipped).toMatchObject([{ line: 2 }]);
    // Rejected as soon as it is too long, naming the line; the rest of the feed is not read.
    const err = await rejection(chunked(`{"refId":"A"}\r{"refId":"B"}\r${long}`, 1 << 20));
    expect(isAisleError(err) && err.code).toBe('CATALOG_BAD_INPUT');
    expect(err.message).toMatch(/^line 1: the record is longer than 16000000 characters/);
  });

  it('reports an unterminated array', async () => {
    const cut = array.slice(0, array.lastIndexOf('}') - 3);
    const err = await rejection(chunked(cut, 16));
    expect((err as { code?: string }).code).toBe('CATALOG_BAD_INPUT');
    expect(err.message).toMatch(/^element 3: unterminated JSON array/);
    const { products: read, skipped } = await collect(chunked(cut, 16), { onError: 'skip' });
    expect(read).toEqual(products.slice(0, 2));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.line).toBe(3);
    const noBracket = await rejection(chunked('[{"refId":"a"}', 4));
    expect(noBracket.message).toMatch(/unterminated/);
  });

  it('rejects content after the closing bracket and a non-iterable source', async () => {
    expect((await rejection(chunked('[{"refId":"a"}] x', 4))).message).toMatch(/after the end/);
    expect(isAisleError(await rejection(42 as never))).toBe(true);
    expect((await rejection(join(dir, 'missing.ndjson'))).message).toMatch(/cannot read/);
  });

  it("closes a file it opened when the read stops early, and leaves a caller's stream open", async () => {
    const path = file('early.ndjson', ndjson);
    const before = (await import('node:fs')).readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 20; i++) {
      for await (const _ of readProductFeed(path, { skipped: new SkipReport() })) break;
      await expect(collect(file('bad-early.ndjson', '{"refId":"a"}\n{oops}\n' + ndjson))).rejects.toThrow(/line 2/);
    }
    await new Promise((r) => setTimeout(r, 50));
    expect((await import('node:fs')).readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before + 2);
    const stream = chunked('{"refId":"a"}\n{oops}\n' + ndjson, 4);
    await expect(collect(stream)).rejects.toThrow(/line 2/);
    expect(stream.destroyed).toBe(false);
  });

  it('calls onProgress every 10k records and at the end, with bytes for streams', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 25_000; i++) lines.push(JSON.stringify({ refId: `p${i}` }));
    const text = lines.join('\n');
    const calls: { records: number; bytes?: number }[] = [];
    const { products: read } = await collect(chunked(text, 4096), { onProgress: (p) => calls.push(p) });
    expect(read).toHaveLength(25_000);
    expect(calls.map((c) => c.records)).toEqual([10_000, 20_000, 25_000]);
    expect(calls.at(-1)!.bytes).toBe(Buffer.byteLength(text));
  });
});
