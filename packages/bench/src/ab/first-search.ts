/**
 * The first worded search of a catalog version, on two trees in one process: what a search pays for
 * the lookups derived once per version (the stem index of a new vocabulary, the blocks and bitsets of
 * new postings), on each tree's engine with the same catalog. Per tree, per round: the catalog is
 * loaded (or a product with new words appended), the process waits for its background work, one
 * search of a query without stemmable words (digits) runs untimed (the code paths every search takes
 * once), then the wall time of the first search of a word, and of the one after it. The trees alternate
 * which goes first from round to round.
 *
 * Run: `node packages/bench/dist/ab/first-search.js --a <tree> --b . [--products 100000 | --dataset flipkart] [--rounds 3] [--q shirt]`
 * @module
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { option } from '../cli-option.js';
import { datasetOfOptions, loadDataset } from '../datasets.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { SearchRequest } from '../types.js';
import { waitForIdle } from './idle.js';
import { createTreeEngine, type TreeEngine } from './tree-engine.js';


const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const rounds = Number(option('rounds', '3'));
const word = option('q', 'shirt');

const body = (q: string): SearchRequest => ({ website_id: BENCH_WEBSITE.websiteId, client: BENCH_WEBSITE.client, q, start: 0, size: 20 });

/** Wall ms of one search. */
async function timed(engine: TreeEngine, q: string): Promise<number> {
  const t0 = performance.now();
  await engine.search(body(q));
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const all = await loadDataset(datasetOfOptions('100000'));
  const engines: TreeEngine[] = [];
  for (const root of roots) {
    engines.push(await createTreeEngine(root));
  }
  const rows: string[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const engine = engines[side]!;
      // Round 0 loads the catalog (new vocabulary and postings); later rounds append a product of new
      // words (a new vocabulary, the same main postings).
      if (round === 0) await engine.replaceProducts(BENCH_WEBSITE.websiteId, all);
      else await engine.upsertProducts(BENCH_WEBSITE.websiteId, [{ refId: `first-search-${round}`, title: `knitted${round} jumpers${round} shirt` }]);
      await waitForIdle();
      await engine.search(body(String(2024 + round)));
      const first = await timed(engine, word);
      const second = await timed(engine, `${word} blue`);
      rows.push(`round ${round} ${round === 0 ? 'load  ' : 'append'} ${side === 0 ? 'A' : 'B'}: first "${word}" ${first.toFixed(2)} ms, then "${word} blue" ${second.toFixed(2)} ms`);
    }
  }
  console.log(`${all.length.toLocaleString('en-US')} products, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const row of rows) console.log(row);
  console.log(`load at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}\nA: ${roots[0]}\nB: ${roots[1]}`);
  for (const engine of engines) await engine.close();
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
