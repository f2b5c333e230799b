/**
 * Evaluation of the experiment statistics (writes docs/experiments-evaluation.md):
 *   node packages/bench/dist/experiments-eval.js [--runs 100] [--aa-runs 500] [--intents 1000] [--seed 7] [--out docs/experiments-evaluation.md]
 *
 * Simulated shoppers (experiments/shoppers.ts: known-item intents, position-biased examination, noisy
 * clicks, purchases) on the real Flipkart and Best Buy catalogs (../shared/datasets). Each intent is
 * answered by aisle twice: with the default settings (ranking A) and with every field weighted alike
 * (`fieldWeights` 1 for title, brand and category: ranking B, a plausible merchant change). Because the
 * click model is explicit, each ranking's true CTR is known, and so is every effect tested:
 * 1. A/A tests: both arms show ranking A; over `runs` seeded experiments at the report's horizon
 *    (`minUsers` per arm), how often each metric's test says "significant" (the false-positive rate;
 *    target ≤ 6 %).
 * 2. Power: arm B's shoppers click with an attractiveness scaled so that its true CTR is exactly 10 %
 *    higher; the share of `runs` experiments at `minUsers` per arm that find it (target ≥ 75 %).
 * 3. Interleaving against A/B: rankings A and B as they are (their true CTR difference measured, not
 *    chosen); the users each method needs to find the difference in 80 % of experiments (doubling,
 *    then bisecting, 40 runs per size), and their ratio.
 * @module
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Catalog, executeSearch, minUsersForRate, proportionEstimate, ratioTest, signTest, twoProportionTest, welchTest, type Comparison } from '@aisle/engine/internal';
import type { WebsiteSettings } from '@aisle/engine';
import { DATASETS_DIR, loadDataset } from './datasets.js';
import { scaleForCtr, simulateArm, simulateInterleaving, trueCtr, type Arm, type Intent } from './experiments/shoppers.js';
import { machineInfo } from './machine.js';
import { relevantSet, sampleKnownItems } from './relevance/known-item.js';
import { seededRandom } from './seeded-random.js';

const CATALOGS = [
  { label: 'Flipkart (20,000 products)', file: 'flipkart-products.ndjson' },
  { label: 'Best Buy (3,291 products)', file: 'bestbuy-products-typesense.ndjson' },
];
/** Ranking B: every field weighted alike (the defaults weight title 3, brand 2, category 1.5). */
const FLAT_WEIGHTS = { fieldWeights: { title: 1, brand: 1, search_category: 1 } } as unknown as WebsiteSettings;
const POWER_TARGET = 0.8;
const RUNS_PER_SIZE = 40;
const MAX_USERS = 2_000_000;

interface Options { runs: number; aaRuns: number; intents: number; seed: number; out: string }

function parseArgs(argv: string[]): Options {
  const opts: Options = { runs: 100, aaRuns: 500, intents: 1000, seed: 7, out: fileURLToPath(new URL('../../../docs/experiments-evaluation.md', import.meta.url)) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--aa-runs') opts.aaRuns = Number(argv[++i]);
    else if (a === '--intents') opts.intents = Number(argv[++i]);
    else if (a === '--seed') opts.seed = Number(argv[++i]);
    else if (a === '--out') opts.out = path.resolve(argv[++i]!);
    else throw new Error(`unknown argument ${a} (usage: experiments-eval [--runs 100] [--aa-runs 500] [--intents 1000] [--seed 7] [--out file])`);
  }
  return opts;
}

/** Known-item intents of a catalog, each answered by ranking A and ranking B (top 10). */
async function intentsOf(file: string, count: number, seed: number): Promise<Intent[]> {
  const products = await loadDataset({ kind: 'file', path: file, label: file });
  const catalog = new Catalog();
  await catalog.upsert(products);
  const prices = new Map<string, number>();
  for (const p of products) if (typeof p.price === 'number') prices.set(p.refId, p.price);
  const relevantOf = relevantSet(products);
  const intents: Intent[] = [];
  for (const item of sampleKnownItems(products, count, seed)) {
    const q = item.queries.clean!;
    const request = { website_id: 'eval', client: 'eval', q, start: 0, size: 10 };
    const a = (await executeSearch(catalog, request)).result.map((p) => p.refId);
    const b = (await executeSearch(catalog, request, { settings: FLAT_WEIGHTS })).result.map((p) => p.refId);
    intents.push({ rankings: [a, b], relevant: relevantOf(item), prices });
  }
  return intents;
}

interface Verdicts { ctr: boolean; conversion: boolean; revenue: boolean }

/** Whether a test rejects at 5 % (a test that is not defined, pValue null, does not). */
const rejects = (c: Comparison): boolean => c.pValue !== null && c.pValue < 0.05;

