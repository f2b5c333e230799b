/**
 * CPU per decode of the recommendation query string (`queryDecoderFor('RecommendQuery')`, what the adapter
 * runs on every recommendation GET) of two trees in ONE process: both trees' sources are imported (run
 * with tsx); the product-page and cart queries of micro/query-decoder.ts are decoded `--reps` times per
 * round on each side, the side going first alternating per round. The two sides' decoded parameters are
 * compared first. A control: the same tree as both sides (`--b` a second copy of `--a`).
 *
 * Run: `node --import tsx packages/bench/src/ab/query-decoder-ab.ts --a /path/to/tree-a --b . [--rounds 10] [--reps 200000]`
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { option } from '../cli-option.js';

type Decode = (query: string, maxItems: number) => unknown;

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const rounds = Number(option('rounds', '10'));
const reps = Number(option('reps', '200000'));

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;

async function main(): Promise<void> {
  const sides = await Promise.all(roots.map(async (root) => {
    const { queryDecoderFor } = await import(pathToFileURL(join(root, 'packages/http-adapter/src/query.ts')).href) as { queryDecoderFor(name: string): Decode };
    return queryDecoderFor('RecommendQuery');
  }));
  const queries = {
    productPage: 'customerId=c-0123456789&productRef=SKU-0001658&filterOutOfStock=true&count=10',
    cart: 'customerId=c-0123456789&items%5B0%5D=SKU-0001658&items%5B1%5D=SKU-0000003&items%5B2%5D=SKU-0004102&filterOutOfStock=1',
  };
  const result: Record<string, unknown> = { at: new Date().toISOString(), load: loadavg().map((l) => Number(l.toFixed(2))) };
  for (const [name, query] of Object.entries(queries)) {
    if (!isDeepStrictEqual(sides[0]!(query, 100), sides[1]!(query, 100))) throw new Error(`the sides decode the ${name} query differently`);
    const nsPerDecode = (decode: Decode, n: number): number => {
      const before = process.cpuUsage();
      for (let i = 0; i < n; i++) decode(query, 100);
      const used = process.cpuUsage(before);
      return ((used.user + used.system) * 1000) / n;
    };
    for (let w = 0; w < 3; w++) for (const side of sides) nsPerDecode(side, reps >> 2);
    const times: number[][] = [[], []];
    for (let round = 0; round < rounds; round++) for (const s of round % 2 === 0 ? [0, 1] : [1, 0]) times[s]!.push(nsPerDecode(sides[s]!, reps));
    const [a, b] = times.map(median) as [number, number];
    result[name] = { aNsPerDecode: Math.round(a), bNsPerDecode: Math.round(b), bOverA: Number((b / a).toFixed(3)) };
  }
  console.log(JSON.stringify(result));
}

await main();
