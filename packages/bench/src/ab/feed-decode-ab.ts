/**
 * A/B of reading a product feed from bytes (`readProductFeed`, catalog/input/feed-reader.ts) in two
 * trees, in one process: each tree's packages/engine/dist is imported at run time (`--a`, `--b`: the
 * roots of two worktrees, B defaulting to this one), and the same NDJSON feed (generated products with
 * accented and non-Latin titles, in 64 KiB chunks, as a file or an upload arrives) is read by each in
 * turn, alternating which goes first per round. Written for decision 0072 (a fatal UTF-8 decoder in
 * place of the lenient StringDecoder). Prints a table of milliseconds per read and the load average;
 * then, in the same process, the two decoders alone over the same chunks, and the adapter's body check
 * (`isUtf8` before `toString`) against `toString` alone on a 149-byte search body.
 *
 *   node packages/bench/dist/ab/feed-decode-ab.js --a <worktree of main> [--b <worktree>] [--products 200000] [--rounds 7]
 * @module
 */
import { isUtf8 } from 'node:buffer';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { summarize } from '../stats.js';

type ReadFeed = (source: Readable, options: { skipped: unknown }) => AsyncIterable<unknown>;
interface Side { label: string; read: ReadFeed; newSkipReport: () => unknown }

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: resolve(import.meta.dirname, '..', '..', '..', '..') },
    products: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '7' },
  },
});
if (!values.a) throw new Error('--a <root of the other worktree> is required');

async function side(label: string, root: string): Promise<Side> {
  const internal = await import(pathToFileURL(join(root, 'packages', 'engine', 'dist', 'internal.js')).href) as {
    readProductFeed: ReadFeed; SkipReport: new () => unknown;
  };
  return { label, read: internal.readProductFeed, newSkipReport: () => new internal.SkipReport() };
}

/** An NDJSON feed of `count` products whose titles mix ASCII, Latin accents and CJK (multi-byte sequences split by the chunks). */
function feed(count: number): Buffer[] {
  const words = ['café', 'crème', 'Ünïcødé', '日本語', 'linen', 'shirt', 'wool', 'scarf', 'façade', 'naïve'];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(JSON.stringify({ refId: `SKU-${i}`, title: `${words[i % 10]} ${words[(i * 7) % 10]} ${words[(i * 3) % 10]} ${i}`, brand: words[(i * 5) % 10], price: (i % 997) / 10 }));
  }
  const bytes = Buffer.from(lines.join('\n') + '\n');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
  return chunks;
}

async function timeRead(s: Side, chunks: Buffer[]): Promise<{ ms: number; products: number }> {
  const start = performance.now();
  let products = 0;
  for await (const product of s.read(Readable.from(chunks, { objectMode: false }), { skipped: s.newSkipReport() })) products += product === undefined ? 0 : 1;
  return { ms: performance.now() - start, products };
}

const sides = [await side('A', resolve(values.a)), await side('B', resolve(values.b!))];
const chunks = feed(Number(values.products));
const megabytes = chunks.reduce((n, c) => n + c.length, 0) / 1_048_576;
console.log(`feed: ${Number(values.products).toLocaleString('en-US')} products, ${megabytes.toFixed(1)} MB in 64 KiB chunks; A = ${resolve(values.a)}, B = ${resolve(values.b!)}`);
// Warm-up: one read each (JIT, lazy imports).
for (const s of sides) await timeRead(s, chunks);
const times: Record<string, number[]> = { A: [], B: [] };
console.log('| round (load 1 min) | first | A ms | B ms | B / A |');
console.log('|---|---|---:|---:|---:|');
for (let round = 1; round <= Number(values.rounds); round++) {
  const order = round % 2 === 1 ? sides : [...sides].reverse();
  const row: Record<string, number> = {};
  for (const s of order) {
    const { ms, products } = await timeRead(s, chunks);
    if (products !== Number(values.products)) throw new Error(`${s.label} read ${products} products`);
    row[s.label] = ms;
    times[s.label]!.push(ms);
  }
  console.log(`| ${round} (${loadavg()[0]!.toFixed(2)}) | ${order[0]!.label} | ${row.A!.toFixed(0)} | ${row.B!.toFixed(0)} | ${(row.B! / row.A!).toFixed(2)} |`);
}
const a = summarize(times.A!).median, b = summarize(times.B!).median;
console.log(`| median | | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)} |`);

// The decoders alone over the same chunks (the feed reader's decode step, no parsing), alternating.
const decoders: [string, () => number][] = [
  ['StringDecoder (A)', () => { const d = new StringDecoder('utf8'); let n = 0; for (const c of chunks) n += d.write(c).length; return n + d.end().length; }],
  ['TextDecoder fatal (B)', () => { const d = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); let n = 0; for (const c of chunks) n += d.decode(c, { stream: true }).length; return n + d.decode().length; }],
];
const decodeTimes: number[][] = [[], []];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
    const start = performance.now();
    decoders[i]![1]();
    decodeTimes[i]!.push(performance.now() - start);
  }
}
console.log(`decoding alone, ${megabytes.toFixed(1)} MB, ${values.rounds} rounds (load ${loadavg()[0]!.toFixed(2)}): ${decoders.map(([name], i) => `${name} median ${summarize(decodeTimes[i]!).median.toFixed(1)} ms`).join(', ')}`);

// The adapter's body check: isUtf8 before toString, against toString alone, on a search body.
const body = Buffer.from(JSON.stringify({ website_id: 'site-a', client: 'client-a', q: 'linen shirt', start: 0, size: 20, aggregations: ['brand', 'search_category'], range_fields: ['price'] }));
const perCall = (fn: () => number, calls = 2_000_000): number => { let n = 0; const start = performance.now(); for (let i = 0; i < calls; i++) n += fn(); if (n < 0) console.log(n); return (performance.now() - start) * 1e6 / calls; };
for (let round = 0; round < 2; round++) {
  const plain = perCall(() => body.toString('utf8').length);
  const checked = perCall(() => (isUtf8(body) ? body.toString('utf8').length : 0));
  console.log(`body of ${body.length} bytes (load ${loadavg()[0]!.toFixed(2)}): toString ${plain.toFixed(1)} ns, isUtf8 + toString ${checked.toFixed(1)} ns`);
}
