/**
 * CPU per `matchText` on the fewer-words path (a query none of whose products holds every word: the
 * per-word lists summed pairwise by mergeSum, search/text-matches.ts) of two trees in ONE process.
 * Both trees' sources are imported (run with tsx) and match over the same catalog built by tree B;
 * each query's words come from different products' titles and its plan is lowered to one word, as
 * execute-search.ts lowers it when nothing matches every word. The two sides' answers are compared
 * first (docs and scores identical, or the run stops); then rounds alternate which side goes first.
 *
 * Run: `node --import tsx packages/bench/src/ab/fewer-words-ab.ts --a /path/to/tree-a --b . [--products 20000] [--queries 50] [--rounds 10]`
 * @module
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { option } from '../cli-option.js';
import { loadDataset } from '../datasets.js';

interface Matches { docs: ArrayLike<number>; scores: ArrayLike<number>; length: number }
type MatchText = (index: unknown, plan: unknown, lo: number, hi: number) => Matches;

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const productCount = Number(option('products', '20000'));
const queryCount = Number(option('queries', '50'));
const rounds = Number(option('rounds', '10'));

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;

/** A copy of the matches (they live until the side's next matching). */
const copyOf = (m: Matches): [number[], number[]] => [Array.from({ length: m.length }, (_, k) => m.docs[k]!), Array.from({ length: m.length }, (_, k) => m.scores[k]!)];

async function main(): Promise<void> {
  const src = (root: string, file: string) => pathToFileURL(join(root, 'packages/engine/src', file)).href;
  const sides = await Promise.all(roots.map(async (root) => (await import(src(root, 'search/text-matches.ts')) as { matchText: MatchText }).matchText));
  const { Catalog } = await import(src(roots[1]!, 'catalog/catalog.ts')) as typeof import('@aisle/engine/internal');
  const { compileSearchPlan } = await import(src(roots[1]!, 'search/search-plan.ts')) as typeof import('@aisle/engine/internal');
  const products = await loadDataset({ kind: 'generated', count: productCount, seed: 1 });
  const catalog = new Catalog();
  await catalog.replace(products);
  const titleWords = products.map((p) => String(p.title ?? '').toLowerCase().split(/\s+/).filter((w) => w.length > 2));
  const plans = Array.from({ length: queryCount }, (_, i) => {
    // Three words of three far-apart products: rarely all in one product.
    const words = [0, 1, 2].map((k) => { const t = titleWords[(i * 7919 + k * 104_729) % products.length]!; return t[(i + k) % Math.max(1, t.length)] ?? 'shirt'; });
    const { plan } = compileSearchPlan(catalog.state, { website_id: 'w', client: 'c', q: words.join(' '), start: 0, size: 20 });
    plan.minWords = 1;
    return plan;
  }).filter((plan) => !plan.matchNothing && plan.words.length > 1);
  const index = catalog.state.index;
  const n = index.docCount;
  for (const plan of plans) {
    if (JSON.stringify(copyOf(sides[0]!(index, plan, 0, n))) !== JSON.stringify(copyOf(sides[1]!(index, plan, 0, n)))) throw new Error(`the sides' matches differ of a query of ${plan.words.length} words`);
  }
  const cpuPerMatch = (matchText: MatchText, reps: number): number => {
    const before = process.cpuUsage();
    for (let r = 0; r < reps; r++) for (const plan of plans) matchText(index, plan, 0, n);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (reps * plans.length);
  };
  for (let w = 0; w < 3; w++) for (const side of sides) cpuPerMatch(side, 20);
  const times: number[][] = [[], []];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const s of order) times[s]!.push(cpuPerMatch(sides[s]!, 30));
  }
  const [a, b] = times.map(median) as [number, number];
  console.log(JSON.stringify({
    at: new Date().toISOString(), load: loadavg().map((l) => Number(l.toFixed(2))), products: productCount, queries: plans.length,
    aCpuUsPerMatch: Number(a.toFixed(1)), bCpuUsPerMatch: Number(b.toFixed(1)), bOverA: Number((b / a).toFixed(3)),
  }));
}

await main();