/** One seeded A/B experiment with `users` per arm: which metrics' tests reject at 5 %. */
function abExperiment(intents: Intent[], control: Arm, variant: Arm, users: number, seed: number): Verdicts {
  const random = seededRandom(seed);
  const a = simulateArm(intents, control, users, random);
  const b = simulateArm(intents, variant, users, random);
  return {
    ctr: rejects(ratioTest(a.ctr, b.ctr)),
    conversion: rejects(twoProportionTest({ successes: a.converted, n: users }, { successes: b.converted, n: users })),
    revenue: rejects(welchTest(a.revenue, b.revenue)),
  };
}

/** Share of `runs` seeded runs in which `detects` holds. */
function rate(runs: number, seed: number, detects: (seed: number) => boolean): number {
  let hits = 0;
  for (let r = 0; r < runs; r++) if (detects(seed * 1_000_003 + r)) hits++;
  return hits / runs;
}

/** The smallest user count (per arm) at which `powerAt` reaches the target: doubling, then bisecting. */
function usersNeeded(powerAt: (users: number) => number, start: number): number | null {
  let low = 0;
  let high = start;
  while (powerAt(high) < POWER_TARGET) {
    low = high;
    high *= 2;
    if (high > MAX_USERS) return null;
  }
  for (let i = 0; i < 4; i++) {
    const mid = Math.round((low + high) / 2);
    if (powerAt(mid) >= POWER_TARGET) high = mid;
    else low = mid;
  }
  return high;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const interval = (hits: number, n: number) => {
  const e = proportionEstimate(hits, n);
  return `${pct(e.value)} (95 % interval ${pct(e.low)}–${pct(e.high)})`;
};
const int = (x: number) => x.toLocaleString('en-US');

async function evaluate(label: string, file: string, opts: Options): Promise<string[]> {
  const started = Date.now();
  const intents = await intentsOf(file, opts.intents, opts.seed);
  const ctrA = trueCtr(intents, 0);
  const ctrB = trueCtr(intents, 1);
  const minUsers = minUsersForRate(ctrA)!;
  const lines = [`### ${label}`, ''];
  lines.push(`${int(intents.length)} known-item intents; true CTR per search: ranking A (default weights) ${pct(ctrA)}, ranking B (flat weights) ${pct(ctrB)} (relative difference ${pct(ctrB / ctrA - 1)}). The report's horizon \`minUsers.ctr\` at the control's CTR: ${int(minUsers)} users per variant.`, '');

  // 1. A/A at each metric's horizon: CTR at minUsers.ctr; conversion rate and revenue per user at
  // minUsers.conversionRate, computed (as the report does) from the control's observed rate, here a
  // pilot of 20,000 simulated users.
  const pilot = simulateArm(intents, { ranking: 0, scale: 1 }, 20_000, seededRandom(opts.seed * 31));
  const conversionRate = pilot.converted / pilot.users;
  const minUsersConversion = minUsersForRate(conversionRate)!;
  lines.push(`Per-user conversion rate of ranking A (pilot of 20,000 users): ${pct(conversionRate)}; \`minUsers.conversionRate\`: ${int(minUsersConversion)} users per variant.`, '');
  // The rate over the first `runs` experiments is what the target is stated for; `aaRuns` more narrow
  // its interval (100 runs cannot tell 5 % from 9 %).
  const aa = { ctr: [0, 0], conversion: [0, 0], revenue: [0, 0] };
  const count = (tally: number[], hit: boolean, r: number) => {
    if (!hit) return;
    tally[1]!++;
    if (r < opts.runs) tally[0]!++;
  };
  for (let r = 0; r < Math.max(opts.runs, opts.aaRuns); r++) {
    count(aa.ctr, abExperiment(intents, { ranking: 0, scale: 1 }, { ranking: 0, scale: 1 }, minUsers, opts.seed * 7919 + r).ctr, r);
    const v = abExperiment(intents, { ranking: 0, scale: 1 }, { ranking: 0, scale: 1 }, minUsersConversion, opts.seed * 7927 + r);
    count(aa.conversion, v.conversion, r);
    count(aa.revenue, v.revenue, r);
  }
  const allRuns = Math.max(opts.runs, opts.aaRuns);
  lines.push(`**A/A tests** (both arms ranking A, each metric at its horizon; share of seeded experiments whose test said "significant", target ≤ 6 %):`, '');
  lines.push(`| metric | test | users per arm | false-positive rate, first ${opts.runs} runs | all ${allRuns} runs |`, '|---|---|---:|---|---|');
  lines.push(`| CTR | Welch's t on the ratio of sums (delta method over users) | ${int(minUsers)} | ${pct(aa.ctr[0]! / opts.runs)} | ${interval(aa.ctr[1]!, allRuns)} |`);
  lines.push(`| conversion rate | two-proportion z over users | ${int(minUsersConversion)} | ${pct(aa.conversion[0]! / opts.runs)} | ${interval(aa.conversion[1]!, allRuns)} |`);
  lines.push(`| revenue per user | Welch's t over per-user revenue | ${int(minUsersConversion)} | ${pct(aa.revenue[0]! / opts.runs)} | ${interval(aa.revenue[1]!, allRuns)} |`, '');

  // 2. Power for a known +10 % CTR.
  const scale = scaleForCtr(intents, 1.1);
  const power = rate(opts.runs, opts.seed + 1, (seed) => abExperiment(intents, { ranking: 0, scale: 1 }, { ranking: 0, scale }, minUsers, seed).ctr);
  lines.push(`**Power** at the horizon for a true +10 % relative CTR (arm B's attractiveness ×${scale.toFixed(3)}, true CTR ${pct(trueCtr(intents, 0, scale))}): ${interval(Math.round(power * opts.runs), opts.runs)} of ${opts.runs} runs significant (target ≥ 75 %; the sample size is computed for 80 %).`, '');

  // 3. Users needed: A/B against interleaving, for the real difference between rankings A and B.
  const better: 0 | 1 = ctrB > ctrA ? 1 : 0;
  const abPower = (users: number) =>
    rate(RUNS_PER_SIZE, opts.seed + users, (seed) => {
      const random = seededRandom(seed);
      const a = simulateArm(intents, { ranking: 0, scale: 1 }, users, random);
      const b = simulateArm(intents, { ranking: 1, scale: 1 }, users, random);
      const c = ratioTest(a.ctr, b.ctr);
      return rejects(c) && c.relativeDifference !== null && (c.relativeDifference > 0) === (better === 1);
    });
  const interleavingPower = (users: number) =>
    rate(RUNS_PER_SIZE, opts.seed + users, (seed) => {
      const { wins } = simulateInterleaving(intents, users, seededRandom(seed));
      const { pValue } = signTest(wins[0], wins[1]);
      return pValue !== null && pValue < 0.05 && wins[better] > wins[1 - better]!;
    });
  const abUsers = usersNeeded(abPower, 500);
  const ilUsers = usersNeeded(interleavingPower, 50);
  const abTotal = abUsers === null ? null : 2 * abUsers;
  lines.push(`**Interleaving against A/B** for the real difference between rankings A and B (${pct(ctrB / ctrA - 1)} relative CTR): users needed to find it (the better ranking, p < 0.05) in ${pct(POWER_TARGET)} of ${RUNS_PER_SIZE} runs per size:`, '');
  lines.push('| method | test | users needed |', '|---|---|---|');
  lines.push(`| A/B (two arms) | Welch's t on the ratio of sums (delta method over users) | ${abUsers === null ? `more than ${int(2 * MAX_USERS)}` : `${int(abTotal!)} (${int(abUsers)} per arm)`} |`);
  lines.push(`| team-draft interleaving (one group) | binomial sign test over users' preferences | ${ilUsers === null ? `more than ${int(MAX_USERS)}` : int(ilUsers)} |`);
  if (abTotal !== null && ilUsers !== null) lines.push('', `Interleaving needed **${(abTotal / ilUsers).toFixed(1)}× fewer users** than the A/B test.`);
  lines.push('', `(${((Date.now() - started) / 1000).toFixed(0)} s)`, '');
  return lines;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const available = CATALOGS.filter((c) => existsSync(path.join(DATASETS_DIR, c.file)));
  if (available.length === 0) {
    console.error(`experiments-eval: no catalog found in ${DATASETS_DIR} (set AISLE_DATASETS); nothing measured`);
    process.exit(2);
  }
  const m = machineInfo();
  const lines = [
    '# Experiments: evaluation',
    '',
    'Generated by `node packages/bench/dist/experiments-eval.js` (packages/bench/src/experiments-eval.ts); the design it checks is in [experiments.md](experiments.md).',
    `Simulated shoppers: known-item intents made from real product titles, position-based examination (rank k examined with probability 1/k), clicks on a wanted product 60 %, on any other 5 % (noise), a purchase after 25 % of clicks on a wanted product; 1–3 searches per user. Seed ${opts.seed}.`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}`,
    '',
  ];
  for (const c of available) {
    console.error(`experiments-eval: ${c.label}…`);
    lines.push(...(await evaluate(c.label, path.join(DATASETS_DIR, c.file), opts)));
  }
  writeFileSync(opts.out, `${lines.join('\n').trimEnd()}\n`);
  console.error(`experiments-eval: wrote ${opts.out}`);
}

await main();
